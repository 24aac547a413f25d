package sendtest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends a streaming request and returns the response and its body.
func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(raw)
}

// TestResponsesFraming reads the raw stream: every event is an "event:"
// line, a "data:" line whose JSON type is the event's name, and a blank
// line, in the order the Responses API sends them.
func TestResponsesFraming(t *testing.T) {
	srv := New(t, Script{Chunks: []string{"a", "b"}, Usage: &Usage{Input: 5, Output: 2}})
	resp, raw := post(t, srv.URL+"/responses", `{"model":"m","stream":true}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	var names []string
	for _, ev := range strings.Split(strings.TrimSuffix(raw, "\n\n"), "\n\n") {
		lines := strings.Split(ev, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("event %q is not an event: and a data: line", ev)
		}
		var data struct {
			Type     string
			Response struct {
				Usage struct {
					InputTokens int `json:"input_tokens"`
				}
			}
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &data); err != nil || data.Type != strings.TrimPrefix(lines[0], "event: ") {
			t.Fatalf("data of %q: %v", ev, err)
		}
		names = append(names, data.Type)
		if data.Type == "response.completed" && data.Response.Usage.InputTokens != 5 {
			t.Errorf("usage: %s", lines[1])
		}
	}
	want := "response.created response.in_progress response.output_item.added response.content_part.added " +
		"response.output_text.delta response.output_text.delta response.output_text.done response.content_part.done " +
		"response.output_item.done response.completed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
}

// TestChatFraming: "data:" lines each followed by a blank line, a usage
// chunk with no choices, then [DONE].
func TestChatFraming(t *testing.T) {
	srv := New(t, Script{Chunks: []string{"a", "b"}})
	resp, raw := post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(strings.NewReader(raw))
	var data []string
	for i := 0; sc.Scan(); i++ {
		line := sc.Text()
		if i%2 == 1 {
			if line != "" {
				t.Fatalf("line %d is %q, want a blank line", i+1, line)
			}
			continue
		}
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %d is %q, want data:", i+1, line)
		}
		data = append(data, d)
	}
	if len(data) != 6 || data[5] != "[DONE]" || !strings.Contains(data[4], `"usage"`) || !strings.Contains(data[3], `"finish_reason":"stop"`) {
		t.Errorf("chunks:\n%s", strings.Join(data, "\n"))
	}
}

// TestRecordsAndScripts: requests are recorded with headers and body, the
// rate limit applies to the first requests only, and SetScript restarts
// the count.
func TestRecordsAndScripts(t *testing.T) {
	srv := New(t, Script{RateLimit: 1, RetryAfter: "2"})
	resp, _ := post(t, srv.URL+"/responses", `{"model":"m","stream":true}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("first: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp, _ = post(t, srv.URL+"/responses", `{"model":"m","stream":true}`); resp.StatusCode != 200 {
		t.Errorf("second: %d", resp.StatusCode)
	}
	srv.SetScript(Script{Status: 404})
	resp, raw := post(t, srv.URL+"/chat/completions", `{"model":"nope","stream":true}`)
	if resp.StatusCode != 404 || !strings.Contains(raw, "model_not_found") || !strings.Contains(raw, "nope") {
		t.Errorf("404: %d %s", resp.StatusCode, raw)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[2].Path != "/v1/chat/completions" || string(reqs[2].Body) != `{"model":"nope","stream":true}` ||
		reqs[2].Header.Get("Content-Type") != "application/json" {
		t.Errorf("recorded: %+v", reqs)
	}
}
