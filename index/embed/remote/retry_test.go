package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/embed"
)

// failThenServe answers the first failures calls with status and header, then embeds.
func failThenServe(failures, status int, header map[string]string) func(http.ResponseWriter, *http.Request, int, wireRequest) {
	return func(w http.ResponseWriter, _ *http.Request, call int, req wireRequest) {
		if call <= failures {
			writeError(w, status, "Rate limit reached for requests", header)
			return
		}
		writeEmbeddings(w, req, 8, nil)
	}
}

func TestOpenAIRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"http date", map[string]string{"Retry-After": now.Add(12 * time.Second).Format(http.TimeFormat)}, 12 * time.Second},
		{"capped", map[string]string{"Retry-After": "3600"}, maxRetryWait},
		{"milliseconds", map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, failThenServe(1, http.StatusTooManyRequests, tc.header))
			o, w := newTestOpenAI(t, f.config())
			o.retry.now = func() time.Time { return now }
			in := texts(2)
			got, err := o.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			checkVectors(t, in, got, 8)
			if f.calls.Load() != 2 || !slices.Equal(w.list(), []time.Duration{tc.want}) {
				t.Errorf("%d calls, waits %v; want 2 calls and one wait of %v", f.calls.Load(), w.list(), tc.want)
			}
		})
	}
}

func TestOpenAIRetryBackoff(t *testing.T) {
	f := newFake(t, failThenServe(2, http.StatusServiceUnavailable, nil))
	o, w := newTestOpenAI(t, f.config())
	if _, err := o.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	d := w.list()
	if f.calls.Load() != 3 || len(d) != 2 {
		t.Fatalf("%d calls, waits %v; want 3 calls and 2 waits", f.calls.Load(), d)
	}
	// Each wait is the doubled base plus up to 50% jitter.
	if d[0] < retryBase || d[0] >= retryBase*3/2 || d[1] < 2*retryBase || d[1] >= 3*retryBase {
		t.Errorf("waits %v, want [%v,%v) then [%v,%v)", d, retryBase, retryBase*3/2, 2*retryBase, 3*retryBase)
	}
}

func TestOpenAIRetriesExhausted(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ wireRequest) {
		writeError(w, http.StatusInternalServerError, "upstream exploded", nil)
	})
	cfg := f.config()
	cfg.MaxRetries = 2
	o, w := newTestOpenAI(t, cfg)
	got, err := o.Embed(context.Background(), texts(3))
	if err == nil || got != nil {
		t.Fatalf("got %v, %v; want an error and no vectors", got, err)
	}
	for _, s := range []string{"failed after 3 attempts", "last HTTP 500", "upstream exploded"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if f.calls.Load() != 3 || len(w.list()) != 2 {
		t.Errorf("%d calls and %d waits, want 3 and 2", f.calls.Load(), len(w.list()))
	}
}

func TestOpenAIRejectionsAreNotRetried(t *testing.T) {
	const key = "sk-test-9f8e7d6c"
	for _, tc := range []struct {
		status int
		msg    string
		want   []string
	}{
		{401, "Incorrect API key provided: " + key, []string{"rejected the API key (HTTP 401): set $DOSSIER_TEST_KEY to a valid key"}},
		{403, "key " + key + " may not use this model", []string{"rejected the API key (HTTP 403): set $DOSSIER_TEST_KEY"}},
		{404, `model "test-embed" not found, try pulling it first`, []string{
			`model "test-embed" or endpoint not found at http://`, "/v1/embeddings (HTTP 404): check the base URL and model",
			"try pulling it first"}},
		{400, "input[0] is too long for key " + key, []string{"(HTTP 400): input[0] is too long for key [redacted]"}},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Setenv("DOSSIER_TEST_KEY", key)
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ wireRequest) {
				writeError(w, tc.status, tc.msg, map[string]string{"Retry-After": "1"})
			})
			f.key = key
			cfg := f.config()
			cfg.APIKeyEnv = "DOSSIER_TEST_KEY"
			o, w := newTestOpenAI(t, cfg)
			_, err := o.Embed(context.Background(), texts(1))
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error %q leaks the key", err)
			}
			if f.calls.Load() != 1 || len(w.list()) != 0 {
				t.Errorf("%d calls and waits %v; want one call and no retry", f.calls.Load(), w.list())
			}
		})
	}
}

func TestOpenAITimeoutIsRetried(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int, req wireRequest) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	cfg := f.config()
	cfg.Timeout, cfg.MaxRetries = 100*time.Millisecond, 2
	o, w := newTestOpenAI(t, cfg)
	err := result(t, func() error { _, err := o.Embed(context.Background(), texts(1)); return err })
	want := "timed out after 3 attempts (100ms each): raise the timeout or lower the batch size"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if f.calls.Load() != 3 || len(w.list()) != 2 {
		t.Errorf("%d calls and %d waits, want 3 and 2", f.calls.Load(), len(w.list()))
	}
}

func TestOpenAIConnectionRefusedIsRetried(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	o, w := newTestOpenAI(t, embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: 1})
	_, err := o.Embed(context.Background(), texts(1))
	if err == nil || !strings.Contains(err.Error(), "unreachable after 2 attempts") || len(w.list()) != 1 {
		t.Fatalf("error %v after waits %v, want unreachable after 2 attempts", err, w.list())
	}
}

// result runs Embed in the background, failing the test rather than
// hanging if it does not return.
func result(t *testing.T, start func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- start() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Embed did not return")
		return nil
	}
}

func TestOpenAIContextCancel(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int, _ wireRequest) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	o, w := newTestOpenAI(t, f.config())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	err := result(t, func() error {
		got, err := o.Embed(ctx, texts(1))
		if got != nil {
			t.Errorf("got vectors after cancel")
		}
		return err
	})
	if !errors.Is(err, context.Canceled) || len(w.list()) != 0 {
		t.Fatalf("error %v after waits %v, want context.Canceled and no retry", err, w.list())
	}
}

func TestOpenAIFirstFailureCancelsTheRest(t *testing.T) {
	slowArrived, slowCanceled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ int, req wireRequest) {
		if req.Input[0] == "slow" {
			close(slowArrived)
			select {
			case <-r.Context().Done():
				close(slowCanceled)
			case <-release:
			}
			return
		}
		<-slowArrived
		writeError(w, http.StatusBadRequest, "input is not allowed", nil)
	})
	t.Cleanup(func() { close(release) })
	cfg := f.config()
	cfg.BatchSize, cfg.Concurrency = 1, 2
	o, _ := newTestOpenAI(t, cfg)
	err := result(t, func() error { _, err := o.Embed(context.Background(), []string{"slow", "bad"}); return err })
	if err == nil || !strings.Contains(err.Error(), "(HTTP 400): input is not allowed") {
		t.Fatalf("error %v, want the 400", err)
	}
	select {
	case <-slowCanceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow request was not canceled")
	}

	// With one worker, batches after the failure are never sent.
	f2 := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ wireRequest) {
		writeError(w, http.StatusBadRequest, "no", nil)
	})
	cfg = f2.config()
	cfg.BatchSize, cfg.Concurrency = 1, 1
	o, _ = newTestOpenAI(t, cfg)
	if _, err := o.Embed(context.Background(), texts(5)); err == nil || f2.calls.Load() != 1 {
		t.Errorf("error %v after %d calls, want an error after 1", err, f2.calls.Load())
	}
}

func TestServerMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"bad input","type":"invalid_request_error","code":null}}`: "bad input",
		`{"error":"model 'x' not found"}`:                                              "model 'x' not found",
		`{"object":"error","message":"too long","type":"BadRequestError","code":400}`:  "too long",
		"<html>\n  <h1>502 Bad Gateway</h1>\n</html>":                                  "<html> <h1>502 Bad Gateway</h1> </html>",
		strings.Repeat("é", 200):                                                       strings.Repeat("é", 150) + "…",
	} {
		if got := serverMessage([]byte(body)); got != want {
			t.Errorf("serverMessage(%q) = %q, want %q", body, got, want)
		}
	}
}
