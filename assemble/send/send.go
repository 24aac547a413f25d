// Package send posts an assembled request to an OpenAI-compatible endpoint
// (the Responses API or chat completions) and streams the answer back.
//
// It is the last exit of a flow: what it posts is what Body returns, the
// texts it is given are already redacted by the caller (assemble.Exchange),
// and no error it returns carries the API key.
package send

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// API is the wire format of an endpoint.
type API string

const (
	Responses API = "responses" // POST {base}/responses, the default
	Chat      API = "chat"      // POST {base}/chat/completions
)

// DefaultTimeout bounds the wait for the first byte and for each next event
// when Config.Timeout is 0.
const DefaultTimeout = 120 * time.Second

// DefaultRetries is how often a send is tried again when Config.MaxRetries is 0.
const DefaultRetries = 3

// MaxRetryWait is the longest wait a server may ask for (Retry-After) that
// Stream sits out; a longer one ends the send with the wait in
// Error.RetryAfter so the caller can say when to try again.
const MaxRetryWait = 60 * time.Second

// Config is one endpoint and how to talk to it.
type Config struct {
	BaseURL         string                                           // API root, e.g. https://api.openai.com/v1, http://localhost:11434/v1
	Model           string                                           // required
	APIKey          string                                           // never printed, never in an error, never written anywhere
	API             API                                              // "" is Responses
	MaxOutputTokens int                                              // 0: the server's default
	Temperature     *float32                                         // nil: the server's default
	Timeout         time.Duration                                    // longest wait for the first byte and for each next event (a stall); 0 is 120s
	MaxRetries      int                                              // tries again on 429/5xx/connection refused *before any answer text*: 0 = default 3, -1 never
	ServerState     bool                                             // Responses only: chain with previous_response_id (store: true) instead of resending turns
	HTTPClient      *http.Client                                     // nil: a default client
	OnRetry         func(attempt int, wait time.Duration, err error) // optional: told before each wait
}

// Turn is an earlier exchange of the conversation, oldest first.
type Turn struct {
	Instruction string // that turn's first user item ([MODE]+[INSTRUCTION]...), not its context
	Answer      string // the answer as kept (hand edits included)
	ResponseID  string // the server's id, for ServerState
}

// Request is one turn to send. Layout (seed 000): Instructions become the
// Responses `instructions` (chat: a system message); the new user message has
// the Instruction item first and the Context item ([CONTEXT] block) second
// (Responses items are {"type":"input_text"}; chat content parts {"type":"text"}).
// Context "" omits the second item. History goes before it as user/assistant
// messages (earlier context is not resent: the current context is re-injected
// in the new message, as seed 000 wants for every turn), or, with ServerState
// and the last turn's ResponseID set, as previous_response_id alone.
type Request struct {
	Instructions string
	Instruction  string
	Context      string
	History      []Turn
}

// Usage is the token use the server reports.
type Usage struct{ Input, Output, Cached, Reasoning int }

// Result is one answer, complete or not.
type Result struct {
	Text       string
	Status     string // "completed" or "incomplete"; "" when Stream returned a *Error
	Reason     string // why incomplete
	ResponseID string
	Model      string // as the server reports it ("" when it does not)
	Usage      Usage
	HasUsage   bool          // the server reported usage
	Endpoint   string        // e.g. "http://127.0.0.1:8080/v1/responses" (never with credentials)
	FirstByte  time.Duration // from the start to the first answer text
	Elapsed    time.Duration
	Retries    int
}

// Statuses and reasons of a Result.
const (
	StatusCompleted  = "completed"
	StatusIncomplete = "incomplete"
	ReasonCancelled  = "cancelled"
)

// Stream posts req and calls onDelta with each piece of answer text as it
// arrives (onDelta may be nil). On success Result.Status is "completed".
// On cancellation (ctx) it returns the text so far with Status "incomplete",
// Reason "cancelled", and err == context.Canceled (errors.Is). A server that
// stops early (max_output_tokens, content filter, response.incomplete) gives
// Status "incomplete" with the server's reason and err nil. Any other failure
// returns a *Error and whatever text had arrived in Result.Text.
//
// Timeout bounds the wait for the response headers and every silence of
// the stream, not the whole answer: a long answer that keeps streaming is
// never cut, and time spent in onDelta does not count. onDelta runs on
// Stream's goroutine. Retries happen only before any answer text arrived.
func Stream(ctx context.Context, cfg Config, req Request, onDelta func(string)) (Result, error) {
	s := newSender(cfg, onDelta)
	res, err := s.run(ctx, req)
	res.Elapsed = time.Since(s.start)
	return res, err
}

// sender is one Stream call: the client, the text so far and the result.
type sender struct {
	cfg      Config
	api      API
	endpoint string
	client   *openai.Client
	headers  *headerTap
	onDelta  func(string)
	stall    *stallTimer // the current attempt's
	start    time.Time
	text     strings.Builder
	res      Result
}

func newSender(cfg Config, onDelta func(string)) *sender {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	api := cfg.API
	if api == "" {
		api = Responses
	}
	s := &sender{cfg: cfg, api: api, endpoint: Endpoint(cfg), onDelta: onDelta, start: time.Now()}
	s.res.Endpoint = s.endpoint
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	s.headers = &headerTap{base: hc.Transport}
	hc.Transport = s.headers
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &hc
	s.client = openai.NewClientWithConfig(oc)
	return s
}

func (s *sender) run(ctx context.Context, req Request) (Result, error) {
	if err := validate(s.cfg, s.api, s.endpoint); err != nil {
		return s.res, err
	}
	body, err := encode(s.cfg, s.api, req)
	if err != nil {
		return s.res, &Error{Endpoint: s.endpoint, Kind: ErrConfig, Message: err.Error(), Err: err}
	}
	s.headers.body = body
	for attempt := 0; ; attempt++ {
		err := s.attempt(ctx, req)
		if err == nil {
			return s.finish(), nil
		}
		if ctx.Err() != nil {
			return s.cancelled(ctx)
		}
		e, ok := err.(*Error)
		if !ok || s.text.Len() > 0 || !e.retryable() || attempt >= s.cfg.MaxRetries {
			return s.finish(), err
		}
		wait := e.RetryAfter
		if wait == 0 {
			wait = time.Second << attempt
		}
		if wait > MaxRetryWait {
			return s.finish(), err
		}
		if s.cfg.OnRetry != nil {
			s.cfg.OnRetry(attempt+1, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return s.cancelled(ctx)
		case <-t.C:
		}
		s.res.Retries++
	}
}

// attempt makes one request and reads its stream. A timer cancels the
// request when the headers or the next bytes take longer than Timeout; it
// restarts on every read, so only a stall trips it, never a long answer.
func (s *sender) attempt(ctx context.Context, req Request) error {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := &stallTimer{timeout: s.cfg.Timeout}
	stall.timer = time.AfterFunc(s.cfg.Timeout, func() { stall.fired.Store(true); cancel() })
	defer stall.timer.Stop()
	s.headers.onRead = stall.tick
	s.stall = stall
	var err error
	if s.api == Chat {
		err = s.chat(actx, req)
	} else {
		err = s.responses(actx, req)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.classify(err, stall.fired.Load())
}

// delta takes one piece of answer text.
func (s *sender) delta(d string) {
	if d == "" {
		return
	}
	if s.text.Len() == 0 {
		s.res.FirstByte = time.Since(s.start)
	}
	s.text.WriteString(d)
	if s.onDelta != nil {
		// A slow onDelta (a busy screen) is not a stalled server.
		s.stall.timer.Stop()
		s.onDelta(d)
		s.stall.tick()
	}
}

func (s *sender) finish() Result {
	s.res.Text = s.text.String()
	return s.res
}

func (s *sender) cancelled(ctx context.Context) (Result, error) {
	res := s.finish()
	res.Status, res.Reason = StatusIncomplete, ReasonCancelled
	return res, fmt.Errorf("send: POST %s: cancelled: %w", s.endpoint, ctx.Err())
}
