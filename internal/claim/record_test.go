package claim

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		rec  record
	}{
		{name: "free", rec: record{seq: 1_800_000_000_042}},
		{name: "held and busy", rec: record{seq: 7, holder: token{Process: 0xabc, PID: 42, Gen: 7},
			busy: token{Process: 0xabc, PID: 42, Gen: 7}, until: 1_800_000_005_000}},
		{name: "busy with the call lock", rec: record{seq: 8, holder: token{Process: 0xabc, PID: 42, Gen: 7},
			busy: token{Process: 0xabc, PID: 42, Gen: 7}, until: 1_800_000_005_000, locked: true}},
		{name: "largest values", rec: record{seq: math.MaxUint64, holder: token{Process: math.MaxUint64, PID: math.MaxInt32, Gen: math.MaxUint64},
			busy: token{Process: 1, PID: 1, Gen: 1}, until: math.MaxUint64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b [recordLen]byte
			tt.rec.marshal(&b)
			got, err := parseRecord(b[:])
			if err != nil {
				t.Fatalf("parseRecord(%q): %v", b, err)
			}
			if diff := cmp.Diff(got, tt.rec, cmp.AllowUnexported(record{})); diff != "" {
				t.Errorf("round trip (-got +want):\n%s", diff)
			}
		})
	}
}

func TestParseRecordRefusesCorrupt(t *testing.T) {
	var good [recordLen]byte
	(&record{seq: 5, holder: token{Process: 9, PID: 3, Gen: 2}}).marshal(&good)
	tests := []struct {
		name    string
		content string
	}{
		{name: "a number only (an older file)", content: "00000001800000000042\n"},
		{name: "truncated", content: string(good[:recordLen-5])},
		{name: "wrong magic", content: "c9" + string(good[2:])},
		{name: "not a digit", content: strings.Replace(string(good[:]), "0", "x", 1)},
		{name: "decimal overflow", content: "c2 99999999999999999999" + string(good[23:])},
		{name: "holder pid without a process", content: "c2 00000000000000000005 0000000000000000" + string(good[40:])},
		{name: "locked neither 0 nor 1", content: string(good[:recordLen-2]) + "2\n"},
		{name: "an earlier version's magic at this length", content: "c1" + string(good[2:])},
		{name: "this version's magic at the earlier length", content: string(good[:recordLenV1-1]) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := parseRecord([]byte(tt.content)); err == nil {
				t.Errorf("parseRecord(%q) = %v, want an error", tt.content, got)
			}
		})
	}
	// An earlier version's line, without the locked field, parses: its
	// busy call holds no call lock.
	v1 := "c1 00000000000000000005 0000000000000009 0000000003 00000000000000000002 0000000000000009 0000000003 00000000000000000002 00000000000000000077\n"
	want := record{seq: 5, holder: token{Process: 9, PID: 3, Gen: 2}, busy: token{Process: 9, PID: 3, Gen: 2}, until: 77}
	if got, err := parseRecord([]byte(v1)); err != nil || got != want {
		t.Errorf("parseRecord of an earlier version's line = %v, %v; want %v", got, err, want)
	}
	if got, err := parseRecord(nil); err != nil || got != (record{}) {
		t.Errorf("parseRecord of an empty file = %v, %v; want a free pane", got, err)
	}
}
