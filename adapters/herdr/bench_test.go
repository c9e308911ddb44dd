package herdr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/claim"
	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// fakeBuild is the standalone fake herdr CLI (herdrtest/cmd/fakeherdr),
// built once per benchmark process: a small program, as Herdr's CLI is,
// rather than this package's big test binary re-executed.
var fakeBuild struct {
	once sync.Once
	dir  string
	err  error
}

// useStandaloneFake replaces h's fake binary (a link to the test binary) by
// the standalone fake.
func useStandaloneFake(b *testing.B, h *herdrtest.Herdr) {
	b.Helper()
	fakeBuild.once.Do(func() {
		fakeBuild.dir, fakeBuild.err = os.MkdirTemp("", "fakeherdr-")
		if fakeBuild.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(fakeBuild.dir, "herdr"), "./herdrtest/cmd/fakeherdr").CombinedOutput()
		if err != nil {
			fakeBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if fakeBuild.err != nil {
		b.Fatal(fakeBuild.err)
	}
	if err := os.Remove(h.Bin); err != nil {
		b.Fatal(err)
	}
	if err := copyFile(filepath.Join(fakeBuild.dir, "herdr"), h.Bin, 0o755); err != nil {
		b.Fatal(err)
	}
}

func copyFile(from, to string, mode os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, mode)
}

// BenchmarkDelivery compares one Report through the adapter's CLI
// transport with a bare exec.Command(bin, args).Run() of the same
// standalone fake CLI, interleaved in one loop so that both see the same
// machine load. The "ratio" metric is adapter time over bare time; the
// target is ≤ 1.15.
func BenchmarkDelivery(b *testing.B) {
	f := newFixtureOn(b, "cli", herdrtest.Options{})
	useStandaloneFake(b, f.h)
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

// BenchmarkTransport is one report delivered to the emulated Herdr's
// server by each transport, in one run: "cli" spawns the standalone fake
// CLI (which pings and then sends the request, as Herdr's does), "socket"
// writes the request on a fresh connection. The target is a socket at least
// 20 times cheaper (compare the two ns/op figures of one run).
func BenchmarkTransport(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr, func(b *testing.B) {
			f := newFixtureOn(b, tr, herdrtest.Options{})
			useStandaloneFake(b, f.h)
			a := f.open(b)
			ctx := context.Background()
			if err := a.Report(ctx, idle); err != nil { // the claim (and its ping)
				b.Fatal(err)
			}
			reports := []adapter.Report{working, idle}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := a.Report(ctx, reports[i%2]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReleaseHung is what the Herdr adapter adds to a host's quit when
// Herdr hangs: the in-flight report, stuck in a CLI that ignores SIGTERM,
// is cancelled (as the registry does at Detach), then the release runs into
// its own budget (min(timeout, 1.5 s)) with the default 5 s timeout.
func BenchmarkReleaseHung(b *testing.B) {
	f := newFixtureOn(b, "cli", herdrtest.Options{})
	useStandaloneFake(b, f.h)
	for b.Loop() {
		a := f.open(b)
		if err := a.Report(context.Background(), idle); err != nil {
			b.Fatal(err)
		}
		if err := f.h.SetFault(herdrtest.Fault{Hang: true, HangIgnoreTERM: true}); err != nil {
			b.Fatal(err)
		}
		hung := countHung(b, f)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Report(ctx, working) }()
		eventually(b, "the fake to hang", func() bool { return countHung(b, f) > hung })
		cancel()
		<-done
		var ce *CallError
		if err := a.Release(context.Background()); !errors.As(err, &ce) || ce.Kind != adapter.KindTimeout {
			b.Fatalf("Release = %v, want its timeout", err)
		}
		if err := f.h.SetFault(herdrtest.Fault{}); err != nil {
			b.Fatal(err)
		}
		a.Close(context.Background())
	}
}

func countHung(b *testing.B, f *fixture) int {
	n := 0
	for _, c := range f.allCalls(b) {
		if c.Hung {
			n++
		}
	}
	return n
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

// BenchmarkNextSeq is the claim step of one delivery alone: wait for the
// pane (this process's slot, the pane file's lock for a moment), read the
// record, pick the number, write the record in place (one write at offset
// 0, no new file, no rename, no fsync), and at End clear the call's mark.
func BenchmarkNextSeq(b *testing.B) {
	f := newFixture(b, herdrtest.Options{})
	a := f.open(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		call, err := a.claim.Begin(ctx, a.done, claim.BeginOptions{Op: claim.Report, Wait: time.Now().Add(time.Second),
			Budget: time.Second, Seq: true, ClockMs: clockMs(time.Now())})
		if err != nil {
			b.Fatal(err)
		}
		if call.FileErr != nil {
			b.Fatal(call.FileErr)
		}
		a.takeSeq(call)
		call.End(true)
	}
}
