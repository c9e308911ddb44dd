// Package events is the events protocol: JSON lines that describe what an
// agent's chat session does, for programs that cannot import panestate.
// `panestate events` reads it on stdin, and so does examples/chat.
//
// # Lines
//
// One JSON object per line. Blank lines and lines starting with # are
// ignored. The ops:
//
//	{"op":"agent_start"}
//	{"op":"agent_settled"}
//	{"op":"phase","phase":"awaiting|thinking|streaming|tool_execution|idle|completed|error"}
//	{"op":"prompt_start","id":"p1","kind":"approval|question|secret|menu"}
//	{"op":"prompt_end","id":"p1"}
//	{"op":"workflows","availability":"ready|unavailable|recovering","roots":[{"id":"r1","status":"executing","needs_attention":false}]}
//	{"op":"tasks","running":2}
//	{"op":"identity","session_id":"abc","session_path":"/abs/path/session.jsonl","resume":["chat","--resume","abc"]}
//	{"op":"sleep","ms":50}
//	{"op":"quit"}
//
// Each op calls the session.Store method of the same name. The protocol
// keeps the hosts' own words: awaiting, thinking, streaming and
// tool_execution are all session.PhaseWorking, and idle (or none) is
// session.PhaseIdle; question, secret and menu prompts are all
// session.PromptInput; a workflows line folds its roots into
// session.Workflows (roots with the same id count once, the last wins; a
// completed, finished, failed or cancelled root sets nothing; unavailable
// and recovering set Unknown; "" and none mean ready). A line that is
// not valid JSON, names an unknown op, has a field the op does not take or
// a bad value, or is longer than 1 MiB, is reported with its line number
// and skipped.
package events
