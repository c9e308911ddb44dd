package herdr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUpdateSeq(t *testing.T) {
	tests := []struct {
		name     string
		content  *string // nil: no file
		wantDisk uint64  // what next is given
		wantErr  string  // a fragment, "" for none
	}{
		{name: "new file", wantDisk: 0},
		{name: "empty file", content: new(""), wantDisk: 0},
		{name: "fixed-size record", content: new("00000001800000000042\n"), wantDisk: 1_800_000_000_042},
		{name: "older unpadded record", content: new("1800000060000\n"), wantDisk: 1_800_000_060_000},
		{name: "largest number", content: new("18446744073709551615\n"), wantDisk: 1<<64 - 1},
		{name: "corrupt", content: new("12ab\n"), wantDisk: 0, wantErr: "is corrupt; rewriting it"},
		{name: "over-long", content: new(strings.Repeat("1", 40) + "\n"), wantDisk: 0, wantErr: "is corrupt; rewriting it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.seq")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var gotDisk uint64
			seq, err := updateSeq(path, func(disk uint64) uint64 {
				gotDisk = disk
				return 1_800_000_000_100
			})
			if gotDisk != tt.wantDisk {
				t.Errorf("next got %d, want %d", gotDisk, tt.wantDisk)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("updateSeq error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("updateSeq error %v, want %q", err, tt.wantErr)
			}
			if seq != 1_800_000_000_100 {
				t.Errorf("seq %d, want next's result", seq)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(b), "00000001800000000100\n"); diff != "" {
				t.Errorf("file (-got +want):\n%s", diff)
			}
		})
	}
}

func TestUpdateSeqUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	seq, err := updateSeq(filepath.Join(dir, "p.seq"), func(disk uint64) uint64 { return disk + 7 })
	if err == nil || seq != 7 {
		t.Errorf("updateSeq = %d, %v; want 7 and an error", seq, err)
	}
}

func TestSeqRecord(t *testing.T) {
	for _, n := range []uint64{0, 1, 1_800_000_000_000, 1<<64 - 1} {
		r := seqRecord(n)
		if len(r) != seqRecordLen || r[len(r)-1] != '\n' {
			t.Errorf("seqRecord(%d) = %q", n, r)
		}
		if got, err := parseSeq(r, "x"); err != nil || got != n {
			t.Errorf("parseSeq(seqRecord(%d)) = %d, %v", n, got, err)
		}
	}
}
