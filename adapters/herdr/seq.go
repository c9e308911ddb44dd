package herdr

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/panestate/panestate/internal/filelock"
)

// Sequence numbers and the pane record.
//
// Herdr silently ignores a report whose seq is not above the last one it
// accepted from the same source in the same pane (CONTRACT §3.3). Every
// call therefore takes max(clock ms, process high-water + 1, on-disk
// high-water + 1), and the call runs while the pane's file lock is held, so
// that across every process in the pane the numbers rise in the order Herdr
// receives the calls. The same file names the claim that holds the pane,
// which is how a newer process fences an older one.

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

// next returns max(clockMs, mark+1, floor+1) for k and records it. The
// additions saturate: a mark or floor at the top of the uint64 range (a
// corrupt or hostile file, or 2^64-1 calls) gives 2^64-1 again, and
// saturated reports that. A number never wraps to a small value, which
// Herdr would ignore just the same while seeming to work.
func (h *highWaterTable) next(k paneKey, clockMs, floor uint64) (seq uint64, saturated bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	mark := h.m[k]
	if mark == math.MaxUint64 || floor == math.MaxUint64 {
		return math.MaxUint64, true
	}
	seq = max(clockMs, mark+1, floor+1)
	h.m[k] = seq
	return seq, seq == math.MaxUint64
}

// reset forgets every mark, as a fresh process would. Tests only.
func (h *highWaterTable) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.m)
}

// clockMs returns t in milliseconds since the Unix epoch, 0 before it.
func clockMs(t time.Time) uint64 {
	if ms := t.UnixMilli(); ms > 0 {
		return uint64(ms)
	}
	return 0
}

// claimToken names one claim of a pane across processes: the claiming
// process (a random number drawn once per process, plus its pid, so that a
// reused pid is not mistaken for the same process) and the adapter's
// generation within it. The zero token means the pane is free.
type claimToken struct {
	process uint64
	pid     int
	gen     uint64
}

func (c claimToken) free() bool { return c == claimToken{} }

// processID is drawn once, on first use: a process that never reports to
// Herdr draws nothing.
var processID = sync.OnceValue(func() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano()) | 1
	}
	return binary.LittleEndian.Uint64(b[:]) | 1 // never 0
})

// paneRecord is the content of a pane's file: the newest sequence number
// any process sent (or is about to send) in the pane, and the claim that
// holds it.
type paneRecord struct {
	seq    uint64
	holder claimToken
}

// seqRecordLen is the size of the record's first line: the number in 20
// decimal digits (enough for any uint64), zero-padded, and a newline. Files
// written before claims were recorded hold only this line (or the number
// unpadded); they read as a free pane.
const seqRecordLen = 21

// maxRecordLen bounds what is read of a pane file.
const maxRecordLen = 128

// marshal returns the record's bytes.
func (r paneRecord) marshal() []byte {
	b := make([]byte, 0, maxRecordLen)
	b = append(b, seqLine(r.seq)...)
	if !r.holder.free() {
		b = fmt.Appendf(b, "holder %016x %d %d\n", r.holder.process, r.holder.pid, r.holder.gen)
	}
	return b
}

// seqLine returns the fixed-size first line of seq.
func seqLine(seq uint64) []byte {
	var b [seqRecordLen]byte
	for i := range b {
		b[i] = '0'
	}
	b[seqRecordLen-1] = '\n'
	d := strconv.AppendUint(nil, seq, 10)
	copy(b[seqRecordLen-1-len(d):], d)
	return b[:]
}

// parseRecord parses a pane file. A corrupt file is an error; the caller
// then treats it as empty and rewrites it.
func parseRecord(b []byte, name string) (paneRecord, error) {
	corrupt := fmt.Errorf("sequence file %s is corrupt; rewriting it", name)
	if len(b) > maxRecordLen-1 {
		return paneRecord{}, corrupt
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return paneRecord{}, nil
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	var r paneRecord
	n, err := strconv.ParseUint(strings.TrimSpace(first), 10, 64)
	if err != nil || len(first) > seqRecordLen-1 {
		return paneRecord{}, corrupt
	}
	r.seq = n
	if rest = strings.TrimSpace(rest); rest == "" {
		return r, nil
	}
	f := strings.Fields(rest)
	if len(f) != 4 || f[0] != "holder" {
		return paneRecord{}, corrupt
	}
	proc, err1 := strconv.ParseUint(f[1], 16, 64)
	pid, err2 := strconv.Atoi(f[2])
	gen, err3 := strconv.ParseUint(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || proc == 0 {
		return paneRecord{}, corrupt
	}
	r.holder = claimToken{process: proc, pid: pid, gen: gen}
	return r, nil
}

// errNoStateDir is the persist error when no state directory is known.
var errNoStateDir = errors.New("no state directory (set HOME, XDG_STATE_HOME or LOCALAPPDATA)")

// seqFileBase returns the base name of k's files: a hash, so that pane ids
// and socket paths (which hold separators and arbitrary text) never become
// path components.
func seqFileBase(k paneKey) string {
	sum := sha256.Sum256([]byte(k.socket + "\x00" + k.pane))
	return hex.EncodeToString(sum[:16])
}

// paneFile is a pane's record, read under the pane's cross-process lock,
// which is held until close: for the whole of a call, so that no other
// process's call on the pane can overtake it.
type paneFile struct {
	f      *os.File
	unlock func() error
	rec    paneRecord
	err    error // the first read or write error, reported once by the caller
}

// lockPaneFile takes k's lock under dir (creating dir when mkdir is set or
// the lock file's directory is missing), bounded by ctx, and reads the
// record. A read error leaves a usable (empty) record and is kept in err.
func lockPaneFile(ctx context.Context, dir string, k paneKey, mkdir bool) (*paneFile, error) {
	if dir == "" {
		return nil, errNoStateDir
	}
	base := filepath.Join(dir, seqFileBase(k))
	if mkdir {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	unlock, err := filelock.LockContext(ctx, base+".lock")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		unlock, err = filelock.LockContext(ctx, base+".lock")
	}
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(base+".seq", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errors.Join(err, unlock())
	}
	p := &paneFile{f: f, unlock: unlock}
	var buf [maxRecordLen]byte
	n, rerr := io.ReadFull(f, buf[:])
	if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
		rerr = nil
	}
	if rerr == nil && n > 0 {
		p.rec, rerr = parseRecord(buf[:n], filepath.Base(base+".seq"))
	}
	p.err = rerr
	return p, nil
}

// write stores rec in place, as one write at offset 0 (then trimming the
// file to it). Every reader and writer holds the pane's lock, so no one
// sees a half-written record; a process killed during the write cannot tear
// a write of under 100 bytes within one page. The record is written in
// place rather than as a new file renamed over the old one: a creation and
// a rename cost a few hundred microseconds of journalling on some disks, a
// write into the page cache a few. There is no fsync: Herdr keeps its own
// mark in memory, so a machine crash that loses the file also lost Herdr's
// mark.
func (p *paneFile) write() error {
	b := p.rec.marshal()
	_, err := p.f.WriteAt(b, 0)
	if err == nil {
		err = p.f.Truncate(int64(len(b)))
	}
	if err != nil && p.err == nil {
		p.err = err
	}
	return err
}

// close releases the lock. It is safe on a nil paneFile.
func (p *paneFile) close() error {
	if p == nil {
		return nil
	}
	return errors.Join(p.f.Close(), p.unlock())
}
