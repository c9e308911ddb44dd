package herdr

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// BenchmarkDelivery compares one Report through the adapter with a bare
// exec.Command(bin, args).Run() of the same fake CLI and arguments. The
// "ratio" metric is adapter time over bare time; the target is ≤ 1.15.
func BenchmarkDelivery(b *testing.B) {
	f := newFixture(b, herdrtest.Options{})
	a := f.open(b)
	ctx := context.Background()
	reports := []adapter.Report{working, idle}
	if err := a.Report(ctx, working); err != nil {
		b.Fatal(err)
	}
	// The bare command does the same work in the emulated server: a fresh
	// sequence number (of a source of its own) and a state change each time.
	bareArgs := func(state string) []string {
		return []string{"pane", "report-agent", f.h.Pane, "--source", "custom:bare", "--agent", "bare",
			"--state", state, "--seq", strconv.FormatInt(time.Now().UnixNano(), 10)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var adapterTime, bareTime time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := a.Report(ctx, reports[i%2]); err != nil {
			b.Fatal(err)
		}
		adapterTime += time.Since(start)

		start = time.Now()
		cmd := exec.Command(f.h.Bin, bareArgs(reports[i%2].State.String())...)
		cmd.Env = []string(f.env)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		bareTime += time.Since(start)
	}
	if bareTime > 0 {
		b.ReportMetric(float64(adapterTime)/float64(bareTime), "ratio")
		b.ReportMetric(float64(adapterTime.Microseconds())/float64(b.N), "adapter-µs/op")
		b.ReportMetric(float64(bareTime.Microseconds())/float64(b.N), "bare-µs/op")
	}
}

// BenchmarkOpenOutsideHerdr is the cost of Open in a process that is not
// in a Herdr pane: the common case for every host.
func BenchmarkOpenOutsideHerdr(b *testing.B) {
	ctx := context.Background()
	p := adapter.Params{Name: "herdr", App: "bench", Env: adapter.Env{"HOME=/home/u", "PATH=/usr/bin", "TERM=xterm"}, Host: interactive}
	var d Driver
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Open(ctx, p); err == nil {
			b.Fatal("active outside Herdr")
		}
	}
}

// BenchmarkOpenOutsideHerdrMarkerZero is Open with HERDR_ENV present but
// not "1", whose error names the value.
func BenchmarkOpenOutsideHerdrMarkerZero(b *testing.B) {
	ctx := context.Background()
	p := adapter.Params{Name: "herdr", App: "bench", Env: adapter.Env{"HOME=/home/u", "HERDR_ENV=0"}, Host: interactive}
	var d Driver
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Open(ctx, p); err == nil {
			b.Fatal("active outside Herdr")
		}
	}
}

// BenchmarkNextSeq is the sequence-number step of one delivery alone: take
// the pane's file lock, read the record, pick the number, write the record
// back in place (one write at offset 0, no new file, no rename, no fsync),
// unlock.
func BenchmarkNextSeq(b *testing.B) {
	f := newFixture(b, herdrtest.Options{})
	a := f.open(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		pf, err := lockPaneFile(ctx, a.stateDir, a.key, false)
		if err != nil {
			b.Fatal(err)
		}
		a.takeSeq(pf)
		if err := errors.Join(pf.err, pf.close()); err != nil {
			b.Fatal(err)
		}
	}
}
