//go:build unix

package claim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/filelock"
)

// takerEnv tells a child of the test binary to be a taking process (see
// TakerChild): the pane file's path, the step to be killed at, and
// whether the holder writes, separated by newlines.
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
	path, killAt, holderWrites := parts[0], parts[1], parts[2] == "1"
	old, err := openNoFollow(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	takeOverStep = func(s string) {
		if s == "copied" && holderWrites {
			holderWrite(old)
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

// holderWrite is what the process that holds the lock of the pane file f
// does in the moment a taker copies its record: it writes its next
// number, looks for a take-over as Begin does, and sends the number
// (printed "sent N") when it finds none.
func holderWrite(f *os.File) {
	var b [recordLen + 1]byte
	n, _ := readRecordBytes(f, b[:])
	rec, err := parseRecord(b[:min(n, recordLen)])
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
	if !takenOver(f) {
		fmt.Printf("sent %d\n", rec.seq)
	}
}

// killedTaker runs a take-over of the pane file at path in a child
// process, killed after step killAt. With holderWrites, the process that
// holds the file's lock (slow, not stopped) writes its next number once
// the taker has copied the record, and sends it unless it finds the
// take-over: killedTaker returns what it sent.
func killedTaker(t *testing.T, path, killAt string, holderWrites bool) (sent []uint64) {
	t.Helper()
	w := "0"
	if holderWrites {
		w = "1"
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), takerEnv+"="+path+"\n"+killAt+"\n"+w)
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
// middle of taking the pane file over loses no number that the process
// holding the old file's lock (slow, not stopped) sent: it writes its
// number just after the taker copied the record, and sends it unless it
// finds the take-over. A later call numbers above every number sent. The
// marks are an hour ahead of the clock, so that the numbers come from the
// file.
func TestTakerKilledMidwayLosesNoNumber(t *testing.T) {
	for _, killAt := range []string{"marked", "copied", "renamed"} {
		t.Run("killed after it "+killAt, func(t *testing.T) {
			k, dir := newKey(t), stateDir(t)
			mark := uint64(time.Now().Add(time.Hour).UnixMilli())
			path := plant(t, dir, k, mark, false, time.Time{})
			slow := holdLock(t, path)
			sent := killedTaker(t, path, killAt, true)
			filelock.UnlockFile(slow) // the holder ends its call

			c := New(k, Options{Dir: dir})
			defer c.Close()
			call := beginWaiting(t, c, Report)
			seq, _, err := call.Seq()
			call.End(call.Send)
			if err != nil || !call.Send {
				t.Fatalf("call after the killed take-over: Send %v, %v", call.Send, err)
			}
			for _, s := range sent {
				if seq <= s {
					t.Errorf("seq %d, not above %d, which the holder sent (the copied mark is %d)", seq, s, mark)
				}
			}
		})
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
			killedTaker(t, path, killAt, false)
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
