package send

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ErrorKind says what went wrong, so a front-end can say what to do.
type ErrorKind string

const (
	ErrAuth    ErrorKind = "auth"    // 401/403: key refused or missing
	ErrModel   ErrorKind = "model"   // unknown model (404 / model_not_found)
	ErrRate    ErrorKind = "rate"    // 429 after the retries (RetryAfter set when the server said)
	ErrServer  ErrorKind = "server"  // 5xx after the retries, or a 4xx not covered above (bad request)
	ErrTimeout ErrorKind = "timeout" // no first byte / stalled stream for Timeout
	ErrStream  ErrorKind = "stream"  // malformed SSE or JSON, an `error`/response.failed event mid-stream
	ErrNetwork ErrorKind = "network" // refused connection, DNS, TLS
	ErrConfig  ErrorKind = "config"  // nothing was sent: the Config cannot work (no model, bad base URL)
)

// Error is a failed send. Error() names the endpoint and the problem and what
// to do ("send: POST http://127.0.0.1:9/v1/responses: the API key was refused
// (401): check the variable named by [llm] api_key_env"), never the key.
type Error struct {
	Endpoint   string
	Status     int // HTTP status, 0 when none
	Kind       ErrorKind
	Message    string // the server's message, with anything that looks like the key removed
	RetryAfter time.Duration
	Err        error  // underlying, for errors.Is/As (never carries the key in its text)
	Model      string // the model asked for
	Code       string // the server's error code (e.g. "model_not_found", "insufficient_quota"), when it gave one
	timeout    time.Duration
	partial    bool   // answer text had arrived
	detail     string // what went wrong when it is not the server's message
	noKey      bool   // no API key was sent
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("send: POST ")
	b.WriteString(e.Endpoint)
	b.WriteString(": ")
	b.WriteString(e.problem())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (%d)", e.Status)
	}
	if e.Message != "" && e.Kind != ErrConfig {
		b.WriteString(": the server says ")
		b.WriteString(strconv.Quote(e.Message))
	}
	if h := e.hint(); h != "" {
		b.WriteString("; ")
		b.WriteString(h)
	}
	return b.String()
}

// Unwrap gives the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) problem() string {
	switch e.Kind {
	case ErrAuth:
		switch {
		case e.noKey:
			return "the server wants an API key and none was sent"
		case e.Status == http.StatusForbidden:
			return "the API key is not allowed to do this"
		}
		return "the API key was refused"
	case ErrModel:
		return fmt.Sprintf("the server does not know model %q", e.Model)
	case ErrRate:
		if e.Code == "insufficient_quota" {
			return "the account is out of quota"
		}
		return "rate limited"
	case ErrServer:
		switch {
		case e.Status >= 500:
			return "the server failed"
		case e.Status == http.StatusNotFound && e.Code == "":
			return "the server has no such endpoint"
		}
		return "the server rejected the request"
	case ErrTimeout:
		if e.partial {
			return fmt.Sprintf("the stream stalled: nothing for %s", e.timeout)
		}
		return fmt.Sprintf("no answer for %s", e.timeout)
	case ErrStream:
		if e.detail != "" {
			return e.detail
		}
		return "the server reported an error in the middle of the answer"
	case ErrNetwork:
		msg := "cannot reach the server"
		if e.Err != nil {
			msg += ": " + netCause(e.Err)
		}
		return msg
	case ErrConfig:
		return e.Message
	}
	return string(e.Kind)
}

func (e *Error) hint() string {
	switch e.Kind {
	case ErrAuth:
		return "check the variable named by [llm] api_key_env"
	case ErrModel:
		return "check [llm] model or --model (GET /models on the server lists what it has)"
	case ErrRate:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("retry after %s", e.RetryAfter.Round(time.Second))
		}
		if e.Code == "insufficient_quota" {
			return "check the account's plan and billing"
		}
		return "wait a little and send again"
	case ErrServer:
		switch {
		case e.Status >= 500:
			return "try again later"
		case e.Status == http.StatusNotFound && e.Code == "":
			return "check [llm] base_url (it usually ends in /v1) and [llm] api (responses or chat: not every server has both)"
		}
		return "check [llm] model, max_output_tokens and temperature against what the server accepts"
	case ErrTimeout:
		return "raise [llm] timeout, or check that the server is working"
	case ErrStream:
		if e.detail == errEnded.Error() || e.detail == "" {
			return "send again"
		}
		return "check [llm] api (responses or chat) and that the server streams on this endpoint"
	case ErrNetwork:
		return "is the server running at this address? check [llm] base_url"
	}
	return ""
}

// retryable reports whether the same request may succeed if sent again.
func (e *Error) retryable() bool {
	switch {
	case e.Code == "insufficient_quota":
		return false
	case e.Status == http.StatusTooManyRequests, e.Status >= 500:
		return true
	case e.Kind == ErrNetwork:
		return errors.Is(e.Err, syscall.ECONNREFUSED)
	}
	return false
}

// classify turns what go-openai or the transport returned into an *Error
// without the key in any of its texts.
func (s *sender) classify(err error, stalled bool) *Error {
	e := &Error{Endpoint: s.endpoint, Model: s.cfg.Model, partial: s.text.Len() > 0, timeout: s.cfg.Timeout, noKey: s.cfg.APIKey == ""}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var netErr net.Error
	switch {
	case stalled:
		e.Kind = ErrTimeout
	case refusedBeforeSending(err):
		e.Kind = ErrConfig
		e.Message = fmt.Sprintf("go-openai refuses this chat request for model %q: %v; unset [llm] temperature or max_output_tokens for it, or use api = \"responses\"", s.cfg.Model, err)
	case errors.As(err, &reqErr):
		// go-openai could not read the body as {"error": {...}} (it may
		// wrap a half-read *APIError, so this case comes first).
		e.Status = reqErr.HTTPStatusCode
		e.Message = bodyMessage(reqErr.Body)
	case errors.As(err, &apiErr):
		e.Status = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
		e.Code = codeString(apiErr.Code)
		if e.Code == "" {
			e.Code = apiErr.Type
		}
		if e.Status == 0 {
			e.Kind = ErrStream // an error object in the middle of a chat stream
		}
	case errors.As(err, &syntax), errors.As(err, &typeErr):
		e.Kind = ErrStream
		e.detail = "malformed JSON in the stream (" + err.Error() + ")"
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		e.Kind = ErrStream
		e.detail = "malformed stream: too many lines without data"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errEnded):
		e.Kind = ErrStream
		e.detail = errEnded.Error()
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		e.Kind = ErrNetwork
	default:
		var se *streamError
		var bad *badStream
		switch {
		case errors.As(err, &se):
			e.Kind, e.Message, e.Code = ErrStream, se.message, se.code
		case errors.As(err, &bad):
			e.Kind, e.detail = ErrStream, bad.Error()
		default:
			e.Kind, e.detail = ErrStream, "the stream failed: "+err.Error()
		}
	}
	if e.Status != 0 {
		e.Kind = statusKind(e.Status, e.Code, e.Message)
		e.RetryAfter = retryAfter(s.headers.header(), time.Now())
	}
	e.Message = s.scrub(truncate(strings.TrimSpace(e.Message), 500))
	e.detail = s.scrub(e.detail)
	e.Err = &scrubbed{err: err, text: s.scrub(err.Error())}
	return e
}

// refusedBeforeSending reports go-openai's own checks of a chat request
// (OpenAI's reasoning models take no temperature but 1 and no max_tokens).
func refusedBeforeSending(err error) bool {
	for _, x := range []error{openai.ErrReasoningModelMaxTokensDeprecated, openai.ErrReasoningModelLimitationsOther,
		openai.ErrReasoningModelLimitationsLogprobs, openai.ErrChatCompletionInvalidModel, openai.ErrContentFieldsMisused} {
		if errors.Is(err, x) {
			return true
		}
	}
	return false
}

// statusKind sorts an HTTP error. A 404 is an unknown model only when the
// server says so (OpenAI's model_not_found, Ollama's "model ... not
// found"): a base URL without /v1 or a server without the Responses API
// also answers 404, and is not the model's fault.
func statusKind(status int, code, message string) ErrorKind {
	switch {
	case code == "model_not_found":
		return ErrModel
	case status == http.StatusNotFound && !strings.Contains(code, "previous_response") &&
		strings.Contains(strings.ToLower(message), "model"):
		return ErrModel
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusTooManyRequests:
		return ErrRate
	}
	return ErrServer
}

func codeString(code any) string {
	switch c := code.(type) {
	case string:
		return c
	case nil:
		return ""
	default:
		return fmt.Sprint(c)
	}
}

// bodyMessage pulls a message out of an error body that go-openai could
// not read as {"error": {...}}: {"error": "text"} (Ollama, llama.cpp),
// {"message": ...}, {"detail": ...} (vLLM, FastAPI), or plain text.
func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
		if v.Message != "" {
			return v.Message
		}
		if v.Detail != nil {
			return fmt.Sprint(v.Detail)
		}
	}
	return string(body)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

// scrub removes the API key from a text a server or a library wrote.
func (s *sender) scrub(text string) string {
	if k := s.cfg.APIKey; k != "" {
		text = strings.ReplaceAll(text, k, "[REDACTED]")
	}
	return text
}

// scrubbed keeps an error for errors.Is/As while its text is cleaned.
type scrubbed struct {
	err  error
	text string
}

func (e *scrubbed) Error() string { return e.text }
func (e *scrubbed) Unwrap() error { return e.err }

// netCause is the short cause of a network error ("connection refused").
func netCause(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error()
	}
	return err.Error()
}

// streamError is an error the stream itself reported.
type streamError struct{ code, message string }

func (e *streamError) Error() string {
	if e.code != "" {
		return e.code + ": " + e.message
	}
	return e.message
}

// badStream is a stream that is not what the API sends.
type badStream struct{ text string }

func (e *badStream) Error() string { return e.text }

// errEnded: the stream ended before its last event.
var errEnded = errors.New("the stream ended before the answer was complete")
