package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/dossierhq/dossier/index/embed"
)

// wireRequest is the JSON body an OpenAI-compatible server receives.
type wireRequest struct {
	Input          []string `json:"input"`
	Model          string   `json:"model"`
	Dimensions     *int     `json:"dimensions"`
	EncodingFormat string   `json:"encoding_format"`
}

type wireEmbedding struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// fakeEndpoint checks requests the way a strict server would and answers
// with reply, or with fakeVec embeddings when reply is nil.
type fakeEndpoint struct {
	t     *testing.T
	srv   *httptest.Server
	model string
	key   string // expected bearer token; "" expects no Authorization header
	reply func(w http.ResponseWriter, r *http.Request, call int, req wireRequest)
	calls atomic.Int32
	mu    sync.Mutex
	reqs  []wireRequest
}

func newFake(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, call int, req wireRequest)) *fakeEndpoint {
	f := &fakeEndpoint{t: t, model: "test-embed", reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	call := int(f.calls.Add(1))
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		f.t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("Content-Type %q, want application/json", ct)
	}
	want := ""
	if f.key != "" {
		want = "Bearer " + f.key
	}
	if got := r.Header.Get("Authorization"); got != want {
		f.t.Errorf("Authorization %q, want %q", got, want)
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req wireRequest
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("decode request: %v", err)
		writeError(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	if req.Model != f.model || req.EncodingFormat != "float" || len(req.Input) == 0 {
		f.t.Errorf("request model %q, encoding_format %q, %d inputs", req.Model, req.EncodingFormat, len(req.Input))
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.reply == nil {
		writeEmbeddings(w, req, 8, nil)
		return
	}
	f.reply(w, r, call, req)
}

func (f *fakeEndpoint) config() embed.OpenAIConfig {
	return embed.OpenAIConfig{BaseURL: f.srv.URL + "/v1", Model: f.model}
}

// fakeVec is the unnormalized vector the fake returns for text.
func fakeVec(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	s := h.Sum64()
	v := make([]float32, dims)
	for j := range v {
		v[j] = float32((s>>(j%24))&0xff) + float32(j) + 1
	}
	return v
}

// writeEmbeddings answers req with dims-long vectors, listed in order
// (identity when nil) but each carrying its true index.
func writeEmbeddings(w http.ResponseWriter, req wireRequest, dims int, order []int) {
	if order == nil {
		order = make([]int, len(req.Input))
		for i := range order {
			order[i] = i
		}
	}
	data := make([]wireEmbedding, 0, len(order))
	for _, i := range order {
		data = append(data, wireEmbedding{Object: "embedding", Index: i, Embedding: fakeVec(req.Input[i], dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
	})
}

func writeError(w http.ResponseWriter, status int, msg string, header map[string]string) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "code": nil,
	}})
}

// waits records the backoff the client asks for instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.d)
}

func newTestOpenAI(t *testing.T, cfg embed.OpenAIConfig) (*OpenAI, *waits) {
	t.Helper()
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	w := &waits{}
	o.retry.sleep = w.sleep
	return o, w
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("func f%d() {}", i)
	}
	return out
}

// checkVectors asserts got holds the normalized fakeVec of each input, in order.
func checkVectors(t *testing.T, in []string, got [][]float32, dims int) {
	t.Helper()
	if len(got) != len(in) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(in))
	}
	for i, v := range got {
		want := fakeVec(in[i], dims)
		embed.Normalize(want)
		var norm float64
		for j := range v {
			norm += float64(v[j]) * float64(v[j])
		}
		if !slices.Equal(v, want) || math.Abs(norm-1) > 1e-5 {
			t.Fatalf("vector %d = %v, want %v (unit length)", i, v, want)
		}
	}
}

func TestOpenAIOrdersByIndexField(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, req wireRequest) {
		order := rand.New(rand.NewPCG(1, 2)).Perm(len(req.Input))
		if order[0] == 0 && order[1] == 1 {
			t.Fatalf("permutation %v is too close to identity to test ordering", order)
		}
		writeEmbeddings(w, req, 8, order)
	})
	o, _ := newTestOpenAI(t, f.config())
	in := texts(7)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 8)
}

func TestOpenAIBatches(t *testing.T) {
	f := newFake(t, nil)
	o, _ := newTestOpenAI(t, f.config())
	in := texts(250)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 8)
	var sizes []int
	for _, r := range f.reqs {
		sizes = append(sizes, len(r.Input))
		lo := slices.Index(in, r.Input[0])
		if lo%100 != 0 || !slices.Equal(r.Input, in[lo:lo+len(r.Input)]) {
			t.Errorf("batch starting at text %d is not a contiguous run of 100", lo)
		}
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{50, 100, 100}) {
		t.Errorf("batch sizes %v, want [50 100 100]", sizes)
	}
	if got, _ := o.Embed(context.Background(), nil); got == nil || len(f.reqs) != 3 {
		t.Errorf("empty input: got %v after %d requests, want an empty result and no request", got, len(f.reqs))
	}
}

func TestOpenAIConcurrencyLimit(t *testing.T) {
	const limit = 3
	var inFlight, most atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, req wireRequest) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		// Hold each request a while, so an unbounded client piles up more
		// than the limit and a serial one never reaches it.
		for deadline := time.Now().Add(50 * time.Millisecond); inFlight.Load() <= limit && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		inFlight.Add(-1) // before answering, so the client cannot start another first
		writeEmbeddings(w, req, 8, nil)
	})
	cfg := f.config()
	cfg.Concurrency, cfg.BatchSize = limit, 1
	o, _ := newTestOpenAI(t, cfg)
	in := texts(12)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 8)
	if most.Load() != limit {
		t.Errorf("at most %d requests in flight, want exactly %d", most.Load(), limit)
	}
}

func TestOpenAIBadResponses(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"truncated JSON", `{"object":"list","data":[{"index":0,"embedding":[1,`, "returned malformed JSON for model test-embed"},
		{"HTML", `<html><body>Bad gateway</body></html>`, "returned malformed JSON"},
		{"string vector", `{"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":[1]}]}`, "malformed JSON"},
		{"wrong count", `{"data":[{"index":0,"embedding":[1,2]}]}`, "returned 1 embeddings for 2 inputs"},
		{"no data", `{"object":"list"}`, "returned 0 embeddings for 2 inputs"},
		{"duplicate index", `{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}`, "index 0 twice"},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[3,4]}]}`, "index 2 for a batch of 2"},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1]}]}`, "empty vector"},
		{"ragged", `{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":[1,2]}]}`,
			"returned 2-dimensional vectors for model test-embed after 3-dimensional ones"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ wireRequest) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			})
			o, w := newTestOpenAI(t, f.config())
			got, err := o.Embed(context.Background(), texts(2))
			if err == nil || got != nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, error %v; want no vectors and an error containing %q", got, err, tc.want)
			}
			if f.calls.Load() != 1 || len(w.list()) != 0 {
				t.Errorf("%d calls, waits %v; a bad body is not retried", f.calls.Load(), w.list())
			}
		})
	}
}

// JSON cannot carry NaN, so the check is driven directly.
func TestOpenAIRejectsNonFiniteValues(t *testing.T) {
	o, _ := newTestOpenAI(t, embed.OpenAIConfig{BaseURL: "http://localhost:1/v1", Model: "m"})
	nan := float32(math.NaN())
	err := o.collect([]openai.Embedding{{Embedding: []float32{1, nan}}}, make([][]float32, 1))
	if err == nil || !strings.Contains(err.Error(), "non-finite value NaN at component 1") {
		t.Fatalf("error %v, want a non-finite value error", err)
	}
}

func TestOpenAIConfiguredDimensions(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, req wireRequest) {
		if req.Dimensions == nil || *req.Dimensions != 1024 {
			t.Errorf("request dimensions %v, want 1024", req.Dimensions)
		}
		writeEmbeddings(w, req, 768, nil)
	})
	cfg := f.config()
	cfg.Dimensions = 1024
	o, _ := newTestOpenAI(t, cfg)
	_, err := o.Embed(context.Background(), texts(2))
	want := "endpoint returned 768-dimensional vectors for model test-embed, expected 1024: set dimensions to 768"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if o.Dims() != 1024 {
		t.Errorf("Dims() = %d after a mismatch, want the configured 1024", o.Dims())
	}
}

func TestOpenAILearnsDimensions(t *testing.T) {
	var dims atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ int, req wireRequest) {
		if req.Dimensions != nil {
			t.Errorf("request sent dimensions %d, want none", *req.Dimensions)
		}
		writeEmbeddings(w, req, int(dims.Load()), nil)
	})
	cfg := f.config()
	cfg.BatchSize, cfg.Concurrency = 1, 1
	o, _ := newTestOpenAI(t, cfg)
	if o.Dims() != 0 {
		t.Fatalf("Dims() = %d before any call, want 0", o.Dims())
	}
	dims.Store(6)
	if err := o.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o.Dims() != 6 {
		t.Fatalf("Dims() = %d after probe, want 6", o.Dims())
	}
	in := texts(3)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 6)
	dims.Store(5)
	_, err = o.Embed(context.Background(), in)
	if err == nil || !strings.Contains(err.Error(), "5-dimensional vectors for model test-embed after 6-dimensional ones") {
		t.Fatalf("error %v, want learned dimensions enforced", err)
	}
}

func TestOpenAIAPIKeyFromEnv(t *testing.T) {
	for _, tc := range []struct{ name, env, value, header string }{
		{"key", "DOSSIER_TEST_KEY", "sk-from-env", "sk-from-env"},
		{"padded key", "DOSSIER_TEST_KEY", " sk-from-file\n", "sk-from-file"},
		{"empty variable", "DOSSIER_TEST_KEY", "", ""},
		{"no variable", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(tc.env, tc.value)
			}
			f := newFake(t, nil)
			f.key = tc.header
			cfg := f.config()
			cfg.APIKeyEnv = tc.env
			o, _ := newTestOpenAI(t, cfg)
			if _, err := o.Embed(context.Background(), texts(1)); err != nil || f.calls.Load() != 1 {
				t.Fatalf("error %v after %d calls", err, f.calls.Load())
			}
		})
	}
}

func TestNewOpenAIValidation(t *testing.T) {
	t.Setenv("DOSSIER_TEST_UNSET", "") // restores the variable afterwards
	os.Unsetenv("DOSSIER_TEST_UNSET")
	ok := embed.OpenAIConfig{BaseURL: "http://localhost:11434/v1/", Model: "nomic-embed-text"}
	with := func(edit func(*embed.OpenAIConfig)) embed.OpenAIConfig { c := ok; edit(&c); return c }
	for _, tc := range []struct {
		cfg  embed.OpenAIConfig
		want string
	}{
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = " " }), "base URL is required"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "localhost:11434/v1" }), "must start with http:// or https://"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "ftp://user:hunter2@host/v1" }), "ftp://user:xxxxx@host/v1 must start"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "http:///v1" }), "has no host"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "http://user:hunter2@h/v1" }), "base URL http://h/v1 has a user name or password"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "http://user:hunter2/x@h:1/v1" }), "base URL is not a URL"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "http://h/v1?x=1" }), "must not have a query"},
		{with(func(c *embed.OpenAIConfig) { c.BaseURL = "http://h/v1/embeddings" }), "ends in /embeddings: give the API root, http://h/v1"},
		{with(func(c *embed.OpenAIConfig) { c.Model = "" }), "model is required"},
		{with(func(c *embed.OpenAIConfig) { c.Dimensions = -1 }), "dimensions must not be negative"},
		{with(func(c *embed.OpenAIConfig) { c.BatchSize = -1 }), "batch size must not be negative"},
		{with(func(c *embed.OpenAIConfig) { c.Concurrency = -1 }), "concurrency must not be negative"},
		{with(func(c *embed.OpenAIConfig) { c.Timeout = -time.Second }), "timeout must not be negative"},
		{with(func(c *embed.OpenAIConfig) { c.APIKeyEnv = "DOSSIER_TEST_UNSET" }), "$DOSSIER_TEST_UNSET is not set"},
	} {
		_, err := NewOpenAI(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewOpenAI(%+v) error %v, want %q", tc.cfg, err, tc.want)
		}
	}

	o, err := NewOpenAI(ok)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if c.BatchSize != 100 || c.Concurrency != 4 || c.MaxRetries != 5 || c.Timeout != time.Minute ||
		o.Model() != "nomic-embed-text" || o.Dims() != 0 || o.url != "http://localhost:11434/v1/embeddings" {
		t.Errorf("defaults: %+v, model %q, dims %d, url %s", c, o.Model(), o.Dims(), o.url)
	}
	o, err = NewOpenAI(with(func(c *embed.OpenAIConfig) { c.Dimensions, c.MaxRetries = 256, -1 }))
	if err != nil || o.Dims() != 256 || o.retry.maxRetries != 0 {
		t.Errorf("configured: dims %d, retries %d, error %v; want 256, 0, nil", o.Dims(), o.retry.maxRetries, err)
	}
}
