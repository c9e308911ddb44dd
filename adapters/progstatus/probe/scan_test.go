package probe

import "testing"

// TestScanner feeds the answers in every way a terminal (or the person's
// keys) can deliver them.
func TestScanner(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		done   bool
		want   Answer
	}{
		{"query then DA1", []string{"\x1b]7501;?\x1b\\\x1b[?62;22c"}, true, Supported},
		{"query with BEL then DA1", []string{"\x1b]7501;?\x07\x1b[?1;2c"}, true, Supported},
		{"in pieces", []string{"\x1b]75", "01;?\x1b", "\\\x1b[?6", "2;4c"}, true, Supported},
		{"DA1 only", []string{"\x1b[?62;22c"}, true, Unsupported},
		{"DA1 before the query's answer", []string{"\x1b[?62c\x1b]7501;?\x1b\\"}, true, Unsupported},
		{"keys typed before", []string{"hello\x1b[?1;0c"}, true, Unsupported},
		{"query only, DA1 still to come", []string{"\x1b]7501;?\x1b\\"}, false, Supported},
		{"nothing", nil, false, NoAnswer},
		{"a CSI that is not DA1", []string{"\x1b[?25h"}, false, NoAnswer},
		{"an empty DA1", []string{"\x1b[?c"}, false, NoAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scanner
			done := false
			for _, p := range tt.pieces {
				done = s.feed([]byte(p))
			}
			if done != tt.done || s.answer() != tt.want {
				t.Errorf("done %v, answer %v; want %v, %v", done, s.answer(), tt.done, tt.want)
			}
		})
	}
}
