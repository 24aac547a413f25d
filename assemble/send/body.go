package send

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Body is the JSON body Stream posts for cfg and req, byte for byte
// (model named, "stream": true), indented for people; turn files keep it.
// Stream posts the same bytes without the indentation (see encode).
func Body(cfg Config, req Request) ([]byte, error) {
	api := cfg.API
	if api == "" {
		api = Responses
	}
	if err := validate(cfg, api, Endpoint(cfg)); err != nil {
		return nil, err
	}
	compact, err := encode(cfg, api, req)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(compact) + len(compact)/8)
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("send: indent the %s request: %w", api, err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// encode is the body Stream posts: go-openai's request value as go-openai
// marshals it, with two changes that its types cannot express. Code reads
// as code (encoding/json writes <, > and & as \u003c, \u003e, \u0026, which
// every JSON reader takes back, but a person reading a turn file should
// not have to), and a chat temperature of 0 is sent (go-openai's chat
// field is a float32 with omitempty, so it would drop it and leave the
// server's default). The transport swaps go-openai's body for this one, so
// what Body shows is what goes out.
func encode(cfg Config, api API, req Request) ([]byte, error) {
	var v any
	if api == Chat {
		r := chatRequest(cfg, req)
		r.Stream = true // go-openai sets it when it posts
		v = r
	} else {
		r := responsesRequest(cfg, req)
		r.Stream = true
		v = r
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("send: encode the %s request: %w", api, err)
	}
	b = unescapeHTML(b)
	if api == Chat && cfg.Temperature != nil && *cfg.Temperature == 0 && len(b) > 0 && b[len(b)-1] == '}' {
		b = append(b[:len(b)-1], `,"temperature":0}`...)
	}
	return b, nil
}

// unescapeHTML turns encoding/json's \u003c, \u003e and \u0026 back into
// <, > and &, leaving every other escape (\\u003c is a backslash and text)
// as it is.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) && string(b[i+2:i+4]) == "00" {
			switch string(b[i+4 : i+6]) {
			case "3c":
				out, i = append(out, '<'), i+5
				continue
			case "3e":
				out, i = append(out, '>'), i+5
				continue
			case "26":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out = append(out, c, b[i+1]) // an escape of two bytes or more: copy its first two
		i++
	}
	return out
}

// responsesRequest lays req out for POST /responses. Assistant turns of
// the history carry their answer as a plain string: OpenAI accepts a string
// for any role (an "easy input message"), while a list of items would have
// to be output_text for the assistant (input_text is refused there) and
// local servers (Ollama, vLLM, LM Studio) implement the string form first.
func responsesRequest(cfg Config, req Request) openai.CreateResponseRequest {
	r := openai.CreateResponseRequest{
		Model:           cfg.Model,
		Instructions:    req.Instructions,
		MaxOutputTokens: cfg.MaxOutputTokens,
		Temperature:     cfg.Temperature,
	}
	history := req.History
	// The Responses API stores every response unless told not to; only
	// ServerState, which needs the stored turns, lets it.
	store := cfg.ServerState
	r.Store = &store
	if cfg.ServerState {
		if n := len(history); n > 0 && history[n-1].ResponseID != "" {
			// The server holds the earlier turns, instructions excepted:
			// those are sent again on every request (the API does not
			// carry them over previous_response_id).
			r.PreviousResponseID = history[n-1].ResponseID
			history = nil
		}
	}
	input := make([]any, 0, 2*len(history)+1)
	for _, t := range history {
		input = append(input,
			openai.ResponseInputMessage{Role: "user", Content: []openai.ResponseInputText{{Type: "input_text", Text: t.Instruction}}},
			openai.ResponseInputMessage{Role: "assistant", Content: t.Answer})
	}
	items := []openai.ResponseInputText{{Type: "input_text", Text: req.Instruction}}
	if req.Context != "" {
		items = append(items, openai.ResponseInputText{Type: "input_text", Text: req.Context})
	}
	r.Input = append(input, openai.ResponseInputMessage{Role: "user", Content: items})
	return r
}

// chatRequest lays req out for POST /chat/completions.
//
// The output cap goes in max_completion_tokens for OpenAI's own endpoint
// and for its reasoning models (o1/o3/o4, gpt-5: they refuse max_tokens,
// and go-openai refuses to send it for them), and in max_tokens for every
// other server: llama.cpp, Ollama, LM Studio and older vLLM only know
// max_tokens and would silently ignore the newer name.
//
// A temperature of 0 is added by encode: go-openai's field would drop it.
func chatRequest(cfg Config, req Request) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{
		Model:         cfg.Model,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if cfg.MaxOutputTokens > 0 {
		if completionTokens(cfg) {
			r.MaxCompletionTokens = cfg.MaxOutputTokens
		} else {
			r.MaxTokens = cfg.MaxOutputTokens
		}
	}
	if cfg.Temperature != nil {
		r.Temperature = *cfg.Temperature
	}
	msgs := make([]openai.ChatCompletionMessage, 0, 2*len(req.History)+2)
	if req.Instructions != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: req.Instructions})
	}
	for _, t := range req.History {
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: textParts(t.Instruction)},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: t.Answer})
	}
	parts := textParts(req.Instruction)
	if req.Context != "" {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: req.Context})
	}
	r.Messages = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: parts})
	return r
}

func textParts(text string) []openai.ChatMessagePart {
	return []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}
}

// completionTokens reports whether the chat output cap is sent as
// max_completion_tokens (see chatRequest).
func completionTokens(cfg Config) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(cfg.Model, p) {
			return true
		}
	}
	u, err := url.Parse(cfg.BaseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// Endpoint is the URL Stream posts to for cfg, without user info, query or
// fragment, so it can be printed and kept.
func Endpoint(cfg Config) string {
	suffix := "/responses"
	if cfg.API == Chat {
		suffix = "/chat/completions"
	}
	return cleanBase(cfg.BaseURL) + suffix
}

// cleanBase is base without user info, query, fragment or trailing slash.
func cleanBase(base string) string {
	base = strings.TrimRight(base, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		// Not a URL: keep only what precedes anything secret-looking.
		if i := strings.IndexAny(base, "?#@"); i >= 0 {
			base = base[:i]
		}
		return base
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return strings.TrimRight(u.String(), "/")
}

// validate checks cfg before anything is sent.
func validate(cfg Config, api API, endpoint string) error {
	bad := func(msg string) error {
		return &Error{Endpoint: endpoint, Kind: ErrConfig, Message: msg}
	}
	switch api {
	case Responses, Chat:
	default:
		return bad(fmt.Sprintf("unknown api %q: use %q or %q", api, Responses, Chat))
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return bad("no model named: set [llm] model in the config or pass --model")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad(fmt.Sprintf("base URL %q is not an http(s) URL: set [llm] base_url, e.g. https://api.openai.com/v1 or http://localhost:11434/v1", cleanBase(cfg.BaseURL)))
	}
	if u.RawQuery != "" {
		return bad("the base URL has a query; put the key in the variable named by [llm] api_key_env, not in base_url")
	}
	if cfg.ServerState && api == Chat {
		return bad("server state (previous_response_id) needs api = \"responses\"")
	}
	return nil
}
