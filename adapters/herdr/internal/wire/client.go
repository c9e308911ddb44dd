package wire

import (
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
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, &ConnectError{Socket: socket, Err: ctxErr}
		}
		return nil, &ConnectError{Socket: socket, Err: err}
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

// Guard is what [DoGuarded] checks before it writes a request. The zero
// value checks nothing.
type Guard struct {
	// Stop, once closed, keeps the request from being written. Nil never
	// closes.
	Stop <-chan struct{}
	// Peer, when set, is called with the connection once it is made and
	// before anything is written; an error from it is returned as it is,
	// wrapped, and nothing is written. It checks who the server is.
	Peer func(net.Conn) error
}

// DoGuarded is [Do] with the checks of g before the request is written:
// when g.Stop is closed before the write (before or after the dial),
// DoGuarded returns an error wrapping [ErrNotSent]; when g.Peer refuses the
// server, its error. Either way the server has seen nothing of the
// request. Once the write has started, closing g.Stop changes nothing: the
// server may have the request, so its answer is waited for as in Do, until
// ctx ends.
func DoGuarded(ctx context.Context, socket string, req Request, g Guard) (Response, error) {
	line, err := req.Line()
	if err != nil {
		return Response{}, err
	}
	if closed(g.Stop) {
		return Response{}, fmt.Errorf("wire: %s: %w", req.Method, ErrNotSent)
	}
	conn, err := Dial(ctx, socket)
	if err != nil {
		return Response{}, err
	}
	defer conn.Close()
	if g.Peer != nil {
		if err := g.Peer(conn); err != nil {
			return Response{}, fmt.Errorf("wire: %s: %w", req.Method, err)
		}
	}
	if closed(g.Stop) { // the last moment before anything leaves
		return Response{}, fmt.Errorf("wire: %s: %w", req.Method, ErrNotSent)
	}
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	if _, err := conn.Write(line); err != nil {
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
			// The server closed before reading: no answer will come.
			err = fmt.Errorf("%w (%w)", ErrEmptyResponse, err)
		}
		return Response{}, exchangeError(ctx, "send", req.Method, err)
	}
	resp, err := readResponse(conn, MaxResponse)
	if err != nil {
		return Response{}, exchangeError(ctx, "read", req.Method, err)
	}
	r, err := DecodeResponse(resp)
	if err != nil {
		return Response{}, fmt.Errorf("wire: %s: %w", req.Method, err)
	}
	return r, nil
}

// closed reports whether ch is closed; a nil ch never is.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func exchangeError(ctx context.Context, op string, m Method, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// The connection's deadline is the context's: report it as such,
		// even when the connection noticed a moment before the context.
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("wire: %s %s: %w", op, m, ctxErr)
		}
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			return fmt.Errorf("wire: %s %s: %w", op, m, context.DeadlineExceeded)
		}
	}
	return fmt.Errorf("wire: %s %s: %w", op, m, err)
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
	if err := decodeResult(resp, &p); err != nil || p.Type != ResultPong {
		return Pong{}, fmt.Errorf("wire: ping: %w: not a pong", ErrMalformedResponse)
	}
	return p, nil
}

func decodeResult(r Response, dst any) error {
	return json.Unmarshal(r.Result, dst)
}
