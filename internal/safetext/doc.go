// Package safetext makes JSON text safe to print on a terminal, for the
// registry's Explanation and the doctor's report: the same JSON value, with
// every rune adapter.Bound would clean that encoding/json leaves as it is
// written as a \uXXXX escape.
package safetext
