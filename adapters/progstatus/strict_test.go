package progstatus_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is a parser as strict as the terminals' own (libghostty's
// program_status.zig and iTerm2's ProgramStatusTests, revision 0.4): it
// accepts what they apply and rejects, with an error, every report they
// would drop, so that a limit or alphabet slip in the adapter fails a test
// here rather than in a person's terminal. It is written from the rules of
// docs/progstatus.md, not copied from either.

// Limits of revision 0.4, in bytes, restated here so that the parser does
// not trust the package it checks.
const (
	strictMaxSequence   = 4096
	strictMaxKey        = 16
	strictMaxApp        = 32
	strictMaxID         = 128
	strictMaxIDSegment  = 32
	strictMaxIDDepth    = 8
	strictMaxTitleEnc   = 256
	strictMaxTitle      = 192
	strictMaxMsgEncoded = 2732
	strictMaxMsg        = 2048
)

const (
	strictName  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-"
	strictValue = strictName + ",/="
)

var errDropped = errors.New("a spec-following terminal drops this report")

// rec is a report as a terminal applies it.
type rec struct {
	State string
	ID    string // "" is the root record
	Kind  string // only with blocked
	App   string
	Msg   string // decoded
}

func (r rec) String() string {
	return fmt.Sprintf("id=%s state=%s kind=%s app=%s msg=%q", r.ID, r.State, r.Kind, r.App, r.Msg)
}

// strictParse reads every OSC 7501 sequence in out, in order. Bytes outside
// them are ignored; a sequence that is not closed, a query, or a report a
// terminal would drop is an error.
func strictParse(out []byte) ([]rec, error) {
	var recs []rec
	for {
		i := bytes.Index(out, []byte("\x1b]7501;"))
		if i < 0 {
			return recs, nil
		}
		out = out[i:]
		end, termLen := -1, 0
		for j := 2; j < len(out); j++ {
			if out[j] == 0x07 {
				end, termLen = j, 1
				break
			}
			if out[j] == 0x1b {
				if j+1 < len(out) && out[j+1] == '\\' {
					end, termLen = j, 2
				}
				break // any other ESC aborts the string: an unterminated report
			}
		}
		if end < 0 {
			return recs, fmt.Errorf("%w: unterminated sequence %q", errDropped, out)
		}
		if end+termLen > strictMaxSequence {
			return recs, fmt.Errorf("%w: %d bytes, over %d", errDropped, end+termLen, strictMaxSequence)
		}
		r, err := strictBody(string(out[len("\x1b]7501;"):end]))
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
		out = out[end+termLen:]
	}
}

type kv struct{ key, value string }

// strictBody parses a report's body, everything between "7501;" and the
// terminator.
func strictBody(body string) (rec, error) {
	if body == "?" {
		return rec{}, fmt.Errorf("%w: a query, not a report", errDropped)
	}
	var pairs []kv
	for p := range strings.SplitSeq(body, ":") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue // malformed pair: skipped
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(k) > strictMaxKey {
			return rec{}, fmt.Errorf("%w: key %q over %d bytes", errDropped, k, strictMaxKey)
		}
		if k == "" || strings.Trim(v, strictValue) != "" {
			continue // empty key or a byte outside the value alphabet: skipped
		}
		pairs = append(pairs, kv{k, v})
	}
	values := func(key string) []string {
		var vs []string
		for _, p := range pairs {
			if p.key == key {
				vs = append(vs, p.value)
			}
		}
		return vs
	}
	last := func(key string) (string, bool) {
		vs := values(key)
		if len(vs) == 0 {
			return "", false
		}
		return vs[len(vs)-1], true
	}
	// Every value counts against its limit, even one a later pair replaces.
	for _, id := range values("id") {
		if err := strictID(id); err != nil {
			return rec{}, err
		}
	}
	for key, limit := range map[string]int{"app": strictMaxApp, "title": strictMaxTitleEnc, "msg": strictMaxMsgEncoded} {
		for _, v := range values(key) {
			if len(v) > limit {
				return rec{}, fmt.Errorf("%w: %s is %d bytes, over %d", errDropped, key, len(v), limit)
			}
		}
	}
	var r rec
	if t, ok := last("title"); ok {
		if _, err := strictText(t, strictMaxTitle); err != nil {
			return rec{}, err
		}
	}
	if m, ok := last("msg"); ok {
		text, err := strictText(m, strictMaxMsg)
		if err != nil {
			return rec{}, err
		}
		r.Msg = text
	}
	state, _ := last("state")
	if !slices.Contains([]string{"idle", "working", "done", "blocked", "error", "clear"}, state) {
		return rec{}, fmt.Errorf("%w: state %q", errDropped, state)
	}
	r.State = state
	r.ID, _ = last("id")
	if app, ok := last("app"); ok && app != "" && strings.Trim(app, strictName) == "" {
		r.App = app
	}
	if k, _ := last("kind"); state == "blocked" && slices.Contains([]string{"permission", "question", "auth"}, k) {
		r.Kind = k
	}
	return r, nil
}

// strictID checks an id: names joined by single slashes, within the limits.
func strictID(id string) error {
	if len(id) > strictMaxID {
		return fmt.Errorf("%w: id over %d bytes", errDropped, strictMaxID)
	}
	segs := strings.Split(id, "/")
	if len(segs) > strictMaxIDDepth {
		return fmt.Errorf("%w: id deeper than %d", errDropped, strictMaxIDDepth)
	}
	for _, s := range segs {
		if len(s) > strictMaxIDSegment {
			return fmt.Errorf("%w: id segment over %d bytes", errDropped, strictMaxIDSegment)
		}
		if s == "" || strings.Trim(s, strictName) != "" {
			return fmt.Errorf("%w: id %q is not names joined by single slashes", errDropped, id)
		}
	}
	return nil
}

// strictText decodes a title or msg: base64 with optional padding, then
// UTF-8 with no control character, at most limit bytes.
func strictText(enc string, limit int) (string, error) {
	codec := base64.RawStdEncoding
	if strings.HasSuffix(enc, "=") {
		codec = base64.StdEncoding
	}
	b, err := codec.Strict().DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("%w: bad base64 %q: %v", errDropped, enc, err)
	}
	if len(b) > limit {
		return "", fmt.Errorf("%w: text is %d bytes, over %d", errDropped, len(b), limit)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%w: text is not UTF-8", errDropped)
	}
	for _, c := range string(b) {
		if unicode.IsControl(c) {
			return "", fmt.Errorf("%w: text holds control character %U", errDropped, c)
		}
	}
	return string(b), nil
}

// unwrapTmux returns the sequences inside tmux DCS passthroughs in out
// (ESC P tmux; ... ESC \, every inner ESC doubled), as tmux forwards them,
// or an error for a passthrough that is malformed.
func unwrapTmux(out []byte) ([]byte, error) {
	var inner []byte
	for {
		i := bytes.Index(out, []byte("\x1bPtmux;"))
		if i < 0 {
			return inner, nil
		}
		out = out[i+len("\x1bPtmux;"):]
		closed := false
		for j := 0; j < len(out); j++ {
			if out[j] != 0x1b {
				inner = append(inner, out[j])
				continue
			}
			if j+1 < len(out) && out[j+1] == 0x1b {
				inner = append(inner, 0x1b)
				j++
				continue
			}
			if j+1 < len(out) && out[j+1] == '\\' {
				out = out[j+2:]
				closed = true
				break
			}
			return nil, fmt.Errorf("a lone ESC inside a tmux passthrough: %q", out)
		}
		if !closed {
			return nil, fmt.Errorf("unterminated tmux passthrough")
		}
	}
}

// store is a terminal's set of records as revision 0.4 keeps them, written
// from its rules: a report replaces its record completely; clear removes
// the addressed record and every record beneath it, and every record when
// it has no id; a record without app inherits it from its nearest
// ancestor (ancestors need not exist; the root record is the last one
// asked); at most limit records are kept, the least recently updated
// evicted first; a process exit drops working, blocked and idle, while
// done and error stay.
type store struct {
	limit   int // 0 means 256, the most a terminal keeps
	recs    map[string]rec
	touched map[string]int
	clock   int
}

// apply applies r.
func (s *store) apply(r rec) {
	if s.recs == nil {
		s.recs, s.touched = map[string]rec{}, map[string]int{}
	}
	if r.State == "clear" {
		for id := range s.recs {
			if r.ID == "" || id == r.ID || strings.HasPrefix(id, r.ID+"/") {
				delete(s.recs, id)
				delete(s.touched, id)
			}
		}
		return
	}
	s.clock++
	s.recs[r.ID], s.touched[r.ID] = r, s.clock
	limit := s.limit
	if limit == 0 {
		limit = 256
	}
	for len(s.recs) > limit {
		oldest, first := "", true
		for id, t := range s.touched {
			if first || t < s.touched[oldest] {
				oldest, first = id, false
			}
		}
		delete(s.recs, oldest)
		delete(s.touched, oldest)
	}
}

// feed applies every report in out, which must all be complete and valid.
func (s *store) feed(out []byte) error {
	recs, err := strictParse(out)
	if err != nil {
		return err
	}
	for _, r := range recs {
		s.apply(r)
	}
	return nil
}

// exit is the program's exit: working, blocked and idle records go.
func (s *store) exit() {
	for id, r := range s.recs {
		if r.State == "working" || r.State == "blocked" || r.State == "idle" {
			delete(s.recs, id)
			delete(s.touched, id)
		}
	}
}

// app is the application of the record id: its own, else its nearest
// ancestor's.
func (s *store) app(id string) string {
	for {
		if r, ok := s.recs[id]; ok && r.App != "" {
			return r.App
		}
		if id == "" {
			return ""
		}
		i := strings.LastIndexByte(id, '/')
		id = id[:max(i, 0)]
	}
}

// ids returns the ids of the records kept, sorted.
func (s *store) ids() []string {
	ids := slices.Collect(maps.Keys(s.recs))
	slices.Sort(ids)
	return ids
}
