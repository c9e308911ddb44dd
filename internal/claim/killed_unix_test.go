//go:build unix

package claim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/filelock"
)

// takerEnv tells a child of the test binary to be a taking process (see
// TakerChild): the pane file's path, the step to be killed at, and the
// steps at which the holder writes its number and looks for the mark
// (empty: it does not), separated by newlines.
const takerEnv = "CLAIM_TEST_TAKER"

// TakerChild is, in a child of the test binary started by killedTaker
// (takerEnv set), a process that takes the pane file over and is killed
// (SIGKILL) after a step of its take-over; it does not return there.
// Elsewhere it returns at once. TestMain calls it first.
func TakerChild() {
	spec, ok := os.LookupEnv(takerEnv)
	if !ok {
		return
	}
	parts := strings.Split(spec, "\n")
	path, killAt, h := parts[0], parts[1], holder{writeAt: parts[2], lookAt: parts[3]}
	old, err := openNoFollow(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var seq uint64
	takeOverStep = func(s string) {
		if s == h.writeAt {
			seq = holderWrite(old)
		}
		if s == h.lookAt && seq != 0 && !takenOver(old) {
			fmt.Printf("sent %d\n", seq)
		}
		if s == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	_, err = takeOver(path, old)
	fmt.Fprintf(os.Stderr, "take-over not killed at %q: %v\n", killAt, err)
	os.Exit(3)
}

// holder is when the process that holds the pane file's lock (slow, not
// stopped) does what Begin does under it, in the steps of a take-over
// (see takeOverStep): writes its next number (writeAt), then looks for
// the mark and sends the number unless it finds it (lookAt, the same step
// or a later one). Empty steps: it does nothing.
type holder struct{ writeAt, lookAt string }

// holderWrite writes the next number into the pane file f, as the process
// that holds its lock does, and returns it.
func holderWrite(f *os.File) uint64 {
	var b [recordLen + 1]byte
	n, _ := readRecordBytes(f, b[:])
	rec, err := parseRecord(recordPart(b[:n]))
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		os.Exit(2)
	}
	rec.seq++
	var out [recordLen]byte
	rec.marshal(&out)
	if _, err := f.WriteAt(out[:], 0); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		os.Exit(2)
	}
	return rec.seq
}

// killedTaker runs a take-over of the pane file at path in a child
// process, killed after step killAt, while the process that holds the
// file's lock does what h says; it returns the numbers that process sent
// (it printed "sent N").
func killedTaker(t *testing.T, path, killAt string, h holder) (sent []uint64) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), takerEnv+"="+path+"\n"+killAt+"\n"+h.writeAt+"\n"+h.lookAt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("taker: %v, want killed at %q; stderr:\n%s", err, killAt, stderr.Bytes())
	}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var n uint64
		if _, err := fmt.Sscanf(sc.Text(), "sent %d", &n); err != nil {
			t.Fatalf("taker's output %q: %v", sc.Text(), err)
		}
		sent = append(sent, n)
	}
	return sent
}

// TestTakerKilledMidwayLosesNoNumber: a process killed (SIGKILL) in the
// middle of taking the pane file over loses no number, whatever the
// process holding the old file's lock (slow, not stopped) did meanwhile:
// a number it wrote and sent before the taker's mark, one it wrote before
// the mark and looked for the mark after (it sends nothing), one it wrote
// after. A later call numbers above the file's mark and every number the
// holder sent. The mark is an hour ahead of the clock, so that the
// numbers come from the file.
func TestTakerKilledMidwayLosesNoNumber(t *testing.T) {
	tests := []struct {
		name     string
		h        holder
		wantSent bool
	}{
		{name: "holder sent before the mark", h: holder{"linked", "linked"}, wantSent: true},
		{name: "holder wrote before the mark, looked after it", h: holder{"linked", "marked"}},
		{name: "holder wrote before the mark, looked after the copy", h: holder{"linked", "copied"}},
		{name: "holder wrote after the mark", h: holder{"marked", "marked"}},
		{name: "holder wrote after the copy", h: holder{"copied", "copied"}},
	}
	steps := []string{"linked", "marked", "copied", "renamed"}
	for _, tt := range tests {
		for _, killAt := range steps[slices.Index(steps, tt.h.lookAt):] {
			t.Run(tt.name+"/killed after it "+killAt, func(t *testing.T) {
				k, dir := newKey(t), stateDir(t)
				mark := uint64(time.Now().Add(time.Hour).UnixMilli())
				path := plant(t, dir, k, mark, false, time.Time{})
				slow := holdLock(t, path)
				sent := killedTaker(t, path, killAt, tt.h)
				filelock.UnlockFile(slow) // the holder ends its call
				if got := len(sent) > 0; got != tt.wantSent {
					t.Errorf("holder sent %v, want a number sent %v", sent, tt.wantSent)
				}

				c := New(k, Options{Dir: dir})
				defer c.Close()
				call := beginWaiting(t, c, Report)
				seq, _, err := call.Seq()
				call.End(call.Send)
				if err != nil || !call.Send {
					t.Fatalf("call after the killed take-over: Send %v, %v", call.Send, err)
				}
				for _, s := range append(sent, mark) {
					if seq <= s {
						t.Errorf("seq %d, not above %d (the holder sent %v; the file's mark was %d)", seq, s, sent, mark)
					}
				}
			})
		}
	}
}

// TestTakerKilledMidwayCostsNoCall: a process killed (SIGKILL) in the
// middle of taking the pane file over costs no call of a process that has
// the old file open a stale_owner, once the stopped process lets the old
// file's lock go. After the taker's rename, that process finds the old
// file marked and replaced and makes its call on the fresh one; before
// it, it finds the old file marked but still the pane file, waits for the
// taker's names to be a second old (a running taker renames within
// microseconds), removes them and the mark, and makes its call there.
func TestTakerKilledMidwayCostsNoCall(t *testing.T) {
	for _, killAt := range []string{"marked", "copied", "renamed"} {
		t.Run("killed after it "+killAt, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			other := New(k, Options{Dir: dir + "/."}) // a process with the old file open
			defer other.Close()
			do(t, other, Report)
			path := filepath.Join(dir, FileName(k))
			stopped := holdLock(t, path)
			killedTaker(t, path, killAt, holder{})
			filelock.UnlockFile(stopped) // the stopped process resumes

			call := beginWaiting(t, other, Report)
			seq, _, err := call.Seq()
			call.End(call.Send)
			if err != nil || !call.Send {
				t.Fatalf("the other's call after the killed take-over: Send %v (by %q), %v; want it made", call.Send, call.By, err)
			}
			if got := readRecord(t, path); got.seq != seq {
				t.Errorf("pane file mark %d, want the call's %d: it wrote elsewhere", got.seq, seq)
			}
			if killAt == "renamed" {
				return // its name of the old file stays until the next take-over
			}
			want := []string{callFileName(k), FileName(k)}
			if diff := cmp.Diff(dirNames(t, dir), want); diff != "" {
				t.Errorf("state directory after the call (-got +want):\n%s", diff)
			}
		})
	}
}

// TestWatchReadsAMarkedPaneFile: a look of the OnFree watch at a pane file
// marked by a take-over that has not renamed (under way, or its taker
// killed) still reads the record there: here, another process holding
// the pane. It opened the path again, found the same marked file, and
// learned nothing, at each look until a call cleared the mark.
func TestWatchReadsAMarkedPaneFile(t *testing.T) {
	k, dir := newKey(t), stateDir(t)
	c := New(k, Options{Dir: dir}) // no watch of its own, looking at once
	defer c.Close()
	do(t, c, Report)
	path := plant(t, dir, k, 1000, false, time.Time{})
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte{tombstone}, int64(recordLen)); err != nil {
		t.Fatal(err)
	}
	c.l.mu.Lock()
	pf := c.l.file
	c.l.mu.Unlock()
	by, _, known := c.heldBy(pf)
	if !known || by != byOtherProcess {
		t.Errorf("heldBy on a marked pane file = %q, known %v; want %q, known", by, known, byOtherProcess)
	}
}
