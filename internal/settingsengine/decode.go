package settingsengine

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"syscall"
	"unicode/utf8"
)

var (
	// ErrTooLarge is wrapped by the error for a file larger than
	// [MaxFileSize].
	ErrTooLarge = errors.New("settings: file larger than 1 MiB")
	// ErrSyntax is wrapped by the error for a file that is not valid JSON
	// or whose top-level value is not an object.
	ErrSyntax = errors.New("settings: not a JSON object")
)

// FileError is an error about one settings or trust file. Line and Column
// (1-based, column counted in characters) are set for JSON syntax errors and
// zero otherwise.
type FileError struct {
	Path   string
	Line   int
	Column int
	Err    error
}

// Error returns "settings: <path>:<line>:<column>: <reason>".
func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("settings: %s:%d:%d: %v", e.Path, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("settings: %s: %v", e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// syntaxError is a decoding failure at a byte index.
type syntaxError struct {
	// offset is the index in the file of the offending byte, or the
	// file's length when the input ended too early.
	offset int64
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }
func (e *syntaxError) Is(t error) bool {
	return t == ErrSyntax
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// msgComment replaces encoding/json's "invalid character '/'" when the
// slash starts a comment.
const msgComment = "comments are not allowed in JSON"

// isComment reports whether b starts with "//" or "/*".
func isComment(b []byte) bool {
	return bytes.HasPrefix(b, []byte("//")) || bytes.HasPrefix(b, []byte("/*"))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// decode parses a settings document: one optional UTF-8 BOM, then exactly one
// JSON object. Zero bytes (after the BOM) decode to an empty object. Numbers
// are kept as json.Number so they round-trip unchanged. A syntax error is a
// *syntaxError carrying the index in data of the offending byte (len(data)
// when the input ends too early).
func decode(data []byte) (map[string]any, error) {
	skip := 0
	if bytes.HasPrefix(data, bom) {
		skip = len(bom)
	}
	body := data[skip:]
	if len(body) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// se.Offset counts the bytes read, the offending one included.
			at := max(se.Offset-1, 0)
			msg := err.Error()
			if at < int64(len(body)) && isComment(body[at:]) {
				msg = msgComment
			}
			return nil, &syntaxError{offset: int64(skip) + at, msg: msg}
		case errors.Is(err, io.EOF):
			return nil, &syntaxError{offset: int64(len(data)), msg: "no JSON value (only whitespace)"}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &syntaxError{offset: int64(len(data)), msg: "unexpected end of JSON input"}
		default:
			return nil, &syntaxError{offset: int64(skip) + dec.InputOffset(), msg: err.Error()}
		}
	}
	// Anything but white space after the value is an error, reported at
	// its first byte.
	end := dec.InputOffset()
	for end < int64(len(body)) && isSpace(body[end]) {
		end++
	}
	if end < int64(len(body)) {
		msg := "unexpected data after the top-level value"
		if isComment(body[end:]) {
			msg = msgComment
		}
		return nil, &syntaxError{offset: int64(skip) + end, msg: msg}
	}
	m, ok := v.(map[string]any)
	if !ok {
		first := bytes.IndexFunc(body, func(r rune) bool { return r > 0x7f || !isSpace(byte(r)) })
		return nil, &syntaxError{offset: int64(skip + first), msg: "top-level value must be a JSON object, got " + jsonType(v)}
	}
	return m, nil
}

// position turns a byte index in data into a 1-based line and character
// column. An index of len(data) is the position just past the last byte.
func position(data []byte, offset int64) (line, col int) {
	if bytes.HasPrefix(data, bom) { // editors do not count the BOM as a column
		data, offset = data[len(bom):], max(offset-int64(len(bom)), 0)
	}
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	col = utf8.RuneCount(before[start:]) + 1
	return line, col
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// describe renders v briefly for a warning.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	s := string(b)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return jsonType(v) + " " + s
}

// readKind classifies what a read found.
type readKind uint8

const (
	readData readKind = iota
	readMissing
	readEmpty
	readFailed
)

// readResult is one read of a file.
type readResult struct {
	kind readKind
	data []byte
	hash [32]byte
	err  error // readFailed: a *FileError
}

// errNotRegular is the reason given for a path that is a FIFO, a device, a
// socket or anything else that is neither a regular file nor a directory.
var errNotRegular = errors.New("not a regular file")

// readFile reads path, refusing more than MaxFileSize bytes. A missing file
// (or a missing directory on the way) is readMissing; zero bytes is
// readEmpty. Only a regular file (or a symbolic link to one) is read: the
// type is checked before opening, and again on the open file, and the open
// itself does not block where the platform allows (see openRegular), so a
// FIFO put in place of the file can never hang the caller.
func readFile(path string) readResult {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return readResult{kind: readMissing}
		}
		return failed(path, err)
	}
	if err := checkRegular(fi); err != nil {
		return failed(path, err)
	}
	f, err := openRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return readResult{kind: readMissing}
		}
		return failed(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return failed(path, err)
	}
	if len(data) > MaxFileSize {
		return failed(path, ErrTooLarge)
	}
	if len(data) == 0 {
		return readResult{kind: readEmpty, hash: sha256.Sum256(nil)}
	}
	return readResult{kind: readData, data: data, hash: sha256.Sum256(data)}
}

// checkRegular refuses anything but a regular file of at most MaxFileSize
// bytes.
func checkRegular(fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return errors.New("is a directory")
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
	case fi.Size() > MaxFileSize:
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, fi.Size())
	}
	return nil
}

// openRegular opens path for reading with openNoBlock, then checks the open
// file's type again, in case the path was replaced after it was checked.
func openRegular(path string) (*os.File, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(fi)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

func failed(path string, err error) readResult {
	return readResult{kind: readFailed, err: &FileError{Path: path, Err: err}, hash: sha256.Sum256([]byte(err.Error()))}
}

// parse decodes r.data for the file at path into a *FileError on failure.
func parse(path string, data []byte) (map[string]any, error) {
	m, err := decode(data)
	if err != nil {
		fe := &FileError{Path: path, Err: err}
		var se *syntaxError
		if errors.As(err, &se) {
			fe.Line, fe.Column = position(data, se.offset)
		}
		return nil, fe
	}
	return m, nil
}

// layerContent is what one settings file contributes, already checked
// against the registered sections.
type layerContent struct {
	hash     [32]byte
	sections map[string]any  // section name -> map of known keys without "enabled" and nulls
	enabled  map[string]bool // literal booleans only
	warnings []Warning
	raw      map[string]any // the whole document (trust store only)
}

// extract keeps the registered sections of top and records a warning for
// every value it ignores.
func extract(c *config, path string, top map[string]any) *layerContent {
	lc := &layerContent{sections: map[string]any{}, enabled: map[string]bool{}}
	for _, s := range c.sections {
		v, ok := top[s.Name]
		if !ok || v == nil {
			continue
		}
		sec, ok := v.(map[string]any)
		if !ok {
			lc.warnings = append(lc.warnings, Warning{File: path, Key: s.Name, Message: "must be a JSON object, got " + describe(v) + "; this file's section is ignored"})
			continue
		}
		keys := make([]string, 0, len(sec))
		for k := range sec {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := map[string]any{}
		for _, k := range keys {
			v := sec[k]
			switch {
			case k == "enabled":
				switch b := v.(type) {
				case nil:
				case bool:
					lc.enabled[s.Name] = b
				default:
					lc.warnings = append(lc.warnings, Warning{File: path, Key: s.Name + ".enabled", Message: "must be true, false or null, got " + describe(v) + "; this file's value is ignored"})
				}
			case !c.known[s.Name][k]:
				lc.warnings = append(lc.warnings, Warning{File: path, Key: s.Name + "." + k, Message: "unknown key; ignored"})
			case v != nil:
				out[k] = dropNulls(v)
			}
		}
		if len(out) > 0 {
			lc.sections[s.Name] = out
		}
	}
	return lc
}

// dropNulls removes null members from objects, recursively, so that a null
// leaves the lower layer's value in place.
func dropNulls(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if x != nil {
			out[k] = dropNulls(x)
		}
	}
	return out
}

// canonical renders v as compact JSON with sorted object keys.
func canonical(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}
