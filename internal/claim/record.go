package claim

import (
	"errors"
	"fmt"
)

// record is the content of a pane file: the newest sequence number any
// process took for the pane, the claim that holds the pane, and the call in
// flight (the claim making it, the wall-clock deadline, in Unix
// milliseconds, by which that call ends, and whether it holds the pane's
// call lock, see [Call.End]).
type record struct {
	seq    uint64
	holder token
	busy   token
	until  uint64
	locked bool // busy holds the call lock: once the lock is free, its call has ended
}

// The record is one line of fixed-width fields, so that it is read and
// written with one call each at offset 0 and never needs truncating:
//
//	c2 <seq:20> <holder process:16 hex> <pid:10> <gen:20> <busy process:16 hex> <pid:10> <gen:20> <until:20> <locked:1>\n
//
// A "c1" line, written by an earlier version, is the same without the
// last field: its busy call holds no call lock.
const (
	recordMagic   = "c2"
	recordMagicV1 = "c1"
	recordLenV1   = len(recordMagicV1) + 8*1 + 20 + 16 + 10 + 20 + 16 + 10 + 20 + 20 + 1
	recordLen     = recordLenV1 + 2
)

// tombstone is the byte that a process taking a pane file over (see
// takeOver) writes into the old file just past the record, once the fresh
// file is in place: a process that reads the old file (with room for one
// byte past the record) learns that the path names another file.
const tombstone = 'x'

// replacedRecord reports whether b, read from the start of a pane file with
// room for one byte past the record, ends with the tombstone.
func replacedRecord(b []byte) bool { return len(b) == recordLen+1 && b[recordLen] == tombstone }

// recordPart returns the record of b, read as replacedRecord's: without
// the tombstone, and without the gap before it after an earlier version's
// shorter record.
func recordPart(b []byte) []byte {
	if !replacedRecord(b) {
		return b[:min(len(b), recordLen)]
	}
	n := recordLen
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return b[:n]
}

// field is one fixed-width field of the record.
type field struct {
	width int
	base  uint64
}

var fields = [...]field{{20, 10}, {16, 16}, {10, 10}, {20, 10}, {16, 16}, {10, 10}, {20, 10}, {20, 10}, {1, 2}}

// values returns the record's fields in layout order.
func (r *record) values() [len(fields)]uint64 {
	var locked uint64
	if r.locked {
		locked = 1
	}
	return [...]uint64{r.seq, r.holder.Process, uint64(r.holder.PID), r.holder.Gen,
		r.busy.Process, uint64(r.busy.PID), r.busy.Gen, r.until, locked}
}

// marshal writes the record into b, which has room for recordLen bytes.
func (r *record) marshal(b *[recordLen]byte) {
	copy(b[:], recordMagic)
	i := len(recordMagic)
	for n, v := range r.values() {
		b[i] = ' '
		i++
		w, base := fields[n].width, fields[n].base
		for j := i + w - 1; j >= i; j-- {
			b[j] = "0123456789abcdef"[v%base]
			v /= base
		}
		i += w
	}
	b[recordLen-1] = '\n'
}

// errCorrupt is the error of a record that does not parse.
var errCorrupt = errors.New("not a pane record")

// parseRecord parses b. An empty b is a free pane with no mark.
func parseRecord(b []byte) (record, error) {
	if len(b) == 0 {
		return record{}, nil
	}
	n := len(fields)
	switch {
	case len(b) == recordLen && string(b[:len(recordMagic)]) == recordMagic:
	case len(b) == recordLenV1 && string(b[:len(recordMagicV1)]) == recordMagicV1:
		n-- // no locked field
	default:
		return record{}, errCorrupt
	}
	if b[len(b)-1] != '\n' {
		return record{}, errCorrupt
	}
	var v [len(fields)]uint64
	i := len(recordMagic)
	for n, f := range fields[:n] {
		if b[i] != ' ' {
			return record{}, errCorrupt
		}
		i++
		for _, c := range b[i : i+f.width] {
			d := digit(c)
			if d >= f.base || v[n] > (^uint64(0)-d)/f.base {
				return record{}, errCorrupt
			}
			v[n] = v[n]*f.base + d
		}
		i += f.width
	}
	const maxPID = 1<<31 - 1
	if v[2] > maxPID || v[5] > maxPID {
		return record{}, errCorrupt
	}
	r := record{
		seq:    v[0],
		holder: token{Process: v[1], PID: int(v[2]), Gen: v[3]},
		busy:   token{Process: v[4], PID: int(v[5]), Gen: v[6]},
		until:  v[7],
		locked: v[8] == 1,
	}
	if (r.holder.Process == 0) != r.holder.IsZero() || (r.busy.Process == 0) != r.busy.IsZero() {
		return record{}, errCorrupt
	}
	return r, nil
}

// digit returns c's value as a hex digit, or 255.
func digit(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10
	}
	return 255
}

// String renders the record for test failures.
func (r record) String() string {
	return fmt.Sprintf("seq %d holder %v busy %v until %d locked %v", r.seq, r.holder, r.busy, r.until, r.locked)
}
