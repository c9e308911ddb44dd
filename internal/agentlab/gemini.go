package agentlab

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Gemini is Gemini CLI 0.61.0.
var Gemini = Agent{Name: "gemini", Bin: "gemini", Package: "@google/gemini-cli", Version: "0.61.0"}

// geminiUtility is what the mock answers Gemini CLI's utility requests
// (generateContent, not streamed: the model router's complexity score,
// the next-speaker check, a session's summary): one JSON object that
// satisfies each of their schemas. An answer that does not parse makes
// the router retry for about half a minute.
const geminiUtility = `{"complexity_reasoning":"simple","complexity_score":10,"reasoning":"done","next_speaker":"user"}`

// GeminiAPI is the [Flavour] of the Gemini API, as Gemini CLI calls it
// with GOOGLE_GEMINI_BASE_URL set: POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse for a turn of its
// main loop, streamed as server-sent events of one GenerateContentResponse
// each ("data:" lines, no event names); POST ...:generateContent for its
// utility requests, answered with geminiUtility without asking the
// script; ...:countTokens with a fixed count. A tool call is one
// functionCall part.
func GeminiAPI(ctx context.Context, w http.ResponseWriter, r *http.Request, answer func(Request) Reply) {
	path := r.URL.Path
	_, method, _ := strings.Cut(path[strings.LastIndexByte(path, '/')+1:], ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(path, "/v1beta/models/") {
		http.NotFound(w, r)
		return
	}
	switch method {
	case "countTokens":
		_ = json.NewEncoder(w).Encode(map[string]int{"totalTokens": 100})
		return
	case "generateContent":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(geminiResponse([]map[string]any{{"text": geminiUtility}}))
		return
	case "streamGenerateContent":
	default:
		http.NotFound(w, r)
		return
	}
	var in geminiRequest
	body, ok := ReadJSON(w, r, &in)
	if !ok {
		return
	}
	model, _, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
	rep := answer(in.request(path, model, body))
	s := NewSSE(w)
	if rep.Stall {
		Stall(ctx, r)
		return
	}
	var parts []map[string]any
	if rep.Text != "" {
		parts = append(parts, map[string]any{"text": rep.Text})
	}
	if c := rep.Tool; c != nil {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": c.Input}})
	}
	_ = s.Event("", geminiResponse(parts))
}

// geminiResponse is a GenerateContentResponse of one finished candidate
// with parts.
func geminiResponse(parts []map[string]any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
	}
}

// geminiRequest is what GeminiAPI reads of a GenerateContentRequest.
type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
}

// geminiPart is a part of a content: text, or the result of a call.
type geminiPart struct {
	Text             string `json:"text"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse"`
}

// request decodes in: the last content's text parts (after the session
// context Gemini CLI puts first) and the results it carries.
func (in geminiRequest) request(path, model string, body []byte) Request {
	req := Request{Path: path, Model: model, Raw: body}
	for _, t := range in.Tools {
		req.Tools += len(t.FunctionDeclarations)
	}
	if len(in.Contents) == 0 {
		return req
	}
	last := in.Contents[len(in.Contents)-1]
	if last.Role != "user" {
		return req
	}
	var texts []string
	for _, p := range last.Parts {
		switch {
		case p.FunctionResponse != nil:
			res := Result{ID: p.FunctionResponse.ID}
			if out, ok := p.FunctionResponse.Response["output"].(string); ok {
				res.Output = out
			}
			if e, ok := p.FunctionResponse.Response["error"].(string); ok {
				res.Output, res.Error = e, true
			}
			req.Results = append(req.Results, res)
		case p.Text != "" && !strings.HasPrefix(p.Text, "<session_context>"):
			texts = append(texts, p.Text)
		}
	}
	req.Prompt = strings.Join(texts, "\n")
	return req
}

// SetupGemini prepares home for Gemini CLI talking to model (a
// [GeminiAPI] server): ~/.gemini/settings.json selects API-key
// authentication (no auth dialog) and turns off the update check and
// usage statistics; ~/.gemini/trustedFolders.json trusts the work
// directory (no trust dialog, and Gemini CLI runs no hook at all, those
// of ~/.gemini/settings.json included, in a folder it does not trust);
// GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL point it at the mock. Then
// `panestate install gemini` adds the hooks to ~/.gemini/settings.json,
// as a user would.
func SetupGemini(t testing.TB, home *Home, model *ModelServer) {
	t.Helper()
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
	}
	for rel, v := range map[string]any{
		".gemini/settings.json":       settings,
		".gemini/trustedFolders.json": map[string]string{home.Work: "TRUST_FOLDER"},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		home.WriteFile(t, rel, b)
	}
	home.Setenv("GEMINI_API_KEY=agentlab-gemini-key", "GOOGLE_GEMINI_BASE_URL="+model.URL)
	home.Install(t, "gemini")
}
