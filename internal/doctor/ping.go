package doctor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/panestate/panestate/adapter"
)

// pingTimeout bounds the doctor's own ping of the Herdr server.
const pingTimeout = 2 * time.Second

// maxPong bounds what is read of the server's answer, as the reporter does.
const maxPong = 64 << 10

// serverPing is what the Herdr server answered to the doctor's ping on its
// socket, the same question the reporter asks once per claim.
type serverPing struct {
	Version  string `json:"version,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	// Error says why there is no answer: nothing listens, the deadline
	// passed, the answer was no pong.
	Error string `json:"error,omitempty"`
}

// pingRequest is Herdr's ping: one JSON line on a fresh connection
// (CONTRACT §2.1-2.2). The id is the doctor's own.
const pingRequest = `{"id":"panestate-doctor:ping","method":"ping","params":{}}` + "\n"

// ping asks the Herdr server at socket (HERDR_SOCKET_PATH) for its version
// and protocol, within pingTimeout. It only reads: a ping changes nothing.
func ping(ctx context.Context, socket string) serverPing {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	conn, err := dial(ctx, socket)
	if err != nil {
		return serverPing{Error: "cannot connect: " + err.Error()}
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// Close the connection when ctx ends before the deadline does (the
	// doctor was interrupted).
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := io.WriteString(conn, pingRequest); err != nil {
		return serverPing{Error: "sending the ping: " + err.Error()}
	}
	line, err := bufio.NewReaderSize(io.LimitReader(conn, maxPong), maxPong).ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) || errors.Is(err, io.EOF) && len(line) == maxPong {
			return serverPing{Error: fmt.Sprintf("answer longer than %d bytes", maxPong)}
		}
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return serverPing{Error: "closed without an answer"}
		}
		return serverPing{Error: "reading the answer: " + err.Error()}
	}
	return parsePong(line)
}

// parsePong reads a ping's answer. It never quotes the server's bytes.
func parsePong(line []byte) serverPing {
	var resp struct {
		Result *struct {
			Type     string `json:"type"`
			Version  string `json:"version"`
			Protocol int    `json:"protocol"`
		} `json:"result"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return serverPing{Error: fmt.Sprintf("not a JSON answer (%d bytes)", len(line))}
	}
	switch r := resp.Result; {
	case resp.Error != nil:
		return serverPing{Error: "error answer " + adapter.Bound(resp.Error.Code, 80)}
	case r == nil || r.Type != "pong" || r.Protocol <= 0:
		return serverPing{Error: "no pong in the answer"}
	default:
		return serverPing{Version: adapter.Bound(r.Version, 80), Protocol: r.Protocol}
	}
}
