package herdr

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/panestate/panestate/internal/filelock"
)

// highWaterTable holds, per pane, the newest sequence number this process
// gave it.
type highWaterTable struct {
	mu sync.Mutex
	m  map[paneKey]uint64
}

// highWater must be process-wide: Herdr silently ignores any report whose
// sequence number is not above the last one it accepted from the same source
// in the same pane, and it keeps that mark across releases. A counter held
// by an adapter would restart below the mark after a settings reload, a
// registry being re-created, or the wall clock stepping back, and every
// report after that would vanish without an error.
var highWater = highWaterTable{m: make(map[paneKey]uint64)}

// next returns max(clockMs, mark+1, floor+1) for k and records it. A mark
// or floor at the top of the uint64 range (a corrupt file) wraps to 0 and so
// drops out, rather than pinning every later number where Herdr ignores it.
func (h *highWaterTable) next(k paneKey, clockMs, floor uint64) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	seq := max(clockMs, h.m[k]+1, floor+1)
	h.m[k] = seq
	return seq
}

// reset forgets every mark, as a fresh process would. Tests only.
func (h *highWaterTable) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.m)
}

// errNoStateDir is the persist error when no state directory is known.
var errNoStateDir = errors.New("no state directory (set HOME, XDG_STATE_HOME or LOCALAPPDATA)")

// seqFileBase returns the base name of k's sequence file: a hash, so that
// pane ids and socket paths (which hold separators and arbitrary text) never
// become path components.
func seqFileBase(k paneKey) string {
	sum := sha256.Sum256([]byte(k.socket + "\x00" + k.pane))
	return hex.EncodeToString(sum[:16])
}

// clockMs returns t in milliseconds since the Unix epoch, 0 before it.
func clockMs(t time.Time) uint64 {
	if ms := t.UnixMilli(); ms > 0 {
		return uint64(ms)
	}
	return 0
}

// nextSeq returns the sequence number of the next call for a's pane:
// max(clock ms, process high-water + 1, on-disk high-water + 1).
//
// The pane's file holds the exact number of the newest call any process
// made (or is about to make) in the pane. nextSeq takes the pane's file
// lock, reads the file, picks the number, writes it back and only then
// unlocks, all before the call that uses the number: the file is never
// behind what Herdr saw, two processes never pick the same number, and a
// restarted process, or a second process in the same pane, continues
// exactly one above the newest number even after its clock went back. The
// numbers equal the clock whenever the clock is ahead; they only run ahead
// of it by the number of calls made within one millisecond, or after the
// clock stepped back.
//
// The directory is created on the first call and again only when the lock
// file cannot be opened because it is missing. A persistence error is
// returned with a usable sequence number.
func (a *Adapter) nextSeq() (uint64, error) {
	now := clockMs(a.clock())
	if a.stateDir == "" {
		return highWater.next(a.key, now, 0), errNoStateDir
	}
	base := filepath.Join(a.stateDir, seqFileBase(a.key))
	unlock, err := a.lockSeq(base + ".lock")
	if err != nil {
		return highWater.next(a.key, now, 0), err
	}
	seq, err := updateSeq(base+".seq", func(disk uint64) uint64 {
		return highWater.next(a.key, now, disk)
	})
	return seq, errors.Join(err, unlock())
}

// lockSeq takes the pane's file lock, creating the state directory when it
// has not been made yet by this adapter or has since been removed. The
// adapter's calls are serialised (its op slot), so dirMade needs no other
// guard.
func (a *Adapter) lockSeq(path string) (func() error, error) {
	if !a.dirMade {
		if err := os.MkdirAll(a.stateDir, 0o700); err != nil {
			return nil, err
		}
		a.dirMade = true
	}
	unlock, err := filelock.Lock(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(a.stateDir, 0o700); err != nil {
			return nil, err
		}
		unlock, err = filelock.Lock(path)
	}
	return unlock, err
}

// seqRecordLen is the size of a sequence file: the number in 20 decimal
// digits (enough for any uint64), zero-padded, and a newline.
const seqRecordLen = 21

// updateSeq reads the number in the sequence file at path (0 when the file
// is new or empty), passes it to next, and writes next's result back as one
// fixed-size record at offset 0 of the same file. It returns next's result,
// also when the file could not be read or written (then with the error;
// a corrupt file counts as 0 and is rewritten).
//
// The caller holds the pane's file lock, and every reader and writer of the
// file holds it, so no one ever sees a half-written record. The record is
// written in place rather than as a new file renamed over the old one: a
// file creation and a rename cost a few hundred microseconds of file-system
// journalling on some disks (more than the 15% of a delivery the adapter may
// add), a write into the page cache a few. A process killed during the write
// cannot tear a 21-byte write within one page. There is no fsync: Herdr
// keeps its own mark in memory, so a machine crash that loses the file also
// lost Herdr's mark.
func updateSeq(path string, next func(disk uint64) uint64) (uint64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return next(0), err
	}
	var buf [seqRecordLen + 1]byte // one byte more, to see an over-long file
	n, rerr := io.ReadFull(f, buf[:])
	if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
		rerr = nil
	}
	var disk uint64
	if rerr == nil && n > 0 {
		disk, rerr = parseSeq(buf[:n], filepath.Base(path))
	}
	seq := next(disk)
	_, werr := f.WriteAt(seqRecord(seq), 0)
	if werr == nil && n > seqRecordLen {
		werr = f.Truncate(seqRecordLen)
	}
	return seq, errors.Join(rerr, werr, f.Close())
}

// parseSeq parses a sequence record: decimal digits, possibly zero-padded,
// and a newline. Older files hold the number without padding; they parse
// the same.
func parseSeq(b []byte, name string) (uint64, error) {
	if len(b) > seqRecordLen {
		return 0, fmt.Errorf("sequence file %s is corrupt; rewriting it", name)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("sequence file %s is corrupt; rewriting it", name)
	}
	return n, nil
}

// seqRecord returns the fixed-size record of seq.
func seqRecord(seq uint64) []byte {
	var b [seqRecordLen]byte
	for i := range b {
		b[i] = '0'
	}
	b[seqRecordLen-1] = '\n'
	d := strconv.AppendUint(nil, seq, 10)
	copy(b[seqRecordLen-1-len(d):], d)
	return b[:]
}
