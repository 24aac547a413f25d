package send

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; 0 when the server said nothing usable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// headerTap is the transport go-openai sends through; it keeps the last
// response's headers, which go-openai does not show on an error.
type headerTap struct {
	base   http.RoundTripper
	body   []byte // what to post instead of go-openai's body (see encode)
	onRead func() // told of every read of a response body that got bytes
	mu     sync.Mutex
	last   http.Header
}

func (t *headerTap) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.body != nil && r.Method == http.MethodPost {
		if r.Body != nil {
			r.Body.Close() // go-openai's marshalling of the same request
		}
		r = r.Clone(r.Context())
		body := t.body
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	resp, err := base.RoundTrip(r)
	if resp != nil && resp.StatusCode/100 == 2 {
		wrapStream(r, resp, t.onRead)
	}
	t.mu.Lock()
	t.last = nil
	if resp != nil {
		t.last = resp.Header
	}
	t.mu.Unlock()
	return resp, err
}

func (t *headerTap) header() http.Header {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}
