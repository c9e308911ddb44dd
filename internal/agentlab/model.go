package agentlab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Request is what a [Flavour] decoded of one model request: the parts a
// [Script] decides on. Raw keeps the whole body, for a test that checks
// what the agent sent.
type Request struct {
	// Path is the request's URL path.
	Path string
	// Model is the model the agent asked for.
	Model string
	// Tools is the number of tools the request offers: a request without
	// any is one of the agent's side requests (a title, a summary, a
	// classifier), not a turn of its main loop.
	Tools int
	// Prompt is the text of the last user message (its text parts joined
	// with newlines).
	Prompt string
	// Results are the tool results in the last user message: the answers
	// to the tool calls of the previous reply.
	Results []Result
	// Raw is the request's body.
	Raw []byte
}

// Result is one tool result the agent sent back.
type Result struct {
	// ID is the tool call's id ([ToolCall.ID]).
	ID string
	// Output is the result's text (its text parts joined).
	Output string
	// Error is set when the agent marked the result as an error (a
	// rejected or failed tool).
	Error bool
}

// Reply is one scripted answer of the model.
type Reply struct {
	// Text is the answer's text. With Tool set it comes first.
	Text string
	// Tool, when set, makes the answer a call of that tool.
	Tool *ToolCall
	// Stall sends the stream's start (and Text, when set, as a first
	// complete part of the answer) and then nothing, until the agent goes away or the
	// server closes: a turn that is still being generated (for killing or
	// interrupting an agent mid-turn). Tool is not sent.
	Stall bool
}

// ToolCall is a tool call in a [Reply].
type ToolCall struct {
	// ID is the call's id; empty means one the server makes up.
	ID string
	// Name is the tool's name as the agent calls it ("Bash" for Claude
	// Code).
	Name string
	// Input is the tool's arguments, as a JSON object.
	Input map[string]any
	// Review is the verdict of a safety review the model's server runs on
	// the call, for an API that carries one with the reply (Anthropic's
	// server-side classifier of Claude Code's auto mode): [ReviewPass],
	// [ReviewFlag], or "" for none.
	Review string
}

// The verdicts of [ToolCall.Review].
const (
	ReviewPass = "pass" // the review lets the call run
	ReviewFlag = "flag" // the review flags the call as dangerous
)

// Script answers each model request. It runs on the server's goroutines,
// one call at a time.
type Script func(Request) Reply

// Text is a Script that answers every request with text.
func Text(text string) Script { return func(Request) Reply { return Reply{Text: text} } }

// ToolTurn is the Script of a turn with one tool call: a main-loop request
// without tool results gets call (its ID made up when empty); a request
// carrying tool results, and every side request (no tools offered), gets
// text. The answer to the tool results takes 300 ms, as a real model's
// would: answered at once, the working between the tool's end and the
// turn's end lasts less than the registry's 50 ms throttle window on a
// loaded machine, which merges it into the idle after it.
func ToolTurn(call ToolCall, text string) Script {
	return func(r Request) Reply {
		if len(r.Results) > 0 {
			time.Sleep(300 * time.Millisecond)
		}
		if r.Tools == 0 || len(r.Results) > 0 {
			return Reply{Text: text}
		}
		c := call
		return Reply{Tool: &c}
	}
}

// A Flavour speaks one model API over HTTP: for each request it decodes
// the body into a [Request], gets the reply from answer, and writes it as
// that API streams (or returns, for a request that does not ask for a
// stream). Endpoints that are not model turns (token counts, model lists)
// it answers itself, without calling answer. It runs on the server's
// goroutines; ctx ends when the server closes.
type Flavour func(ctx context.Context, w http.ResponseWriter, r *http.Request, answer func(Request) Reply)

// ModelServer is a mock model API on 127.0.0.1, started by [StartModel]:
// it answers with a [Flavour] what its [Script] says.
type ModelServer struct {
	// URL is the server's base URL, "http://127.0.0.1:<port>".
	URL string

	mu       sync.Mutex
	script   Script
	requests []Request
	ids      int

	srv    *http.Server
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// StartModel starts a mock model API speaking flavour on a free port of
// 127.0.0.1, answering with script (which [ModelServer.SetScript]
// replaces). It is closed when the test ends.
func StartModel(t testing.TB, flavour Flavour, script Script) *ModelServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("agentlab: model server: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &ModelServer{URL: "http://" + ln.Addr().String(), script: script, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	m.srv = &http.Server{
		Handler:     http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { flavour(ctx, w, r, m.answer) }),
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln)
	}()
	t.Cleanup(m.close)
	return m
}

// close stops the server and ends every stalled stream.
func (m *ModelServer) close() {
	m.cancel()
	c, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if m.srv.Shutdown(c) != nil {
		_ = m.srv.Close()
	}
	<-m.done
}

// SetScript replaces the script for the requests that come next.
func (m *ModelServer) SetScript(s Script) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = s
}

// Requests returns the model requests answered so far, in order.
func (m *ModelServer) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// NewID returns an id unique to the server, prefix followed by a number:
// for a flavour's message and tool call ids.
func (m *ModelServer) NewID(prefix string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ids++
	return fmt.Sprintf("%s%024d", prefix, m.ids)
}

// answer records r and asks the script; a call without an ID gets one.
func (m *ModelServer) answer(r Request) Reply {
	m.mu.Lock()
	m.requests = append(m.requests, r)
	s := m.script
	m.mu.Unlock()
	rep := Reply{Text: "ok"}
	if s != nil {
		rep = s(r)
	}
	if rep.Tool != nil && rep.Tool.ID == "" {
		c := *rep.Tool
		c.ID = m.NewID("toolu_")
		rep.Tool = &c
	}
	return rep
}

// maxBody bounds a request body a flavour reads.
const maxBody = 32 << 20

// ReadBody reads a request's body (at most 32 MiB), for a flavour.
func ReadBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, errors.New("agentlab: request body too large")
	}
	return b, nil
}

// SSE writes server-sent events to w, flushing after each, for a flavour.
type SSE struct {
	w http.ResponseWriter
}

// NewSSE sets the event-stream headers on w and returns its writer.
func NewSSE(w http.ResponseWriter) *SSE {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &SSE{w: w}
}

// Event writes one event: "event: <name>" when name is not empty, then
// data as JSON on one "data:" line.
func (s *SSE) Event(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if name != "" {
		buf.WriteString("event: " + name + "\n")
	}
	buf.WriteString("data: ")
	buf.Write(b)
	buf.WriteString("\n\n")
	if _, err := s.w.Write(buf.Bytes()); err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// Stall blocks until the client goes away or ctx ends: a reply with
// [Reply.Stall], after the flavour wrote the stream's start.
func Stall(ctx context.Context, r *http.Request) {
	select {
	case <-ctx.Done():
	case <-r.Context().Done():
	}
}

// ReadJSON reads a request's body ([ReadBody]) and decodes it into v, for
// a flavour. On a failure it answers 400 Bad Request and returns false.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	body, err := ReadBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	if err := json.Unmarshal(body, v); err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return nil, false
	}
	return body, true
}
