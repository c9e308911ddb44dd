package agentlab

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// OpenAI is the [Flavour] of OpenAI's Responses API, as Codex calls it
// through a model provider with wire_api = "responses": POST
// <base_url>/responses, streamed as server-sent events (response.created,
// response.output_item.added, response.output_text.delta,
// response.output_item.done, response.completed). A tool call is a
// function_call item whose arguments are the [ToolCall]'s Input as a JSON
// string; its answer comes back as a function_call_output item.
func OpenAI(ctx context.Context, w http.ResponseWriter, r *http.Request, answer func(Request) Reply) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var in openaiRequest
	body, ok := ReadJSON(w, r, &in)
	if !ok {
		return
	}
	rep := answer(in.request(r.URL.Path, body))
	s := NewSSE(w)
	seq := 0
	event := func(typ string, data map[string]any) error {
		data["type"], data["sequence_number"] = typ, seq
		seq++
		return s.Event(typ, data)
	}
	id := "resp_" + strings.Repeat("0", 8)
	if event("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}}) != nil {
		return
	}
	if rep.Stall {
		Stall(ctx, r)
		return
	}
	var items []map[string]any
	if rep.Text != "" || rep.Tool == nil {
		items = append(items, map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}})
	}
	if c := rep.Tool; c != nil {
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		args, _ := json.Marshal(input)
		items = append(items, map[string]any{"type": "function_call", "id": "fc_" + c.ID, "call_id": c.ID, "name": c.Name,
			"arguments": string(args), "status": "completed"})
	}
	for i, it := range items {
		if it["type"] == "message" {
			added := map[string]any{"type": "message", "id": it["id"], "role": "assistant", "content": []any{}}
			if event("response.output_item.added", map[string]any{"output_index": i, "item": added}) != nil ||
				event("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": rep.Text}) != nil {
				return
			}
		}
		if event("response.output_item.done", map[string]any{"output_index": i, "item": it}) != nil {
			return
		}
	}
	_ = event("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed",
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
			"input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}}})
}

// openaiRequest is the part of a Responses request the flavour reads.
type openaiRequest struct {
	Model string            `json:"model"`
	Tools []json.RawMessage `json:"tools"`
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		CallID  string          `json:"call_id"`
		Output  json.RawMessage `json:"output"`
	} `json:"input"`
}

// request reduces in to a Request: the prompt is the last user message,
// the results the function_call_output items after it.
func (in openaiRequest) request(path string, body []byte) Request {
	req := Request{Path: path, Model: in.Model, Tools: len(in.Tools), Raw: body}
	for i := len(in.Input) - 1; i >= 0; i-- {
		it := in.Input[i]
		switch {
		case it.Type == "function_call_output":
			req.Results = append([]Result{{ID: it.CallID, Output: openaiText(it.Output)}}, req.Results...)
			continue
		case it.Type == "message" && it.Role == "user":
			req.Prompt = openaiText(it.Content)
		default:
			continue
		}
		break
	}
	return req
}

// openaiText reads content that is a string or a list of parts with text.
func openaiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var text []string
	for _, p := range parts {
		text = append(text, p.Text)
	}
	return strings.Join(text, "\n")
}
