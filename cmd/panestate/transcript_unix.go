//go:build linux || darwin

package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/panestate/panestate/internal/hook"
)

// maxScan bounds what one scan reads of a transcript.
const maxScan = 1 << 20

// transcriptSize returns the size of the transcript file at path: 0 when
// there is none yet (the agent makes it with the session's first record,
// which may come after the first prompt's hook), -1 when it is not a
// plain file of this user.
func transcriptSize(path string) int64 {
	f, err := openTranscript(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		return -1
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}

// openTranscript opens the transcript at path read-only, not through a
// link at its end, and only when it is a plain file owned by this user.
func openTranscript(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || !ownedByMe(fi)) {
		err = os.ErrPermission
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ownedByMe reports whether fi's file belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// transcript follows the records an agent appends to its session's
// transcript after the last hook's event, for what no hook reports (a
// rejected permission). It reads only complete records appended since
// pos, at most maxScan bytes a scan, skips records longer than
// hook.MaxRecord unread, and keeps nothing of what it reads.
type transcript struct {
	agent hook.Agent
	path  string
	pos   int64
	skip  bool // in a record longer than hook.MaxRecord, skipped to its end
}

// follow takes the transcript of e, when it names one: reading starts at
// e's offset, since what was written before the hook ran comes before e.
func (t *transcript) follow(e hook.Event) {
	switch {
	case e.Transcript == "":
	case e.Transcript != t.path:
		*t = transcript{agent: e.Agent, path: e.Transcript, pos: e.Offset}
	case e.Offset > t.pos:
		t.pos, t.skip = e.Offset, false
	}
}

// scan reads the records appended since the last scan and returns what
// the last one that means something says (hook.TranscriptKind), or
// hook.KindIgnore.
func (t *transcript) scan() hook.Kind {
	if t.path == "" {
		return hook.KindIgnore
	}
	f, err := openTranscript(t.path)
	if err != nil {
		return hook.KindIgnore
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return hook.KindIgnore
	}
	if fi.Size() < t.pos {
		// Truncated or replaced: what it holds now says nothing of the
		// turn the pane shows.
		t.pos, t.skip = fi.Size(), false
		return hook.KindIgnore
	}
	if fi.Size() == t.pos {
		return hook.KindIgnore
	}
	buf := make([]byte, min(fi.Size()-t.pos, maxScan))
	n, _ := f.ReadAt(buf, t.pos)
	buf = buf[:n]
	kind := hook.KindIgnore
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := buf[:i]
		buf = buf[i+1:]
		t.pos += int64(i + 1)
		if t.skip {
			t.skip = false
			continue
		}
		if k := hook.TranscriptKind(t.agent, line); k != hook.KindIgnore {
			kind = k
		}
	}
	if len(buf) > hook.MaxRecord || (t.skip && len(buf) > 0) {
		// A record too long to read, still being written: skip it.
		t.pos += int64(len(buf))
		t.skip = true
	}
	return kind
}
