package claim

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCall is one report's claim step with a pane file: Begin with a
// number, the number, End. What it costs per call is the pane file's short
// critical section (lock, look for a take-over, read, take the call lock,
// write, look again, unlock) and the call lock's release at End; the files
// stay open across calls.
func BenchmarkCall(b *testing.B) {
	k := Key{Kind: "bench", Server: "/srv", Pane: b.Name()}
	c := New(k, Options{Dir: b.TempDir() + "/state"})
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		now := time.Now()
		call, err := c.Begin(ctx, ctx, BeginOptions{Op: Report, Wait: now.Add(time.Second),
			Budget: time.Second, Seq: true, ClockMs: uint64(now.UnixMilli())})
		if err != nil {
			b.Fatal(err)
		}
		if call.FileErr != nil || !call.Send {
			b.Fatalf("Send %v, FileErr %v", call.Send, call.FileErr)
		}
		if _, _, err := call.Seq(); err != nil {
			b.Fatal(err)
		}
		call.End(true)
	}
}
