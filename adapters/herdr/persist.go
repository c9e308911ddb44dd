package herdr

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/panestate/panestate/internal/filelock"
)

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

// reserveMs is how far above the number it hands out a process reserves
// sequence numbers on disk: one minute of clock milliseconds.
const reserveMs = 60_000

// nextSeq returns the sequence number of the next call for a's pane:
// max(clock ms, process high-water + 1, on-disk reservation + 1).
//
// The pane's file holds a reservation: a number at or above every sequence
// number this process has handed out or will hand out before rewriting it.
// It is written before the call that uses the number, so the file is never
// behind what Herdr saw, and a restarted process, or a second process in the
// same pane, starts above it. Writing happens under a file lock, so two
// processes never reserve the same numbers. While the file still holds this
// process's reservation and the next number fits under it, nextSeq only
// reads the file (writes are atomic renames, so an unlocked read sees a
// whole number): a burst of reports costs one small read each instead of a
// locked rewrite.
//
// A persistence error is returned with a usable sequence number.
func (a *Adapter) nextSeq() (uint64, error) {
	now := clockMs(a.clock())
	if a.stateDir == "" {
		return highWater.next(a.key, now, 0), errNoStateDir
	}
	base := filepath.Join(a.stateDir, seqFileBase(a.key))
	if disk, err := readSeq(base + ".seq"); err == nil {
		if seq, ok := highWater.nextReserved(a.key, now, disk); ok {
			return seq, nil
		}
	}
	if err := os.MkdirAll(a.stateDir, 0o700); err != nil {
		return highWater.next(a.key, now, 0), err
	}
	unlock, err := filelock.Lock(base + ".lock")
	if err != nil {
		return highWater.next(a.key, now, 0), err
	}
	disk, rerr := readSeq(base + ".seq")
	seq := highWater.next(a.key, now, disk)
	reserved := seq + reserveMs
	if reserved < seq { // a corrupt or hostile file near 2^64
		reserved = math.MaxUint64
	}
	werr := writeSeq(base+".seq", reserved)
	if werr == nil {
		highWater.setReserved(a.key, reserved)
	}
	return seq, errors.Join(rerr, werr, unlock())
}

// readSeq reads a sequence file; a missing file is 0.
func readSeq(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("sequence file %s is corrupt; rewriting it", filepath.Base(path))
	}
	return n, nil
}

// writeSeq replaces path atomically with seq: write a temporary file in the
// same directory, then rename it over path. Readers see the old or the new
// number, never a torn one. There is no fsync: Herdr keeps its own mark in
// memory, so a machine crash that loses the file also lost Herdr's mark.
func writeSeq(path string, seq uint64) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := f.WriteString(strconv.FormatUint(seq, 10) + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
