//go:build linux || darwin

package main

import (
	"bytes"
	"io"
	"os"
	"syscall"

	"github.com/panestate/panestate/internal/hook"
)

// maxRecord bounds one transcript record the bridge looks at: a longer
// line is skipped unread, up to its end.
const maxRecord = 1 << 20

// maxFollow bounds what the bridge reads of a transcript at one look.
const maxFollow = 4 << 20

// rejectWatch follows an agent's local transcript while the pane waits
// for an approval, for the record of a rejection ([hook.Rejected]): the
// agent fires no hook when the person rejects a tool. It reads only what
// the agent appends after the approval, at most maxFollow at a look, one
// record at a time; nothing it reads is kept, logged or sent.
type rejectWatch struct {
	agent    hook.Agent
	f        *os.File
	off      int64
	line     []byte // the start of a record whose end has not been written yet
	skipping bool   // inside a record longer than maxRecord
}

// followTranscript opens the transcript at path to watch what agent
// appends to it from now on. It returns nil when path is not a plain file
// of this user that opens without following a link.
func followTranscript(agent hook.Agent, path string) *rejectWatch {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !ownedByMe(fi) {
		f.Close()
		return nil
	}
	return &rejectWatch{agent: agent, f: f, off: fi.Size()}
}

// ownedByMe reports whether fi is of a file of this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// close closes the transcript; w may be nil.
func (w *rejectWatch) close() {
	if w != nil {
		w.f.Close()
	}
}

// rejected reads what was appended since the last look and reports
// whether a complete record of it is a rejection. A transcript that
// shrank (the agent started it over) is read again from its start.
func (w *rejectWatch) rejected() bool {
	fi, err := w.f.Stat()
	if err != nil {
		return false
	}
	if fi.Size() < w.off {
		w.off, w.line, w.skipping = 0, w.line[:0], false
	}
	buf := make([]byte, min(fi.Size()-w.off, maxFollow))
	n, err := w.f.ReadAt(buf, w.off)
	if err != nil && err != io.EOF {
		return false
	}
	w.off += int64(n)
	found := false
	for rest := buf[:n]; len(rest) > 0; {
		part, after, complete := bytes.Cut(rest, []byte{'\n'})
		rest = after
		switch {
		case w.skipping:
		case len(w.line)+len(part) > maxRecord:
			w.skipping, w.line = true, w.line[:0]
		default:
			w.line = append(w.line, part...)
		}
		if !complete {
			continue // rest is empty: the record ends in a later look
		}
		if !w.skipping && !found && hook.Rejected(w.agent, w.line) {
			found = true
		}
		w.line, w.skipping = w.line[:0], false
	}
	return found
}
