// Package archtest holds no code, only a test that keeps panestate's import
// graph the DAG that the design fixes: session is a leaf, adapter knows
// nothing of settings or the registry, the reducer does no I/O, settings
// never imports the registry, adapters import neither, and only the registry
// ties everything together.
package archtest
