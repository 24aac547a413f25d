// Package sendtest is a fake OpenAI-compatible server for tests of code that
// sends requests with assemble/send: it speaks POST /v1/responses (Responses
// API events) and POST /v1/chat/completions (chat chunks) with real SSE
// framing, flushed event by event, and does what a Script tells it (chunks,
// delays, errors, stalls, rate limits). It records every request.
//
//	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"Hello", ", world"}})
//	res, err := send.Stream(ctx, send.Config{BaseURL: srv.URL, Model: "gpt-test"}, req, nil)
//	body := srv.Requests()[0].Body
package sendtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Script is what the server answers. The zero value answers "Hello, world."
// in three chunks with usage.
type Script struct {
	// Chunks are the answer's text deltas, in order; nil: Text split
	// after each space, or the default answer when Text is "" too.
	Chunks []string
	Text   string
	// Delay is slept before each chunk.
	Delay time.Duration

	// ResponseID names the response (default "resp_test1"; chat ids are
	// "chatcmpl-" + it). Model is the model reported (default: the
	// requested one).
	ResponseID string
	Model      string

	// Usage reported at the end; nil: Input 42, Output len(Chunks),
	// Cached 0, Reasoning 0. NoUsage leaves usage out altogether (as
	// servers do that ignore stream_options).
	Usage   *Usage
	NoUsage bool

	// Fail, when not "", sends an error mid-stream after FailAfter chunks
	// and ends the stream: Responses an `error` event (or response.failed
	// with FailAsResponse), chat a data: {"error": {...}} line.
	Fail           string
	FailAfter      int
	FailAsResponse bool

	// Stall stops sending after StallAfter chunks, keeping the connection
	// open until the client goes away.
	Stall      bool
	StallAfter int

	// StallHeaders waits for the client to go away before answering at all.
	StallHeaders bool

	// Malformed sends a data line that is not JSON after MalformedAfter chunks.
	Malformed      bool
	MalformedAfter int

	// Incomplete ends a Responses stream with response.incomplete and this
	// reason ("max_output_tokens"), and a chat stream with
	// finish_reason "length" (or "content_filter" when the reason is that).
	Incomplete string

	// Truncate ends the stream after the chunks without a final event.
	Truncate bool

	// NoFinishReason ends a chat stream with data: [DONE] but no chunk
	// carrying a finish_reason, as some local servers do.
	NoFinishReason bool

	// RateLimit answers the first RateLimit requests with 429 and
	// RetryAfter as the Retry-After header ("" sends none).
	RateLimit  int
	RetryAfter string
	// ServerErrors answers the first ServerErrors requests (after the rate
	// limited ones) with 500.
	ServerErrors int

	// Status, when not 0, answers every request with this status and an
	// OpenAI error body: 401 echoes the Authorization header in its
	// message as OpenAI does (so tests can check it never reaches the
	// user), 404 says model_not_found. ErrorBody replaces the body.
	Status    int
	ErrorBody string

	// NotStream answers 200 with one JSON object instead of a stream.
	NotStream bool

	// OnChunk, when set, is called just before chunk i is written and
	// flushed (benchmarks time the trip from here to the client).
	OnChunk func(i int)
}

// Usage is what the server reports.
type Usage struct{ Input, Output, Cached, Reasoning int }

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value, for comparisons.
func (r Request) JSON() (map[string]any, error) {
	var v map[string]any
	err := json.Unmarshal(r.Body, &v)
	return v, err
}

// Server is a running fake endpoint. URL is the /v1 root to use as a base URL.
type Server struct {
	URL string
	*httptest.Server

	mu     sync.Mutex
	script Script
	reqs   []Request
	n      int // requests answered
}

// New starts a server answering sc; it is closed when the test ends.
func New(t testing.TB, sc Script) *Server {
	t.Helper()
	s := &Server{script: sc}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.Server.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// NewRemote is New on an address of this machine that is not a loopback
// one, so that the server is what a remote endpoint looks like to the
// code that tells them apart (evidence.Outgoing.Loopback); the test is
// skipped on a machine with no such address.
func NewRemote(t testing.TB, sc Script) *Server {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no network interfaces: %v", err)
	}
	var ln net.Listener
	for _, a := range addrs {
		ip, ok := a.(*net.IPNet)
		if !ok || ip.IP.IsLoopback() || ip.IP.To4() == nil || ip.IP.IsLinkLocalUnicast() {
			continue
		}
		if ln, err = net.Listen("tcp", net.JoinHostPort(ip.IP.String(), "0")); err == nil {
			break
		}
	}
	if ln == nil {
		t.Skip("this machine has no IPv4 address other than loopback to listen on")
	}
	s := &Server{script: sc}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Server.Listener.Close()
	s.Server.Listener = ln
	s.Server.Start()
	s.URL = s.Server.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// SetScript changes what later requests get (a follow-up turn).
func (s *Server) SetScript(sc Script) {
	s.mu.Lock()
	s.script, s.n = sc, 0
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close stops the server; it waits for stalled handlers, which end when
// their clients leave.
func (s *Server) Close() {
	s.Server.CloseClientConnections()
	s.Server.Close()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	sc := s.script
	n := s.n
	s.n++
	s.mu.Unlock()

	var chat bool
	switch {
	case r.Method != http.MethodPost:
		apiError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "use POST")
		return
	case r.URL.Path == "/v1/responses":
	case r.URL.Path == "/v1/chat/completions":
		chat = true
	default:
		apiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Invalid URL (POST "+r.URL.Path+")")
		return
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	switch {
	case sc.StallHeaders:
		<-r.Context().Done()
		return
	case n < sc.RateLimit:
		if sc.RetryAfter != "" {
			w.Header().Set("Retry-After", sc.RetryAfter)
		}
		apiError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests")
		return
	case n < sc.RateLimit+sc.ServerErrors:
		apiError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request.")
		return
	case sc.Status != 0:
		s.fail(w, r, sc, req.Model)
		return
	case !req.Stream:
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "this fake server only streams: send \"stream\": true")
		return
	case sc.NotStream:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"object":"response","status":"completed","output_text":"whole"}`, sc.id())
		return
	}
	if sc.Model == "" {
		sc.Model = req.Model
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &emitter{w: w, rc: http.NewResponseController(w), chat: chat}
	e.flush()
	if chat {
		s.chat(r, e, sc)
	} else {
		s.responses(r, e, sc)
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, sc Script, model string) {
	if sc.ErrorBody != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(sc.Status)
		io.WriteString(w, sc.ErrorBody)
		return
	}
	switch sc.Status {
	case http.StatusUnauthorized:
		apiError(w, sc.Status, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+". You can find your API key at https://platform.openai.com/account/api-keys.")
	case http.StatusNotFound:
		apiError(w, sc.Status, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model))
	default:
		apiError(w, sc.Status, "invalid_request_error", "", http.StatusText(sc.Status))
	}
}

// apiError writes OpenAI's error body.
func apiError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var c any
	if code != "" {
		c = code
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

func (sc Script) chunks() []string {
	if sc.Chunks != nil {
		return sc.Chunks
	}
	text := sc.Text
	if text == "" {
		return []string{"Hello", ", ", "world."}
	}
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func (sc Script) id() string {
	if sc.ResponseID == "" {
		return "resp_test1"
	}
	return sc.ResponseID
}

func (sc Script) usage(chunks int) Usage {
	if sc.Usage != nil {
		return *sc.Usage
	}
	return Usage{Input: 42, Output: chunks}
}

// emitter writes SSE events and flushes each.
type emitter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	chat bool
	seq  int
	buf  bytes.Buffer
}

func (e *emitter) flush() { _ = e.rc.Flush() }

// event writes one event: Responses as "event:" + "data:" lines, chat as a
// "data:" line, each ended by a blank line.
func (e *emitter) event(typ string, v any) error {
	e.buf.Reset()
	if !e.chat {
		e.buf.WriteString("event: ")
		e.buf.WriteString(typ)
		e.buf.WriteByte('\n')
	}
	e.buf.WriteString("data: ")
	if raw, ok := v.(string); ok {
		e.buf.WriteString(raw)
	} else {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		e.buf.Write(b)
	}
	e.buf.WriteString("\n\n")
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		return err
	}
	return e.rc.Flush()
}

// responses plays sc as Responses API events.
func (s *Server) responses(r *http.Request, e *emitter, sc Script) {
	id, itemID := sc.id(), "msg_"+sc.id()
	resp := func(status string, output []any) map[string]any {
		return map[string]any{"id": id, "object": "response", "created_at": 1767225600, "status": status, "model": sc.Model, "output": output}
	}
	ev := func(typ string, fields map[string]any) error {
		fields["type"] = typ
		fields["sequence_number"] = e.seq
		e.seq++
		return e.event(typ, fields)
	}
	if ev("response.created", map[string]any{"response": resp("in_progress", []any{})}) != nil ||
		ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{})}) != nil ||
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"id": itemID, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}}) != nil ||
		ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}) != nil {
		return
	}
	chunks := sc.chunks()
	var text strings.Builder
	for i, c := range chunks {
		if s.interrupt(r, e, sc, i, len(chunks), func(msg string) {
			if sc.FailAsResponse {
				out := resp("failed", []any{})
				out["error"] = map[string]any{"code": "server_error", "message": msg}
				ev("response.failed", map[string]any{"response": out})
				return
			}
			ev("error", map[string]any{"code": "server_error", "message": msg, "param": nil})
		}) {
			return
		}
		text.WriteString(c)
		if sc.OnChunk != nil {
			sc.OnChunk(i)
		}
		if ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": c, "logprobs": []any{}}) != nil {
			return
		}
	}
	if s.interrupt(r, e, sc, len(chunks), len(chunks), func(msg string) {
		ev("error", map[string]any{"code": "server_error", "message": msg, "param": nil})
	}) || sc.Truncate {
		return
	}
	part := map[string]any{"type": "output_text", "text": text.String(), "annotations": []any{}}
	item := map[string]any{"id": itemID, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
	ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": text.String(), "logprobs": []any{}})
	ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": part})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	final, typ := resp("completed", []any{item}), "response.completed"
	if sc.Incomplete != "" {
		final, typ = resp("incomplete", []any{item}), "response.incomplete"
		final["incomplete_details"] = map[string]any{"reason": sc.Incomplete}
	}
	if !sc.NoUsage {
		u := sc.usage(len(chunks))
		final["usage"] = map[string]any{
			"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
			"total_tokens": u.Input + u.Output,
		}
	}
	ev(typ, map[string]any{"response": final})
}

// chat plays sc as chat completion chunks.
func (s *Server) chat(r *http.Request, e *emitter, sc Script) {
	id := "chatcmpl-" + sc.id()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": sc.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	if e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)) != nil {
		return
	}
	chunks := sc.chunks()
	failFn := func(msg string) {
		e.event("", map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "param": nil, "code": nil}})
	}
	for i, c := range chunks {
		if s.interrupt(r, e, sc, i, len(chunks), failFn) {
			return
		}
		if sc.OnChunk != nil {
			sc.OnChunk(i)
		}
		if e.event("", chunk(map[string]any{"content": c}, nil)) != nil {
			return
		}
	}
	if s.interrupt(r, e, sc, len(chunks), len(chunks), failFn) || sc.Truncate {
		return
	}
	finish := "stop"
	switch sc.Incomplete {
	case "":
	case "content_filter":
		finish = "content_filter"
	default:
		finish = "length"
	}
	if !sc.NoFinishReason {
		e.event("", chunk(map[string]any{}, finish))
	}
	if !sc.NoUsage {
		u := sc.usage(len(chunks))
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": sc.Model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
				"prompt_tokens_details":     map[string]any{"cached_tokens": u.Cached},
				"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning}}})
	}
	e.event("", "[DONE]")
}

// interrupt does what sc says happens before chunk i (a delay, an error, a
// stall, bad data) and reports whether the stream is over.
func (s *Server) interrupt(r *http.Request, e *emitter, sc Script, i, n int, fail func(string)) bool {
	if sc.Fail != "" && i == sc.FailAfter {
		fail(sc.Fail)
		return true
	}
	if sc.Stall && i == sc.StallAfter {
		<-r.Context().Done()
		return true
	}
	if sc.Malformed && i == sc.MalformedAfter {
		typ := "response.output_text.delta"
		if e.chat {
			typ = ""
		}
		e.event(typ, `{"type": "response.output_text.delta", "delta": "oops`)
		return true
	}
	if i < n && sc.Delay > 0 {
		select {
		case <-time.After(sc.Delay):
		case <-r.Context().Done():
			return true
		}
	}
	return false
}
