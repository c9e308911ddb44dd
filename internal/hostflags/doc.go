// Package hostflags defines the command-line flags the example hosts share:
// the flags that say which application a chat service is, where its project
// is, and how it runs. The chat and doctor examples both use it (the doctor
// through package doctor, which `panestate doctor` runs too), so that
// `doctor` answers exactly for the session `chat` would run with the same
// flags.
//
// # Flags
//
// [Register] defines them on a flag.FlagSet:
//
//	--app NAME               the application (default "chat"): settings under
//	                         ~/.NAME/agent/settings.json and
//	                         <project>/.NAME/settings.json, Herdr source
//	                         custom:NAME and label NAME
//	--project DIR            the project root (default: the working directory)
//	--trust-project          apply the project's settings file
//	--mode tui|print|json|rpc
//	--no-ui                  the host has no UI
//	--role root|subagent|workflow-stage
//	--loaded-extension PATH  an extension the host loaded (repeatable)
//
// [Flags.Host] turns them into a session.Host (interactive for mode tui
// without --no-ui, root for role root), and [Flags.Options] into the
// registry.Options a host passes to registry.New.
//
// The package serves the example hosts and the doctor: a real chat service
// knows its own mode, role and trust decision and fills in registry.Options
// directly.
package hostflags
