package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"syscall"
	"unicode/utf8"
)

// Framing errors of [ReadRequestLine]. For each, Herdr's server closes the
// connection without a response (§2.1).
var (
	// ErrNoNewline: the client closed its side before a newline.
	ErrNoNewline = errors.New("wire: request line ended without a newline")
	// ErrLineTooLong: more than MaxRequestLine bytes without a newline.
	ErrLineTooLong = errors.New("wire: request line is too large")
	// ErrInvalidUTF8: the line is not valid UTF-8. Not in the contract;
	// read from Herdr 0.8.2's source: the server turns the line into a
	// String and fails the connection when it cannot
	// (src/api/server.rs:529-533).
	ErrInvalidUTF8 = errors.New("wire: request line is not valid UTF-8")
)

// ReadRequestLine reads one request line from r, a server's side of a
// connection, and returns it without its newline. It reads at most
// [MaxRequestLine] bytes plus the newline (Herdr counts the bytes read
// before the newline against the limit: src/api/server.rs:527-539). The
// caller sets the
// [RequestLineTimeout] deadline on the connection; a timeout is returned as
// the read's error.
//
// Bytes after the newline are not looked at: one request per connection.
func ReadRequestLine(r io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxRequestLine+1 ||
			(len(line)+len(chunk) == MaxRequestLine+1 && chunk[len(chunk)-1] != '\n') {
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = line[:len(line)-1]
			if !utf8.Valid(line) {
				return nil, ErrInvalidUTF8
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, ErrNoNewline
		default:
			return nil, err
		}
	}
}

// readResponse reads one response line of at most max bytes from r: up to a
// newline, or to EOF. It fails with ErrEmptyResponse when nothing but
// whitespace arrived, and ErrResponseTooLarge past max.
func readResponse(r io.Reader, max int) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) > max {
			return nil, ErrResponseTooLarge
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		start := len(buf)
		n, err := r.Read(buf[start:min(cap(buf), max+1)])
		buf = buf[:start+n]
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			buf = buf[:start+i]
			break
		}
		if errors.Is(err, io.EOF) {
			if len(buf) > max {
				return nil, ErrResponseTooLarge
			}
			break
		}
		if err != nil {
			if len(buf) == 0 && errors.Is(err, syscall.ECONNRESET) {
				// The server closed with our request unread: no answer.
				return nil, fmt.Errorf("%w (%w)", ErrEmptyResponse, err)
			}
			return nil, err
		}
	}
	if len(bytes.TrimSpace(buf)) == 0 {
		return nil, ErrEmptyResponse
	}
	return buf, nil
}
