// Package builtin holds the rules every built-in adapter applies the same
// way: which hosts may claim a pane ([CheckHost]), how a duration setting
// reads ([ParseDuration]) and what a name taken from settings may hold
// ([ValidName], which the registry also applies to the app name).
//
// They are not part of package adapter's contract: an out-of-tree adapter
// writes its own host check from [session.Host.Interactive] and decodes its
// own settings section in whatever form it documents.
package builtin
