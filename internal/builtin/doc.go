// Package builtin holds the two rules every built-in adapter applies the
// same way: which hosts may claim a pane ([CheckHost]) and how a duration
// setting reads ([ParseDuration]).
//
// They are not part of package adapter's contract: an out-of-tree adapter
// writes its own host check from [session.Host.Interactive] and decodes its
// own settings section in whatever form it documents.
package builtin
