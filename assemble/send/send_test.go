package send_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

var apis = []send.API{send.Responses, send.Chat}

func config(srv *sendtest.Server, api send.API) send.Config {
	return send.Config{BaseURL: srv.URL, Model: "gpt-test", APIKey: "sk-test-SECRET-0123456789", API: api, Timeout: 10 * time.Second}
}

var request = send.Request{
	Instructions: "Be brief.",
	Instruction:  "[MODE: explain]\n[INSTRUCTION]\nWhat does main do?",
	Context:      "[CONTEXT]\n--- chunk 1 ---\nfunc main() {}",
}

// deltas collects onDelta's pieces.
type deltas struct {
	mu  sync.Mutex
	got []string
}

func (d *deltas) add(s string) { d.mu.Lock(); d.got = append(d.got, s); d.mu.Unlock() }

func asError(t *testing.T, err error, kind send.ErrorKind) *send.Error {
	t.Helper()
	var e *send.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *send.Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("kind = %q, want %q (err: %v)", e.Kind, kind, err)
	}
	return e
}

func TestStreamDeltasUsageID(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{
				Chunks: []string{"Main ", "starts ", "the ", "server."}, ResponseID: "resp_abc", Model: "gpt-test-2025",
				Usage: &sendtest.Usage{Input: 120, Output: 4, Cached: 64, Reasoning: 2},
			})
			var d deltas
			res, err := send.Stream(context.Background(), config(srv, api), request, d.add)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"Main ", "starts ", "the ", "server."}; !reflect.DeepEqual(d.got, want) {
				t.Errorf("deltas = %q, want %q", d.got, want)
			}
			if res.Text != "Main starts the server." || res.Status != send.StatusCompleted || res.Reason != "" {
				t.Errorf("result = %q %q %q", res.Text, res.Status, res.Reason)
			}
			if !res.HasUsage || res.Usage != (send.Usage{Input: 120, Output: 4, Cached: 64, Reasoning: 2}) {
				t.Errorf("usage = %v %+v", res.HasUsage, res.Usage)
			}
			wantID := "resp_abc"
			if api == send.Chat {
				wantID = "chatcmpl-resp_abc"
			}
			if res.ResponseID != wantID || res.Model != "gpt-test-2025" {
				t.Errorf("id, model = %q, %q", res.ResponseID, res.Model)
			}
			if want := srv.URL + "/" + map[send.API]string{send.Responses: "responses", send.Chat: "chat/completions"}[api]; res.Endpoint != want {
				t.Errorf("endpoint = %q, want %q", res.Endpoint, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-test-SECRET-0123456789" {
				t.Errorf("Authorization = %q", got)
			}
		})
	}
}

func TestStreamNoUsage(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{NoUsage: true})
			res, err := send.Stream(context.Background(), config(srv, api), request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.HasUsage || res.Text != "Hello, world." {
				t.Errorf("HasUsage = %v, text %q", res.HasUsage, res.Text)
			}
		})
	}
}

// posted sends req, checks that the body srv received is Body's for the
// same config and request, byte for byte but for the indentation, and
// returns it decoded.
func posted(t *testing.T, srv *sendtest.Server, cfg send.Config, req send.Request) map[string]any {
	t.Helper()
	if _, err := send.Stream(context.Background(), cfg, req, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	got, err := reqs[len(reqs)-1].JSON()
	if err != nil {
		t.Fatal(err)
	}
	body, err := send.Body(cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		t.Fatalf("Body is not JSON: %v\n%s", err, body)
	}
	if sent := reqs[len(reqs)-1].Body; !bytes.Equal(sent, compact.Bytes()) {
		t.Fatalf("posted body differs from Body:\nposted: %s\nBody:   %s", sent, compact.Bytes())
	}
	return got
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBodyResponses(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{})
	cfg := config(srv, send.Responses)
	got := posted(t, srv, cfg, request)
	want := jsonOf(t, `{
		"model": "gpt-test", "stream": true, "store": false, "instructions": "Be brief.",
		"input": [{"role": "user", "content": [
			{"type": "input_text", "text": "[MODE: explain]\n[INSTRUCTION]\nWhat does main do?"},
			{"type": "input_text", "text": "[CONTEXT]\n--- chunk 1 ---\nfunc main() {}"}]}]}`)
	if !reflect.DeepEqual(any(got), want) {
		t.Errorf("body = %v\nwant %v", got, want)
	}

	// History, settings, and a context left out.
	temp := float32(0.2)
	cfg.MaxOutputTokens, cfg.Temperature = 500, &temp
	req := send.Request{Instruction: "and then?", History: []send.Turn{{Instruction: "first?", Answer: "one <b>&</b>", ResponseID: "resp_1"}}}
	got = posted(t, srv, cfg, req)
	want = jsonOf(t, `{
		"model": "gpt-test", "stream": true, "store": false, "max_output_tokens": 500, "temperature": 0.2,
		"input": [
			{"role": "user", "content": [{"type": "input_text", "text": "first?"}]},
			{"role": "assistant", "content": "one <b>&</b>"},
			{"role": "user", "content": [{"type": "input_text", "text": "and then?"}]}]}`)
	// float32 0.2 comes back as 0.2 through JSON only approximately.
	if tv, ok := got["temperature"].(float64); !ok || tv < 0.19 || tv > 0.21 {
		t.Errorf("temperature = %v", got["temperature"])
	}
	got["temperature"] = 0.2
	if !reflect.DeepEqual(any(got), want) {
		t.Errorf("body = %v\nwant %v", got, want)
	}

	// Server state: only the new message, chained to the last response.
	cfg = config(srv, send.Responses)
	cfg.ServerState = true
	req.Context = "[CONTEXT]\nnow"
	got = posted(t, srv, cfg, req)
	want = jsonOf(t, `{
		"model": "gpt-test", "stream": true, "store": true, "previous_response_id": "resp_1",
		"input": [{"role": "user", "content": [{"type": "input_text", "text": "and then?"}, {"type": "input_text", "text": "[CONTEXT]\nnow"}]}]}`)
	if !reflect.DeepEqual(any(got), want) {
		t.Errorf("server-state body = %v\nwant %v", got, want)
	}
}

func TestBodyChat(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{})
	cfg := config(srv, send.Chat)
	cfg.MaxOutputTokens = 300
	req := request
	req.History = []send.Turn{{Instruction: "first?", Answer: "one"}}
	got := posted(t, srv, cfg, req)
	want := jsonOf(t, `{
		"model": "gpt-test", "stream": true, "stream_options": {"include_usage": true}, "max_tokens": 300,
		"messages": [
			{"role": "system", "content": "Be brief."},
			{"role": "user", "content": [{"type": "text", "text": "first?"}]},
			{"role": "assistant", "content": "one"},
			{"role": "user", "content": [
				{"type": "text", "text": "[MODE: explain]\n[INSTRUCTION]\nWhat does main do?"},
				{"type": "text", "text": "[CONTEXT]\n--- chunk 1 ---\nfunc main() {}"}]}]}`)
	if !reflect.DeepEqual(any(got), want) {
		t.Errorf("body = %v\nwant %v", got, want)
	}

	// OpenAI's reasoning models take max_completion_tokens.
	cfg.Model = "gpt-5-mini"
	got = posted(t, srv, cfg, request)
	if got["max_completion_tokens"] != 300.0 || got["max_tokens"] != nil {
		t.Errorf("gpt-5-mini: max_tokens %v, max_completion_tokens %v", got["max_tokens"], got["max_completion_tokens"])
	}
}

func TestBodyRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  send.Config
		want string
	}{
		{send.Config{BaseURL: "http://x/v1"}, "no model named"},
		{send.Config{BaseURL: "localhost:11434", Model: "m"}, "not an http(s) URL"},
		{send.Config{BaseURL: "http://x/v1?key=sk-1", Model: "m"}, "api_key_env"},
		{send.Config{BaseURL: "http://x/v1", Model: "m", API: "completions"}, `unknown api "completions"`},
		{send.Config{BaseURL: "http://x/v1", Model: "m", API: send.Chat, ServerState: true}, "responses"},
	} {
		_, err := send.Body(tc.cfg, request)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Body(%+v) = %v, want an error with %q", tc.cfg, err, tc.want)
		}
		if strings.Contains(err.Error(), "sk-1") {
			t.Errorf("error shows the query: %v", err)
		}
		_, err = send.Stream(context.Background(), tc.cfg, request, nil)
		asError(t, err, send.ErrConfig)
	}
}

func TestEndpointHidesCredentials(t *testing.T) {
	got := send.Endpoint(send.Config{BaseURL: "https://user:pass@example.com/v1/?token=abc#frag", API: send.Chat})
	if got != "https://example.com/v1/chat/completions" {
		t.Errorf("Endpoint = %q", got)
	}
}

// TestBodyReadable: code keeps its <, > and & (not \u003c...), a text that
// holds a backslash and "u003c" keeps it, and what is posted is still the
// same JSON value.
func TestBodyReadable(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{})
	for _, api := range apis {
		req := send.Request{Instruction: "if a < b && c > d {}", Context: `literal \u003c stays`}
		got := posted(t, srv, config(srv, api), req)
		body, _ := send.Body(config(srv, api), req)
		if !bytes.Contains(body, []byte("if a < b && c > d {}")) || !bytes.Contains(body, []byte(`literal \\u003c stays`)) {
			t.Errorf("%s: Body:\n%s", api, body)
		}
		text := fmt.Sprint(got)
		if !strings.Contains(text, "if a < b && c > d {}") || !strings.Contains(text, `literal \u003c stays`) {
			t.Errorf("%s: posted %s", api, text)
		}
	}
}

// TestChatTemperatureZero: go-openai's chat request cannot carry a
// temperature of 0; the send does.
func TestChatTemperatureZero(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{})
	for _, api := range apis {
		cfg := config(srv, api)
		zero := float32(0)
		cfg.Temperature = &zero
		got := posted(t, srv, cfg, request)
		if v, ok := got["temperature"]; !ok || v != 0.0 {
			t.Errorf("%s: temperature = %v (present %v)", api, v, ok)
		}
	}
}
