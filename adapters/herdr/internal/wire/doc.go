// Package wire is Herdr's socket API as far as an agent-state reporter uses
// it: the newline-delimited JSON shapes, the framing limits, and a small
// client. The herdr adapter's socket transport and the emulated Herdr of
// package herdrtest (its server and its fake CLI) are built on it, so that
// both ends speak exactly one definition of the wire.
//
// The facts come from the project's Herdr contract (CONTRACT.md, read from
// Herdr 0.8.2's source; section numbers below are its) and from HERDR-0.9.md
// for what changed in 0.9.x. Where a rule is inferred rather than read, its
// comment says so.
//
// # Framing
//
// One request per connection (§2.1): the client writes one JSON object and
// a newline, the server answers with one JSON line and closes. The server
// allows [RequestLineTimeout] to receive the line and [MaxRequestLine]
// bytes for it; past either, for a line that ends without a newline, or
// for one that is not UTF-8 (read from Herdr's src/api/server.rs, not in
// the contract), it closes the connection without a response. An empty
// line gets no response either. [ReadRequestLine] is the server's side of
// that rule.
//
// # Shapes
//
// A [Request] is {"id","method","params"} (§2.2). The parameters of the
// agent methods are [ReportAgentParams], [ReleaseAgentParams] and
// [ReportAgentSessionParams]; they marshal in Herdr's key order and omit
// absent optional fields, as Herdr's CLI does. Their UnmarshalJSON methods
// apply serde's rules on the server side: a missing required field, a
// wrong type, a negative or fractional seq, an unknown state, a field given
// twice or trailing characters fails, which the server answers with
// [CodeInvalidRequest] and an empty id; keys match in their exact case
// only, and unknown ones are ignored.
//
// A [Response] is either {"id","result":{"type":...}} or
// {"id","error":{"code","message"}} (§2.3). [OK], [NewSuccess] and
// [NewError] build them; [Pong] is the result of [MethodPing].
//
// # Client
//
// [Do] sends one request on a new connection and reads one response of at
// most [MaxResponse] bytes, within the deadline of its context;
// [DoGuarded] adds the checks and bounds of a [Guard], and [RoundTrip] is
// the same exchange of one line, undecoded. The exchange is a plain
// net.Conn: its deadline is the connection's, and a cancelled context
// moves that deadline to the past. Requests and responses are written and
// read by encoding/json. [Ping] asks
// for the server's version and protocol. [Dial] connects: a Unix socket at
// HERDR_SOCKET_PATH, or on Windows the named pipe `\\.\pipe\` followed by
// that path, as Herdr's own Windows clients derive it (HERDR-0.9.md,
// "Windows"). Failures are typed: [ErrNotRunning] when nothing listens,
// [ErrEmptyResponse] when the server closes without answering,
// [ErrResponseTooLarge], [ErrMalformedResponse], and the context's error at
// its deadline. A response is never included in an error's text.
package wire
