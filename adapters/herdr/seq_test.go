package herdr

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRecord(t *testing.T) {
	holder := claimToken{process: 0xabc, pid: 42, gen: 7}
	tests := []struct {
		name    string
		content string
		want    paneRecord
		wantErr bool
	}{
		{name: "empty", content: "", want: paneRecord{}},
		{name: "fixed-size number, free", content: "00000001800000000042\n", want: paneRecord{seq: 1_800_000_000_042}},
		{name: "older unpadded number", content: "1800000060000\n", want: paneRecord{seq: 1_800_000_060_000}},
		{name: "largest number", content: "18446744073709551615\n", want: paneRecord{seq: math.MaxUint64}},
		{name: "with holder", content: "00000001800000000042\nholder 0000000000000abc 42 7\n", want: paneRecord{seq: 1_800_000_000_042, holder: holder}},
		{name: "corrupt number", content: "12ab\n", wantErr: true},
		{name: "over-long number", content: strings.Repeat("1", 40) + "\n", wantErr: true},
		{name: "over-long file", content: "1\n" + strings.Repeat("x", maxRecordLen), wantErr: true},
		{name: "bad holder line", content: "1\nowner x\n", wantErr: true},
		{name: "holder of process 0", content: "1\nholder 0 42 7\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRecord([]byte(tt.content), "p.seq")
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "is corrupt; rewriting it") {
					t.Errorf("parseRecord = %+v, %v; want a corrupt-file error", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("parseRecord = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []paneRecord{
		{},
		{seq: 1},
		{seq: 1_800_000_000_000, holder: claimToken{process: math.MaxUint64, pid: 1 << 30, gen: math.MaxUint64}},
		{seq: math.MaxUint64, holder: claimToken{process: 1, pid: 1, gen: 1}},
	} {
		b := r.marshal()
		if len(b) >= maxRecordLen {
			t.Errorf("record %+v is %d bytes, over %d", r, len(b), maxRecordLen-1)
		}
		got, err := parseRecord(b, "x")
		if err != nil || got != r {
			t.Errorf("parseRecord(marshal(%+v)) = %+v, %v", r, got, err)
		}
	}
}

func TestPaneFileRewritesInPlace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	k := paneKey{socket: "/s", pane: "w1:p1"}
	path := filepath.Join(dir, seqFileBase(k)+".seq")
	pf, err := lockPaneFile(t.Context(), dir, k, false) // the directory is made on demand
	if err != nil {
		t.Fatal(err)
	}
	pf.rec = paneRecord{seq: 5, holder: claimToken{process: 9, pid: 3, gen: 2}}
	if err := pf.write(); err != nil {
		t.Fatal(err)
	}
	pf.rec.holder = claimToken{} // a release: the shorter record replaces the longer
	if err := pf.write(); err != nil {
		t.Fatal(err)
	}
	if err := pf.close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(b), "00000000000000000005\n"); diff != "" {
		t.Errorf("file (-got +want):\n%s", diff)
	}

	// A corrupt file reads as empty, with the error kept for a diagnostic.
	if err := os.WriteFile(path, []byte("junk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pf, err = lockPaneFile(t.Context(), dir, k, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.close()
	if pf.rec != (paneRecord{}) || pf.err == nil {
		t.Errorf("corrupt file read as %+v, error %v", pf.rec, pf.err)
	}
}

func TestPaneFileNoStateDir(t *testing.T) {
	if _, err := lockPaneFile(t.Context(), "", paneKey{}, true); err != errNoStateDir {
		t.Errorf("lockPaneFile without a directory = %v, want errNoStateDir", err)
	}
}

func TestHighWaterSaturates(t *testing.T) {
	k := paneKey{socket: "/sat", pane: "w1:p1"}
	t.Cleanup(highWater.reset)
	tests := []struct {
		name          string
		floor         uint64
		want          uint64
		wantSaturated bool
	}{
		{name: "below the top", floor: math.MaxUint64 - 3, want: math.MaxUint64 - 2},
		{name: "one below the top reaches it", floor: math.MaxUint64 - 1, want: math.MaxUint64, wantSaturated: true},
		{name: "at the top stays there", floor: math.MaxUint64, want: math.MaxUint64, wantSaturated: true},
		{name: "the process mark at the top keeps it there", floor: 0, want: math.MaxUint64, wantSaturated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sat := highWater.next(k, 1_800_000_000_000, tt.floor)
			if got != tt.want || sat != tt.wantSaturated {
				t.Errorf("next = %d, %v; want %d, %v", got, sat, tt.want, tt.wantSaturated)
			}
		})
	}
}
