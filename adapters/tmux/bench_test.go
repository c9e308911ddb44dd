package tmux

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
)

// BenchmarkReport is the cost of one report: one tmux client process that
// sets the three pane options on a real server. It also times a bare
// exec.Command(tmux, sameArgs).Run(), interleaved, and reports the ratio
// (adapter time over bare time).
func BenchmarkReport(b *testing.B) {
	s := startServer(b, nil)
	pane := s.panes(b)[0]
	a := openT(b, params(s.paneEnv(pane), "", nil))
	ctx := context.Background()
	reports := []adapter.Report{working, blocked}
	b.ReportAllocs()
	var adapterTime, bareTime time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := a.Report(ctx, reports[i%2]); err != nil {
			b.Fatal(err)
		}
		adapterTime += time.Since(start)

		start = time.Now()
		cmd := exec.Command(a.runner.Path, a.argv(&reports[(i+1)%2])...)
		cmd.Env = a.runner.Env
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

// BenchmarkOpenOutsideTmux is the cost of Open in a process that is not in
// a tmux pane: the common case for every host.
func BenchmarkOpenOutsideTmux(b *testing.B) {
	ctx := context.Background()
	p := adapter.Params{Name: "tmux", App: "bench", Env: adapter.Env{"HOME=/home/u", "PATH=/usr/bin", "TERM=xterm"}, Host: interactive}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Driver{}).Open(ctx, p); err == nil {
			b.Fatal("Open succeeded outside tmux")
		}
	}
}
