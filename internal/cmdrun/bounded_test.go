package cmdrun

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestBoundedBufferReadFrom(t *testing.T) {
	tests := []struct {
		name  string
		input string
		limit int
		r     func(io.Reader) io.Reader
	}{
		{"empty", "", 10, func(r io.Reader) io.Reader { return r }},
		{"under the limit", "hello", 10, func(r io.Reader) io.Reader { return r }},
		{"at the limit", "0123456789", 10, func(r io.Reader) io.Reader { return r }},
		{"over the limit", strings.Repeat("abc", 10000), 1000, func(r io.Reader) io.Reader { return r }},
		{"one byte at a time", strings.Repeat("xy", 700), 1000, iotest.OneByteReader},
		{"half reads", strings.Repeat("z", 9000), 5000, iotest.HalfReader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &boundedBuffer{limit: tt.limit}
			n, err := b.ReadFrom(tt.r(strings.NewReader(tt.input)))
			if err != nil || n != int64(len(tt.input)) {
				t.Fatalf("ReadFrom = %d, %v; want %d, nil", n, err, len(tt.input))
			}
			want := tt.input[:min(len(tt.input), tt.limit)]
			if !bytes.Equal(b.buf, []byte(want)) || b.total != int64(len(tt.input)) {
				t.Errorf("kept %d bytes (total %d); want the first %d (total %d)", len(b.buf), b.total, len(want), len(tt.input))
			}
		})
	}
}

func TestBoundedBufferReadFromError(t *testing.T) {
	b := &boundedBuffer{limit: 10}
	_, err := b.ReadFrom(iotest.TimeoutReader(strings.NewReader("abcdef")))
	if err == nil {
		t.Fatal("ReadFrom hid the reader's error")
	}
}
