package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const (
	retryBase    = 500 * time.Millisecond
	maxBackoff   = 30 * time.Second
	maxRetryWait = 60 * time.Second // cap on one wait, Retry-After included
	maxBody      = 256 << 20        // a batch of 2048 × 3072 floats is ~130 MB of JSON
	maxErrorBody = 64 << 10
)

// retrier is the HTTP client go-openai sends through. It owns every
// attempt because go-openai neither retries nor shows response headers in
// its errors, so Retry-After would be lost. Only 2xx responses reach
// go-openai, fully read, so a body that stalls is retried like a stalled
// header; every failure comes back as an *attemptError.
type retrier struct {
	client     *http.Client
	timeout    time.Duration // per attempt
	maxRetries int
	sleep      func(ctx context.Context, d time.Duration) error // tests record instead
	now        func() time.Time                                 // for HTTP-date Retry-After
}

// attemptError says why the last attempt failed and how many there were.
type attemptError struct {
	status     int    // HTTP status; 0 when no response arrived
	message    string // the server's error message
	err        error  // the transport error when status is 0
	timedOut   bool
	permanent  bool          // a bad certificate, an oversized body: trying again cannot help
	retryAfter time.Duration // <0 when the server named no wait
	attempts   int
}

func (e *attemptError) Error() string {
	if e.status == 0 {
		return fmt.Sprintf("after %s: %v", attempts(e.attempts), e.err)
	}
	return fmt.Sprintf("HTTP %d after %s: %s", e.status, attempts(e.attempts), e.message)
}

func (e *attemptError) Unwrap() error { return e.err }

func (e *attemptError) retryable() bool {
	if e.status == 0 {
		return !e.permanent
	}
	return e.status == http.StatusRequestTimeout || e.status == http.StatusTooManyRequests || e.status >= 500
}

// Do sends req until it succeeds, fails for good, or runs out of retries.
func (r *retrier) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	retries := r.maxRetries
	if req.Body != nil && req.GetBody == nil {
		retries = 0 // the body cannot be sent twice
	}
	for n := 1; ; n++ {
		res, ae := r.attempt(req)
		if ae == nil {
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ae.attempts = n
		if !ae.retryable() || n > retries {
			return nil, ae
		}
		wait := ae.retryAfter
		if wait < 0 {
			wait = backoff(n)
		}
		if err := r.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (r *retrier) attempt(req *http.Request) (*http.Response, *attemptError) {
	ctx, cancel := context.WithTimeout(req.Context(), r.timeout)
	defer cancel()
	areq := req.Clone(ctx)
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, &attemptError{err: err, permanent: true, retryAfter: -1}
		}
		areq.Body = body
	}
	res, err := r.client.Do(areq)
	if err != nil {
		return nil, transportError(err)
	}
	defer res.Body.Close()

	if res.StatusCode < 200 || res.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		return nil, &attemptError{
			status:     res.StatusCode,
			message:    serverMessage(body),
			retryAfter: retryAfter(res.Header, r.now()),
		}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return nil, transportError(fmt.Errorf("read response: %w", err))
	}
	if len(body) > maxBody {
		return nil, &attemptError{err: fmt.Errorf("response larger than %d MB: lower the batch size", maxBody>>20),
			permanent: true, retryAfter: -1}
	}
	out := *res
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	return &out, nil
}

func transportError(err error) *attemptError {
	var ne net.Error
	timedOut := errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
	)
	cert := errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname) || errors.As(err, &verify)
	return &attemptError{err: err, timedOut: timedOut, permanent: cert, retryAfter: -1}
}

// backoff is the wait before retry n (from 1): exponential, capped, with
// up to 50% jitter so parallel workers that failed together spread out.
func backoff(n int) time.Duration {
	d := maxBackoff
	if n <= 16 {
		d = min(retryBase<<(n-1), maxBackoff)
	}
	return d + rand.N(d/2)
}

// retryAfter reads the server's requested wait, at most maxRetryWait:
// OpenAI's retry-after-ms, or Retry-After in seconds or as an HTTP date;
// -1 when there is none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return time.Duration(min(ms, float64(maxRetryWait/time.Millisecond)) * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return -1
		}
		return time.Duration(min(s, int64(maxRetryWait/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryWait)
	}
	return -1
}

// serverMessage digs the message out of an error body: OpenAI's
// {"error":{"message":…}}, {"error":"…"} and vLLM's {"message":…}, or
// else the body's text, shortened.
func serverMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var api openai.APIError
		if len(v.Error) > 0 && json.Unmarshal(v.Error, &api) == nil && api.Message != "" {
			return api.Message
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
		if json.Unmarshal(v.Message, &s) == nil && s != "" {
			return s
		}
	}
	text := strings.Join(strings.Fields(string(body)), " ")
	if len(text) > 300 {
		text = strings.ToValidUTF8(text[:300], "") + "…"
	}
	return text
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return strconv.Itoa(n) + " attempts"
}
