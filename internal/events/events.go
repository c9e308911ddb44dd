package events

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/panestate/panestate/reducer"
	"github.com/panestate/panestate/session"
)

// maxLine is the longest line accepted.
const maxLine = 1 << 20

// Player feeds the lines of the events protocol into a session store.
// A Player is not safe for concurrent use; one Play at a time.
type Player struct {
	// Store receives the events. Required.
	Store *session.Store
	// Name is the input's name in error messages ("stdin", a file name).
	Name string
	// Prefix starts every error line, followed by ": " (the program's
	// name: "chat", "panestate").
	Prefix string
	// Verbose, when set, receives one line per op (sleeps aside) with the
	// pane state it leads to.
	Verbose io.Writer
	// Stderr receives one line per bad input line. Required.
	Stderr io.Writer
}

// errQuit ends the script early (the quit op).
var errQuit = errors.New("quit")

// Play applies every line of r to the store, in order. A bad line is
// reported on Stderr, with its line number, and skipped; a quit op ends
// the input. Play returns an error only when r cannot be read (the error
// names the line) or ctx ends during a sleep op (ctx's error). ctx bounds
// sleep ops only.
func (p *Player) Play(ctx context.Context, r io.Reader) error {
	br := bufio.NewReader(r)
	n := 0
	for {
		line, tooLong, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", p.Name, n+1, err)
		}
		n++
		if tooLong {
			fmt.Fprintf(p.Stderr, "%s: %s:%d: line longer than %d bytes\n", p.Prefix, p.Name, n, maxLine)
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		op, err := p.apply(ctx, line)
		if errors.Is(err, errQuit) {
			p.show(n, op)
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			if op != "" {
				err = fmt.Errorf("%s: %w", op, err)
			}
			fmt.Fprintf(p.Stderr, "%s: %s:%d: %v\n", p.Prefix, p.Name, n, err)
			continue
		}
		if op != "sleep" {
			p.show(n, op)
		}
	}
}

// readLine returns the next line of r, without its end of line, or io.EOF
// after the last. A line longer than maxLine is read to its end and
// dropped: tooLong is set, and line is nil.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(bytes.TrimRight(line, "\r\n")) > maxLine {
				line, tooLong = nil, true
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && (len(line) > 0 || tooLong):
			return bytes.TrimRight(line, "\r\n"), tooLong, nil
		case err != nil:
			return nil, false, err
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, nil
	}
}

// show prints, when verbose, the op of line n and the pane state it leads
// to.
func (p *Player) show(n int, op string) {
	if p.Verbose == nil {
		return
	}
	if r, ok := reducer.Reduce(p.Store.Snapshot()); ok {
		fmt.Fprintf(p.Verbose, "line %d: %s -> %s\n", n, op, r)
	} else {
		fmt.Fprintf(p.Verbose, "line %d: %s -> (no new state: workflows unknown)\n", n, op)
	}
}

// Each op's fields. Lines are decoded strictly into the op's own struct, so
// a misspelt or misplaced field is an error, not silently ignored.
type (
	opLine struct {
		Op string `json:"op"`
	}
	phaseLine struct {
		Op    string `json:"op"`
		Phase string `json:"phase"`
	}
	promptLine struct {
		Op   string `json:"op"`
		ID   string `json:"id"`
		Kind string `json:"kind"` // prompt_start only
	}
	workflowsLine struct {
		Op           string `json:"op"`
		Availability string `json:"availability"`
		Roots        []root `json:"roots"`
	}
	tasksLine struct {
		Op      string `json:"op"`
		Running *int   `json:"running"`
	}
	identityLine struct {
		Op          string   `json:"op"`
		SessionID   string   `json:"session_id"`
		SessionPath string   `json:"session_path"`
		Resume      []string `json:"resume"` // a JSON array of words
	}
	sleepLine struct {
		Op string `json:"op"`
		MS *int   `json:"ms"`
	}
)

// maxSleep bounds the sleep op.
const maxSleep = time.Minute

// apply decodes one line and applies it. It returns the op's name.
func (p *Player) apply(ctx context.Context, line []byte) (string, error) {
	var head opLine
	if err := json.Unmarshal(line, &head); err != nil {
		return "", fmt.Errorf("not a JSON object with an op: %w", err)
	}
	s := p.Store
	switch head.Op {
	case "agent_start", "agent_settled", "quit":
		if err := strict(line, &opLine{}); err != nil {
			return head.Op, err
		}
		switch head.Op {
		case "agent_start":
			s.AgentStart()
		case "agent_settled":
			s.AgentSettled()
		case "quit":
			return head.Op, errQuit
		}
	case "phase":
		var v phaseLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		ph, err := parsePhase(v.Phase)
		if err != nil {
			return head.Op, err
		}
		s.SetPhase(ph)
	case "prompt_start", "prompt_end":
		var v promptLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		if v.ID == "" {
			return head.Op, errors.New(`missing "id"`)
		}
		if head.Op == "prompt_end" {
			if v.Kind != "" {
				return head.Op, errors.New(`prompt_end takes no "kind"`)
			}
			s.PromptEnd(v.ID)
			break
		}
		kind, err := parsePromptKind(v.Kind)
		if err != nil {
			return head.Op, err
		}
		s.PromptStart(v.ID, kind)
	case "workflows":
		var v workflowsLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		w, err := workflows(v.Availability, v.Roots)
		if err != nil {
			return head.Op, err
		}
		s.SetWorkflows(w)
	case "tasks":
		var v tasksLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		if v.Running == nil || *v.Running < 0 {
			return head.Op, errors.New(`"running" must be a number of tasks, 0 or more`)
		}
		s.SetTasks(*v.Running)
	case "identity":
		var v identityLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		id, err := session.Identity{ID: v.SessionID, Path: v.SessionPath}.WithResume(v.Resume...)
		if err != nil {
			return head.Op, err
		}
		s.SetIdentity(id)
	case "sleep":
		var v sleepLine
		if err := strict(line, &v); err != nil {
			return head.Op, err
		}
		d := time.Duration(0)
		if v.MS != nil {
			d = time.Duration(*v.MS) * time.Millisecond
		}
		if v.MS == nil || d < 0 || d > maxSleep {
			return head.Op, fmt.Errorf(`"ms" must be a number of milliseconds from 0 to %d`, maxSleep.Milliseconds())
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return head.Op, ctx.Err()
		}
	case "":
		return "", errors.New(`missing "op"`)
	default:
		return "", fmt.Errorf("unknown op %q", head.Op)
	}
	return head.Op, nil
}

// strict decodes a line (already known to hold exactly one JSON value) into
// v, refusing fields v does not have.
func strict(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
