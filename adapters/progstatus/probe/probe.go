package probe

import (
	"bytes"
	"context"
	"errors"
	"time"
)

// EnvVar is the environment variable that hands the probe's result to the
// progstatus adapter: "1" when the terminal answered the query, "0" when
// it did not. [Result.Env] returns the assignment.
const EnvVar = "PANESTATE_PROGSTATUS"

// DefaultWait bounds a probe of a terminal that answers nothing. A terminal
// that answers DA1 ends the probe as soon as that answer arrives, however it
// answers the query, so this wait is spent only where nothing answers at
// all. docs/progstatus.md has the measured times.
const DefaultWait = 500 * time.Millisecond

// Query is what the probe writes: the OSC 7501 query, then DA1. Every VT
// terminal answers DA1; one that reads OSC 7501 answers the query first.
const Query = "\x1b]7501;?\x1b\\" + "\x1b[c"

// ErrUnsupported is returned on platforms where the probe cannot put a
// terminal in raw mode (Windows, Plan 9, WebAssembly, Solaris, AIX).
var ErrUnsupported = errors.New("probe: not supported on this platform")

// Answer is what the terminal said.
type Answer uint8

// Answers.
const (
	NoAnswer    Answer = iota // nothing came back within the wait
	Supported                 // the OSC 7501 answer came before DA1's
	Unsupported               // DA1's answer came without the OSC 7501 answer before it
)

func (a Answer) String() string {
	switch a {
	case Supported:
		return "supported"
	case Unsupported:
		return "unsupported"
	}
	return "no answer"
}

// Result is the outcome of a probe.
type Result struct {
	Answer  Answer
	Elapsed time.Duration // from the query's write to the last answer, or to the end of the wait
}

// Supported reports whether the terminal answered the OSC 7501 query.
func (r Result) Supported() bool { return r.Answer == Supported }

// Env returns the assignment that hands the result to the adapter, in
// os.Environ form: "PANESTATE_PROGSTATUS=1" when supported, "...=0"
// otherwise. A host appends it to registry.Options.Env (or sets it in its
// own environment before registry.New).
func (r Result) Env() string {
	if r.Supported() {
		return EnvVar + "=1"
	}
	return EnvVar + "=0"
}

// Controlling is the path of the controlling terminal, which [Run] probes
// when given no path.
const Controlling = "/dev/tty"

// Run probes the terminal at path ("" for [Controlling]): it puts it in
// raw mode (no echo, no line buffering), writes [Query], reads the answers
// until DA1's arrives or wait passes (0 for [DefaultWait]), and restores
// the terminal's mode before it returns, whatever happens. It owns the
// terminal's input meanwhile: a host calls it before its TUI starts
// reading, and keys typed during the probe are consumed.
//
// ctx ends the probe early (within a tenth of a second, the read timeout
// of raw mode), with ctx's error. Run starts no goroutine.
func Run(ctx context.Context, path string, wait time.Duration) (Result, error) {
	if path == "" {
		path = Controlling
	}
	if wait <= 0 {
		wait = DefaultWait
	}
	return run(ctx, path, wait)
}

// scanner finds the two answers in what the terminal sends back, which
// may come in pieces and hold other input (keys typed meanwhile).
type scanner struct {
	buf   []byte
	query bool // the OSC 7501 answer was seen
	da1   bool // the DA1 answer was seen
}

// maxScan bounds what the scanner keeps: answers are short, and a key held
// down must not grow the buffer.
const maxScan = 4096

// feed adds b and reports whether the probe is over (DA1 answered).
func (s *scanner) feed(b []byte) bool {
	s.buf = append(s.buf, b...)
	if !s.query && !s.da1 {
		// Either terminator: a terminal answers with the query's (ST),
		// but BEL costs nothing to accept.
		i := bytes.Index(s.buf, []byte("\x1b]7501;?\x1b\\"))
		if j := bytes.Index(s.buf, []byte("\x1b]7501;?\x07")); i < 0 || j >= 0 && j < i {
			i = j
		}
		if i >= 0 && (s.da1At() < 0 || i < s.da1At()) {
			s.query = true
		}
	}
	if s.da1At() >= 0 {
		s.da1 = true
	}
	if len(s.buf) > maxScan {
		s.buf = s.buf[len(s.buf)-maxScan/2:]
	}
	return s.da1
}

// da1At returns where DA1's answer, ESC [ ? digits and semicolons c,
// starts in the buffer, or -1.
func (s *scanner) da1At() int {
	b := s.buf
	for i := 0; i+3 < len(b)+1; i++ {
		if b[i] != 0x1b || i+2 >= len(b) || b[i+1] != '[' || b[i+2] != '?' {
			continue
		}
		for j := i + 3; j < len(b); j++ {
			c := b[j]
			if c == 'c' && j > i+3 {
				return i
			}
			if (c < '0' || c > '9') && c != ';' {
				break
			}
		}
	}
	return -1
}

// answer is the outcome once the reading has stopped.
func (s *scanner) answer() Answer {
	switch {
	case s.query:
		return Supported
	case s.da1:
		return Unsupported
	}
	return NoAnswer
}
