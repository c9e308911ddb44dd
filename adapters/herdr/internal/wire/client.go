package wire

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// Client errors. [Do] wraps them; test with errors.Is.
var (
	// ErrNotRunning: nothing listens at the socket (no such file, or a
	// stale socket that refuses the connection), which Herdr's CLI reports
	// as server_not_running (§1.5).
	ErrNotRunning = errors.New("wire: no herdr server is listening")
	// ErrEmptyResponse: the server closed the connection without answering,
	// as it does for a line it could not read (§2.1). Herdr's CLI calls
	// this EmptyResponse.
	ErrEmptyResponse = errors.New("wire: the server closed the connection without a response")
	// ErrResponseTooLarge: the response exceeded MaxResponse bytes.
	ErrResponseTooLarge = errors.New("wire: response exceeds 64 KiB")
	// ErrMalformedResponse: the response is not a well-formed Herdr
	// response.
	ErrMalformedResponse = errors.New("wire: malformed response")
)

// ConnectError is a failure to connect to the server at Socket. It wraps
// [ErrNotRunning] when nothing listens there, and always the dial's error.
type ConnectError struct {
	Socket string
	Err    error
}

func (e *ConnectError) Error() string {
	if e.NotRunning() {
		return "wire: connect " + e.Socket + ": no herdr server is listening"
	}
	return "wire: connect " + e.Socket + ": " + e.Err.Error()
}

// Unwrap returns the dial's error, and ErrNotRunning when it applies.
func (e *ConnectError) Unwrap() []error {
	if e.NotRunning() {
		return []error{ErrNotRunning, e.Err}
	}
	return []error{e.Err}
}

// NotRunning reports whether the dial failed because nothing listens.
func (e *ConnectError) NotRunning() bool { return notRunning(e.Err) }

// Dial connects to the Herdr server whose HERDR_SOCKET_PATH is socket: the
// Unix socket at that path, or on Windows the named pipe `\\.\pipe\` +
// socket. ctx bounds the dial only. A failure is a [*ConnectError].
func Dial(ctx context.Context, socket string) (net.Conn, error) {
	if socket == "" {
		return nil, &ConnectError{Socket: socket, Err: os.ErrNotExist}
	}
	conn, err := dial(ctx, socket)
	if err != nil {
		return nil, &ConnectError{Socket: socket, Err: cmp.Or(ctx.Err(), err)}
	}
	return conn, nil
}

// Do sends req to the server at socket on a new connection, reads one
// response line of at most [MaxResponse] bytes and closes the connection.
// ctx bounds the whole exchange: its deadline becomes the connection's, and
// cancelling it interrupts a pending read or write, after which Do returns
// an error wrapping ctx.Err().
//
// A decoded error response is returned as a Response with Error set and a
// nil error; use [Response.Err]. Do may run concurrently with itself.
func Do(ctx context.Context, socket string, req Request) (Response, error) {
	return DoGuarded(ctx, socket, req, Guard{})
}

// ErrNotSent is wrapped by [DoGuarded]'s error when the request was not
// sent because its Guard's Stop channel was closed first.
var ErrNotSent = errors.New("wire: request not sent")

// Guard is what [DoGuarded] checks before it writes a request, and the
// bounds it keeps besides ctx's. The zero value checks nothing and adds no
// bound.
type Guard struct {
	// Stop, once closed, keeps the request from being written. Nil never
	// closes.
	Stop <-chan struct{}
	// Peer, when set, is called with the connection once it is made and
	// before anything is written; an error from it is returned as it is,
	// wrapped, and nothing is written. It checks who the server is, and
	// must neither keep the connection nor read, write or close it.
	Peer func(net.Conn) error
	// Deadline, when not zero, bounds the exchange as a deadline of ctx
	// would. On Unix it costs no timer: the socket's own timeouts keep
	// it (on Windows, package net's deadline and a timer for the dial).
	Deadline time.Time
	// Closed, when not nil, ends the exchange as a cancellation of ctx
	// would, with its error.
	Closed context.Context
}

// DoGuarded is [Do] with the checks of g before the request is written:
// when g.Stop is closed before the write (before or after the dial),
// DoGuarded returns an error wrapping [ErrNotSent]; when g.Peer refuses the
// server, its error. Either way the server has seen nothing of the
// request. Once the write has started, closing g.Stop changes nothing: the
// server may have the request, so its answer is waited for as in Do, until
// ctx or g.Closed ends or the deadline passes.
func DoGuarded(ctx context.Context, socket string, req Request, g Guard) (Response, error) {
	line, err := req.Line()
	if err != nil {
		return Response{}, err
	}
	resp, err := RoundTrip(ctx, socket, line, g)
	if err != nil {
		return Response{}, exchangeError(ctx, g, req.Method, err)
	}
	r, err := DecodeResponse(resp)
	if err != nil {
		return Response{}, fmt.Errorf("wire: %s: %w", req.Method, err)
	}
	return r, nil
}

// RoundTrip writes line, one request line with its newline, on a new
// connection to the server at socket and returns the response line,
// without its newline and undecoded, under the checks and bounds of g and
// ctx as [DoGuarded] keeps them. Its errors are not yet wrapped with the
// method: a [*ConnectError], [ErrNotSent], the Peer check's error, or a
// failure to send or read.
func RoundTrip(ctx context.Context, socket string, line []byte, g Guard) ([]byte, error) {
	if closed(g.Stop) {
		return nil, ErrNotSent
	}
	if err := ctx.Err(); err != nil {
		return nil, &ConnectError{Socket: socket, Err: err}
	}
	if g.Closed != nil && g.Closed.Err() != nil {
		return nil, &ConnectError{Socket: socket, Err: g.Closed.Err()}
	}
	if socket == "" {
		return nil, &ConnectError{Socket: socket, Err: os.ErrNotExist}
	}
	d := deadline(ctx, g)
	if !d.IsZero() && !time.Now().Before(d) {
		// As ctx.Err() would say of a deadline of ctx, before any
		// connection: the server sees nothing.
		return nil, &ConnectError{Socket: socket, Err: context.DeadlineExceeded}
	}
	// The deadline is the connection's, and ctx and g.Closed end a blocked
	// exchange by moving it to the past; they bound the dial too (a named
	// pipe's waits while every instance of it is busy).
	dctx, cancel := dialContext(ctx, d, g.Closed)
	c, err := Dial(dctx, socket)
	cancel()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if g.Peer != nil {
		if err := g.Peer(c); err != nil {
			return nil, err
		}
	}
	if closed(g.Stop) { // the last moment before anything leaves
		return nil, ErrNotSent
	}
	if !d.IsZero() {
		if err := c.SetDeadline(d); err != nil {
			return nil, err
		}
	}
	for _, done := range []context.Context{ctx, g.Closed} {
		if done != nil && done.Done() != nil {
			stop := context.AfterFunc(done, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
			defer stop()
		}
	}
	if _, err := c.Write(line); err != nil {
		return nil, &stageError{"send", err}
	}
	resp, err := readResponse(c, MaxResponse)
	if err != nil {
		return nil, &stageError{"read", err}
	}
	return resp, nil
}

// deadline is the earlier of ctx's deadline and g's; zero for none.
func deadline(ctx context.Context, g Guard) time.Time {
	d, ok := ctx.Deadline()
	switch {
	case !ok:
		return g.Deadline
	case g.Deadline.IsZero() || d.Before(g.Deadline):
		return d
	}
	return g.Deadline
}

// dialContext returns ctx bounded also by deadline (none when zero) and
// ended by closed (none when nil), for a dial that may wait: a named
// pipe's, while every instance of it is busy. cancel releases its timer.
func dialContext(ctx context.Context, deadline time.Time, closed context.Context) (dctx context.Context, cancel context.CancelFunc) {
	dctx, cancel = ctx, func() {}
	if !deadline.IsZero() {
		dctx, cancel = context.WithDeadline(ctx, deadline)
	}
	if closed == nil || closed.Done() == nil {
		return dctx, cancel
	}
	dctx, cancelClosed := context.WithCancelCause(dctx)
	stop := context.AfterFunc(closed, func() { cancelClosed(context.Cause(closed)) })
	end := cancel
	return dctx, func() { stop(); cancelClosed(nil); end() }
}

// stageError is a failure to send the request or to read its answer.
type stageError struct {
	stage string // "send" or "read"
	err   error
}

func (e *stageError) Error() string { return e.stage + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

// closed reports whether ch is closed; a nil ch never is.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// exchangeError wraps a failed round trip's error with the method, and
// reports a deadline or an interruption as the context's error that caused
// it: ctx's, g.Closed's, or the deadline's.
func exchangeError(ctx context.Context, g Guard, m Method, err error) error {
	var ce *ConnectError
	if errors.As(err, &ce) {
		return err
	}
	var se *stageError
	if !errors.As(err, &se) {
		return fmt.Errorf("wire: %s: %w", m, err)
	}
	err = se.err
	if se.stage == "send" && (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
		// The server closed before reading: no answer will come.
		err = fmt.Errorf("%w (%w)", ErrEmptyResponse, err)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// The connection's deadline is the context's: report it as such,
		// even when the connection noticed a moment before the context.
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("wire: %s %s: %w", se.stage, m, ctxErr)
		}
		if g.Closed != nil && g.Closed.Err() != nil {
			return fmt.Errorf("wire: %s %s: %w", se.stage, m, g.Closed.Err())
		}
		if d := deadline(ctx, g); !d.IsZero() && !time.Now().Before(d) {
			return fmt.Errorf("wire: %s %s: %w", se.stage, m, context.DeadlineExceeded)
		}
	}
	return fmt.Errorf("wire: %s %s: %w", se.stage, m, err)
}

// Err returns r.Error as an error, or nil for a success response.
func (r Response) Err() error {
	if r.Error != nil {
		return r.Error
	}
	return nil
}

// Ping asks the server at socket for its version, protocol and
// capabilities, under [IDStatus] as Herdr's CLI does. An error response is
// returned as its [*Error].
func Ping(ctx context.Context, socket string) (Pong, error) {
	return PingGuarded(ctx, socket, Guard{})
}

// PingGuarded is [Ping] with the checks of g, as [DoGuarded] makes them.
func PingGuarded(ctx context.Context, socket string, g Guard) (Pong, error) {
	req := Request{ID: IDStatus, Method: MethodPing, Params: []byte("{}")}
	resp, err := DoGuarded(ctx, socket, req, g)
	if err != nil {
		return Pong{}, err
	}
	if err := resp.Err(); err != nil {
		return Pong{}, err
	}
	var p Pong
	if err := json.Unmarshal(resp.Result, &p); err != nil || p.Type != ResultPong {
		return Pong{}, fmt.Errorf("wire: ping: %w: not a pong", ErrMalformedResponse)
	}
	return p, nil
}
