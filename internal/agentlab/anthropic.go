package agentlab

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// Anthropic is the [Flavour] of Anthropic's Messages API, as Claude Code
// calls it with ANTHROPIC_BASE_URL set: POST /v1/messages, streamed as
// server-sent events (message_start, content_block_start/delta/stop,
// message_delta, message_stop) when the request asks for a stream, one
// JSON message otherwise; POST /v1/messages/count_tokens answers a fixed
// count. A tool call is a tool_use block whose input arrives as one
// input_json_delta.
func Anthropic(ctx context.Context, w http.ResponseWriter, r *http.Request, answer func(Request) Reply) {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/v1/messages/count_tokens"):
		_ = json.NewEncoder(w).Encode(map[string]int{"input_tokens": 100})
		return
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/v1/messages"):
	default:
		http.NotFound(w, r)
		return
	}
	var in anthropicRequest
	body, ok := ReadJSON(w, r, &in)
	if !ok {
		return
	}
	req := in.request(path, body)
	rep := answer(req)
	blocks := anthropicBlocks(rep)
	stop := "end_turn"
	if rep.Tool != nil {
		stop = "tool_use"
	}
	msg := map[string]any{
		"id": "msg_" + strings.Repeat("0", 8), "type": "message", "role": "assistant", "model": in.Model,
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}
	if !in.Stream {
		msg["content"] = blocks
		msg["stop_reason"] = stop
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	msg["content"] = []any{}
	s := NewSSE(w)
	if s.Event("message_start", map[string]any{"type": "message_start", "message": msg}) != nil {
		return
	}
	if rep.Stall {
		if rep.Text != "" {
			for _, ev := range []struct {
				name string
				data map[string]any
			}{
				{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}},
				{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": rep.Text}}},
				{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
			} {
				if s.Event(ev.name, ev.data) != nil {
					return
				}
			}
		}
		Stall(ctx, r)
		return
	}
	for i, b := range blocks {
		start, delta := b, map[string]any{}
		switch b["type"] {
		case "text":
			start = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": b["text"]}
		case "tool_use":
			in, _ := json.Marshal(b["input"])
			start = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
		}
		for _, ev := range []struct {
			name string
			data map[string]any
		}{
			{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}},
			{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta}},
			{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}},
		} {
			if s.Event(ev.name, ev.data) != nil {
				return
			}
		}
	}
	delta := map[string]any{"stop_reason": stop, "stop_sequence": nil}
	if rep.Tool != nil && rep.Tool.Review != "" {
		delta["safeguard_results"] = anthropicReview(rep.Tool)
	}
	_ = s.Event("message_delta", map[string]any{"type": "message_delta", "delta": delta, "usage": map[string]int{"output_tokens": 5}})
	_ = s.Event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicReview is the server-side classifier's verdict on c, as Claude
// Code 2.1.328 reads it from a message_delta's safeguard_results: one
// "dangerous_tool_use" result with an "evaluated" status per tool use id,
// "flagged" or "not_flagged".
func anthropicReview(c *ToolCall) []any {
	outcome := "not_flagged"
	if c.Review == ReviewFlag {
		outcome = "flagged"
	}
	return []any{map[string]any{
		"type": "dangerous_tool_use",
		"status": map[string]any{"type": "available", "tool_uses": map[string]any{
			c.ID: map[string]any{"type": "evaluated", "outcome": outcome},
		}},
	}}
}

// anthropicBlocks is rep as the content blocks of a message.
func anthropicBlocks(rep Reply) []map[string]any {
	var blocks []map[string]any
	if rep.Text != "" || rep.Tool == nil {
		blocks = append(blocks, map[string]any{"type": "text", "text": rep.Text})
	}
	if c := rep.Tool; c != nil {
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
	}
	return blocks
}

// anthropicRequest is the part of a Messages request the flavour reads.
type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// anthropicBlock is a content block of a request's message.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// request reduces in to a Request.
func (in anthropicRequest) request(path string, body []byte) Request {
	req := Request{Path: path, Model: in.Model, Tools: len(in.Tools), Raw: body}
	for i := len(in.Messages) - 1; i >= 0; i-- {
		m := in.Messages[i]
		if m.Role != "user" {
			continue
		}
		var text []string
		for _, b := range anthropicContent(m.Content) {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "tool_result":
				var out []string
				for _, c := range anthropicContent(b.Content) {
					out = append(out, c.Text)
				}
				req.Results = append(req.Results, Result{ID: b.ToolUseID, Output: strings.Join(out, "\n"), Error: b.IsError})
			}
		}
		req.Prompt = strings.Join(text, "\n")
		break
	}
	return req
}

// anthropicContent reads content that is a string or a list of blocks.
func anthropicContent(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var blocks []anthropicBlock
	_ = json.Unmarshal(raw, &blocks)
	return blocks
}
