package send_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

func TestKeyRefused(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{Status: http.StatusUnauthorized})
			cfg := config(srv, api)
			_, err := send.Stream(context.Background(), cfg, request, nil)
			e := asError(t, err, send.ErrAuth)
			// The fake server echoes the Authorization header, as OpenAI
			// does in part; the key must not come back.
			if !strings.Contains(srv.Requests()[0].Header.Get("Authorization"), cfg.APIKey) {
				t.Fatal("the server was not sent the key")
			}
			for _, text := range []string{err.Error(), e.Message, e.Err.Error()} {
				if strings.Contains(text, cfg.APIKey) {
					t.Errorf("the key is in %q", text)
				}
			}
			for _, want := range []string{"POST " + send.Endpoint(cfg), "401", "refused", "api_key_env"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("a refused key was sent %d times", len(srv.Requests()))
			}
		})
	}
}

func TestNoKey(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Status: http.StatusUnauthorized})
	cfg := config(srv, send.Responses)
	cfg.APIKey = ""
	_, err := send.Stream(context.Background(), cfg, request, nil)
	asError(t, err, send.ErrAuth)
	if !strings.Contains(err.Error(), "none was sent") || srv.Requests()[0].Header.Get("Authorization") != "" {
		t.Errorf("error %v", err)
	}
}

func TestUnknownModel(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{Status: http.StatusNotFound})
			_, err := send.Stream(context.Background(), config(srv, api), request, nil)
			e := asError(t, err, send.ErrModel)
			if e.Status != 404 || !strings.Contains(err.Error(), `"gpt-test"`) || !strings.Contains(err.Error(), "[llm] model") {
				t.Errorf("error = %v", err)
			}
		})
	}
}

// TestNoSuchEndpoint: a 404 that is not about the model (a base URL
// without /v1, a server without the Responses API) says to check the URL.
func TestNoSuchEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := send.Stream(context.Background(), send.Config{BaseURL: srv.URL, Model: "llama3"}, request, nil)
	if e := asError(t, err, send.ErrServer); e.Status != 404 || !strings.Contains(err.Error(), "no such endpoint") || !strings.Contains(err.Error(), "base_url") {
		t.Errorf("error = %v", err)
	}
	// Ollama's unknown model: 404 with a message about the model and no code.
	srv2 := sendtest.New(t, sendtest.Script{Status: 404, ErrorBody: `{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`})
	_, err = send.Stream(context.Background(), config(srv2, send.Chat), request, nil)
	asError(t, err, send.ErrModel)
}

func TestBadRequestNotRetried(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Status: http.StatusBadRequest, ErrorBody: `{"error": "max_tokens is too large"}`})
	_, err := send.Stream(context.Background(), config(srv, send.Chat), request, nil)
	e := asError(t, err, send.ErrServer)
	if e.Message != "max_tokens is too large" || !strings.Contains(err.Error(), "rejected") || len(srv.Requests()) != 1 {
		t.Errorf("error = %v, message %q, %d requests", err, e.Message, len(srv.Requests()))
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	t.Parallel() // each waits a second
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{RateLimit: 1, RetryAfter: "1"})
			cfg := config(srv, api)
			var waits []time.Duration
			cfg.OnRetry = func(attempt int, wait time.Duration, err error) {
				waits = append(waits, wait)
				asError(t, err, send.ErrRate)
			}
			res, err := send.Stream(context.Background(), cfg, request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "Hello, world." || res.Retries != 1 || len(waits) != 1 || waits[0] != time.Second {
				t.Errorf("text %q, retries %d, waits %v", res.Text, res.Retries, waits)
			}
		})
	}
}

func TestRateLimitTooLong(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{RateLimit: 5, RetryAfter: "3600"})
			cfg := config(srv, api)
			cfg.OnRetry = func(int, time.Duration, error) { t.Error("waited for an hour") }
			_, err := send.Stream(context.Background(), cfg, request, nil)
			e := asError(t, err, send.ErrRate)
			if e.RetryAfter != time.Hour || !strings.Contains(err.Error(), "retry after 1h0m0s") || len(srv.Requests()) != 1 {
				t.Errorf("error %v, RetryAfter %v, %d requests", err, e.RetryAfter, len(srv.Requests()))
			}
		})
	}
}

func TestRateLimitCancelledDuringWait(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{RateLimit: 5, RetryAfter: "30"})
	cfg := config(srv, send.Responses)
	ctx, cancel := context.WithCancel(context.Background())
	cfg.OnRetry = func(int, time.Duration, error) { cancel() }
	res, err := send.Stream(ctx, cfg, request, nil)
	if !errors.Is(err, context.Canceled) || res.Reason != send.ReasonCancelled {
		t.Errorf("err %v, reason %q", err, res.Reason)
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	t.Parallel() // each waits a second
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{ServerErrors: 1, RetryAfter: "1"})
			cfg := config(srv, api)
			var attempts []int
			cfg.OnRetry = func(attempt int, wait time.Duration, err error) {
				attempts = append(attempts, attempt)
				asError(t, err, send.ErrServer)
			}
			res, err := send.Stream(context.Background(), cfg, request, nil)
			if err != nil || res.Text != "Hello, world." || len(attempts) != 1 || attempts[0] != 1 {
				t.Errorf("err %v, text %q, attempts %v", err, res.Text, attempts)
			}
		})
	}
}

func TestNoRetries(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{ServerErrors: 1})
	cfg := config(srv, send.Responses)
	cfg.MaxRetries = -1
	_, err := send.Stream(context.Background(), cfg, request, nil)
	if e := asError(t, err, send.ErrServer); e.Status != 500 || len(srv.Requests()) != 1 {
		t.Errorf("status %d, %d requests", e.Status, len(srv.Requests()))
	}
}

func TestErrorMidStream(t *testing.T) {
	for _, api := range apis {
		for _, asResponse := range []bool{false, true} {
			if api == send.Chat && asResponse {
				continue
			}
			name := string(api)
			if asResponse {
				name += "/response.failed"
			}
			t.Run(name, func(t *testing.T) {
				srv := sendtest.New(t, sendtest.Script{Chunks: []string{"one ", "two ", "three"}, Fail: "the model crashed", FailAfter: 2, FailAsResponse: asResponse})
				var d deltas
				res, err := send.Stream(context.Background(), config(srv, api), request, d.add)
				e := asError(t, err, send.ErrStream)
				if !strings.Contains(e.Message, "the model crashed") || !strings.Contains(err.Error(), send.Endpoint(config(srv, api))) {
					t.Errorf("error = %v", err)
				}
				if res.Text != "one two " || len(d.got) != 2 {
					t.Errorf("partial text %q, deltas %q", res.Text, d.got)
				}
				if len(srv.Requests()) != 1 {
					t.Errorf("retried after text: %d requests", len(srv.Requests()))
				}
			})
		}
	}
}

func TestMalformedData(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{Chunks: []string{"one ", "two"}, Malformed: true, MalformedAfter: 1})
			res, err := send.Stream(context.Background(), config(srv, api), request, nil)
			asError(t, err, send.ErrStream)
			if !strings.Contains(err.Error(), "malformed JSON") || !strings.Contains(err.Error(), "POST "+srv.URL) {
				t.Errorf("error = %v", err)
			}
			if res.Text != "one " {
				t.Errorf("partial text %q", res.Text)
			}
		})
	}
}

func TestTruncatedStream(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{Chunks: []string{"one ", "two"}, Truncate: true})
			res, err := send.Stream(context.Background(), config(srv, api), request, nil)
			asError(t, err, send.ErrStream)
			if res.Text != "one two" {
				t.Errorf("partial text %q", res.Text)
			}
		})
	}
}

// A chat stream that ends with data: [DONE] but never sends a
// finish_reason (some local servers) is whole; one cut off without [DONE]
// is not (TestTruncatedStream).
func TestDoneWithoutFinishReason(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"one ", "two"}, NoFinishReason: true})
	res, err := send.Stream(context.Background(), config(srv, send.Chat), request, nil)
	if err != nil || res.Text != "one two" || res.Status != send.StatusCompleted {
		t.Fatalf("err %v, text %q, status %q", err, res.Text, res.Status)
	}
}

func TestNotAStream(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{NotStream: true})
	_, err := send.Stream(context.Background(), config(srv, send.Responses), request, nil)
	if asError(t, err, send.ErrStream); !strings.Contains(err.Error(), "application/json") {
		t.Errorf("error = %v", err)
	}
}

func TestIncomplete(t *testing.T) {
	for _, api := range apis {
		for _, reason := range []string{"max_output_tokens", "content_filter"} {
			t.Run(string(api)+"/"+reason, func(t *testing.T) {
				srv := sendtest.New(t, sendtest.Script{Chunks: []string{"cut ", "sho"}, Incomplete: reason})
				res, err := send.Stream(context.Background(), config(srv, api), request, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != send.StatusIncomplete || res.Reason != reason || res.Text != "cut sho" || !res.HasUsage {
					t.Errorf("status %q reason %q text %q usage %v", res.Status, res.Reason, res.Text, res.HasUsage)
				}
			})
		}
	}
}

func TestStall(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{Chunks: []string{"one ", "two ", "three"}, Stall: true, StallAfter: 2})
			cfg := config(srv, api)
			cfg.Timeout = 300 * time.Millisecond
			res, err := send.Stream(context.Background(), cfg, request, nil)
			e := asError(t, err, send.ErrTimeout)
			if res.Text != "one two " || !strings.Contains(err.Error(), "stalled") || !strings.Contains(err.Error(), "[llm] timeout") {
				t.Errorf("text %q, error %v", res.Text, e)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("%d requests", len(srv.Requests()))
			}
			// A stall is a timeout, never the user's interrupt.
			if errors.Is(err, context.Canceled) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a stall reads as a cancel: %v", err)
			}
		})
	}
}

func TestNoHeaders(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{StallHeaders: true})
	cfg := config(srv, send.Responses)
	cfg.Timeout = 300 * time.Millisecond
	res, err := send.Stream(context.Background(), cfg, request, nil)
	asError(t, err, send.ErrTimeout)
	if res.Text != "" || !strings.Contains(err.Error(), "no answer for 300ms") {
		t.Errorf("text %q, error %v", res.Text, err)
	}
}

// A slow stream whose gaps are each shorter than Timeout is not cut, however
// long it takes in all.
func TestSlowStreamNotCut(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: strings.SplitAfter("a b c d e f g h", " "), Delay: 50 * time.Millisecond})
	cfg := config(srv, send.Chat)
	cfg.Timeout = 200 * time.Millisecond
	res, err := send.Stream(context.Background(), cfg, request, nil)
	if err != nil || res.Text != "a b c d e f g h" {
		t.Errorf("err %v, text %q", err, res.Text)
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			srv := sendtest.New(t, sendtest.Script{Chunks: []string{"one ", "two ", "three"}, Stall: true, StallAfter: 2})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := 0
			res, err := send.Stream(ctx, config(srv, api), request, func(string) {
				if n++; n == 2 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if res.Text != "one two " || res.Status != send.StatusIncomplete || res.Reason != send.ReasonCancelled {
				t.Errorf("text %q status %q reason %q", res.Text, res.Status, res.Reason)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel() // each waits a second
	// A socket bound but never listening holds the port, so no parallel
	// test's server can take it (a closed listener's port can be reused),
	// and a connection to it is refused.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			cfg := send.Config{BaseURL: "http://" + addr + "/v1", Model: "m", API: api, APIKey: "sk-x"}
			var tries int
			cfg.OnRetry = func(attempt int, wait time.Duration, err error) { tries++ }
			cfg.MaxRetries = 1
			_, err := send.Stream(context.Background(), cfg, request, nil)
			e := asError(t, err, send.ErrNetwork)
			if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), send.Endpoint(cfg)) ||
				!strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "base_url") {
				t.Errorf("error = %v", e)
			}
			if tries != 1 {
				t.Errorf("%d retries, want 1", tries)
			}
		})
	}
}

// TestErrorNamedOnlyByEventLine: a server whose error data has no "type"
// (the event: line names it) still fails the send with its message.
func TestErrorNamedOnlyByEventLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"part\"}\n\n")
		io.WriteString(w, "event: error\ndata: {\"message\":\"overloaded\"}\n\n")
	}))
	defer srv.Close()
	res, err := send.Stream(context.Background(), send.Config{BaseURL: srv.URL + "/v1", Model: "m"}, request, nil)
	if e := asError(t, err, send.ErrStream); e.Message != "overloaded" || res.Text != "part" {
		t.Errorf("message %q, text %q", e.Message, res.Text)
	}
}

// TestReasoningModelTemperature: go-openai refuses a chat request with a
// temperature for gpt-5 before sending it; that is a config error that
// says what to change, and nothing reaches the server.
func TestReasoningModelTemperature(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{})
	cfg := config(srv, send.Chat)
	cfg.Model = "gpt-5"
	temp := float32(0.3)
	cfg.Temperature = &temp
	_, err := send.Stream(context.Background(), cfg, request, nil)
	asError(t, err, send.ErrConfig)
	if !strings.Contains(err.Error(), "[llm] temperature") || len(srv.Requests()) != 0 {
		t.Errorf("error %v, %d requests", err, len(srv.Requests()))
	}
}

// TestKeepAliveIsNotAStall: a server that sends only SSE comments for
// longer than Timeout (a model thinking behind a proxy) is alive; the
// answer that follows arrives whole.
func TestKeepAliveIsNotAStall(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for range 8 {
			io.WriteString(w, ": keep-alive\n\n")
			rc.Flush()
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"late\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	res, err := send.Stream(context.Background(), send.Config{BaseURL: srv.URL + "/v1", Model: "m", API: send.Chat, Timeout: 300 * time.Millisecond}, request, nil)
	if err != nil || res.Text != "late" {
		t.Errorf("err %v, text %q", err, res.Text)
	}
}

// TestSlowOnDeltaIsNotAStall: a consumer that takes longer than Timeout
// over a delta does not make the server look stalled.
func TestSlowOnDeltaIsNotAStall(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"a", "b"}})
	cfg := config(srv, send.Responses)
	cfg.Timeout = 100 * time.Millisecond
	res, err := send.Stream(context.Background(), cfg, request, func(string) { time.Sleep(250 * time.Millisecond) })
	if err != nil || res.Text != "ab" {
		t.Errorf("err %v, text %q", err, res.Text)
	}
}
