package herdr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/panestate/panestate/adapter"
)

// socketTransport talks to Herdr's API socket directly: one connection per
// request, as Herdr serves it (CONTRACT §2.1).
type socketTransport struct {
	path string // HERDR_SOCKET_PATH, as captured
}

// errNoResponse is the error of a connection that ended without a
// response line.
var errNoResponse = errors.New("connection closed without a response")

// errLongResponse is the error of a response line over maxResponse.
var errLongResponse = fmt.Errorf("response longer than %d bytes", maxResponse)

// errErrorResponse is the error of an error response without a code the
// adapter knows.
var errErrorResponse = errors.New("error response")

// errBadResponse is the error of a response line that is not a Herdr
// response.
var errBadResponse = errors.New("unrecognised response")

// send delivers req and classifies the answer: nil for {"result":...}, a
// protocol_rejected CallError with Herdr's error code for {"error":...}.
func (t *socketTransport) send(ctx, closed context.Context, deadline time.Time, req *request) error {
	resp, n, err := t.roundTrip(ctx, closed, deadline, req.op, req.line())
	if err != nil {
		return err
	}
	if resp.Error != nil {
		ce := &CallError{Op: req.op, Kind: adapter.KindProtocolRejected, Exit: -1, Output: n, socket: true, Err: errErrorResponse}
		if knownCodes[resp.Error.Code] {
			ce.Code = resp.Error.Code
		}
		return ce
	}
	if resp.Result == nil {
		return &CallError{Op: req.op, Kind: adapter.KindProtocolRejected, Exit: -1, Output: n, socket: true, socketLevel: true, Err: errBadResponse}
	}
	return nil
}

// ping asks the server for its version and protocol.
func (t *socketTransport) ping(ctx, closed context.Context, deadline time.Time) (pong, error) {
	resp, n, err := t.roundTrip(ctx, closed, deadline, OpReport, pingLine)
	if err != nil {
		return pong{}, err
	}
	if resp.Result == nil || resp.Result.Type != "pong" || resp.Result.Protocol <= 0 {
		ce := &CallError{Op: OpReport, Kind: adapter.KindProtocolRejected, Exit: -1, Output: n, socket: true, socketLevel: true, Err: errBadResponse}
		if resp.Error != nil && knownCodes[resp.Error.Code] {
			ce.Code = resp.Error.Code
		}
		return pong{}, ce
	}
	return pong{Version: resp.Result.Version, Protocol: resp.Result.Protocol}, nil
}

// roundTrip dials, writes line and reads one response line of at most
// maxResponse bytes, all before deadline. It returns the parsed response
// and its size, or ctx's error, ErrClosed, or a CallError (timeout at the
// deadline, protocol_rejected otherwise, server_not_running when nothing
// listens). The response is never logged.
func (t *socketTransport) roundTrip(ctx, closed context.Context, deadline time.Time, op Op, line []byte) (wireResponse, int64, error) {
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	stopClose := context.AfterFunc(closed, cancel)
	defer stopClose()

	failed := func(err error, n int64) (wireResponse, int64, error) {
		switch {
		case ctx.Err() != nil:
			return wireResponse{}, n, ctx.Err()
		case closed.Err() != nil:
			return wireResponse{}, n, adapter.ErrClosed
		case cctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
			return wireResponse{}, n, &CallError{Op: op, Kind: adapter.KindTimeout, Exit: -1, Output: n, socket: true, socketLevel: true, Err: context.DeadlineExceeded}
		}
		return wireResponse{}, n, &CallError{Op: op, Kind: adapter.KindProtocolRejected, Exit: -1, Output: n, socket: true, socketLevel: true, Err: err}
	}

	conn, err := dialSocket(cctx, t.path)
	if err != nil {
		if cctx.Err() == nil && notListening(err) {
			// What the CLI reports when nothing listens (CONTRACT §1.5).
			return wireResponse{}, 0, &CallError{Op: op, Kind: adapter.KindProtocolRejected, Code: "server_not_running", Exit: -1, socket: true, socketLevel: true, Err: err}
		}
		return failed(err, 0)
	}
	defer conn.Close()
	// A cancelled ctx, or Close, wakes a blocked read or write at once.
	stopWake := context.AfterFunc(cctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stopWake()
	conn.SetDeadline(deadline)

	if _, err := conn.Write(line); err != nil {
		return failed(err, 0)
	}
	r := bufio.NewReaderSize(io.LimitReader(conn, maxResponse+1), 4096)
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		n := int64(len(buf))
		switch {
		case n > maxResponse:
			return failed(errLongResponse, n)
		case errors.Is(err, io.EOF):
			return failed(errNoResponse, n)
		}
		return failed(err, n)
	}
	n := int64(len(buf))
	if n > maxResponse {
		return failed(errLongResponse, n)
	}
	var resp wireResponse
	if err := json.Unmarshal(bytes.TrimSpace(buf), &resp); err != nil || (resp.Result == nil && resp.Error == nil) {
		return failed(errBadResponse, n)
	}
	return resp, n, nil
}

// notListening reports whether a dial error means no server listens at the
// path: the file is missing, or nothing accepts on it (a stale socket).
func notListening(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) || pipeMissing(err)
}
