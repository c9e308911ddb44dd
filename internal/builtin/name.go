package builtin

import "strings"

// ValidName reports whether s is 1 to max bytes of ASCII letters and
// digits and the bytes in extra, starting with a letter or digit: the
// grammar of the names panestate takes from settings and hands to a
// workspace (the app name, tmux's option prefix and agent label). It is
// written by hand, not as a regular expression, so that a program that
// links it compiles nothing at start (a hook process pays for that on
// every agent event).
func ValidName(s string, max int, extra string) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || strings.IndexByte(extra, c) < 0) {
			return false
		}
	}
	return true
}
