package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// embedServer is an OpenAI-compatible embeddings endpoint: it decodes the
// real request and answers in the real wire format with deterministic
// vectors (hashed words, so texts that share words are close).
type embedServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	texts    int
	mode     string // "", "fail", "malformed", "wrongdims", "slow"
}

const fakeDims = 32

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer test-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
			return
		}
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "fake-embed" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests++
		s.texts += len(req.Input)
		mode := s.mode
		s.mu.Unlock()
		switch mode {
		case "fail":
			http.Error(w, `{"error":{"message":"the model is overloaded"}}`, http.StatusServiceUnavailable)
			return
		case "malformed":
			fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`)
			return
		case "slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return
		}
		dims := fakeDims
		if mode == "wrongdims" && len(req.Input) > 1 {
			// Right for a one-text probe, wrong for the batches after it.
			dims = fakeDims / 2
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Object string         `json:"object"`
			Data   []item         `json:"data"`
			Model  string         `json:"model"`
			Usage  map[string]int `json:"usage"`
		}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
		for i, text := range req.Input {
			resp.Data = append(resp.Data, item{"embedding", i, fakeVector(text, dims)})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(s.Close)
	return s
}

func fakeVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n) + 1e-9)
	}
	return v
}

func (s *embedServer) set(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode, s.requests, s.texts = mode, 0, 0
}

func (s *embedServer) counts() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.texts
}

// TestRemoteEmbedder drives an OpenAI-compatible endpoint through the CLI:
// indexing embeds every chunk once, the cache spares unchanged text, the
// index records its model, a query with another model is refused, and an
// endpoint that fails leaves the index exactly as it was.
func TestRemoteEmbedder(t *testing.T) {
	srv := newEmbedServer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("TEST_EMBED_KEY", "test-secret")
	root := t.TempDir()
	files := map[string]string{
		"billing/invoice.go": "package billing\n\n// SendInvoiceEmail mails the invoice to the customer.\nfunc SendInvoiceEmail(to string) error { return nil }\n",
		"billing/refund.go":  "package billing\n\n// IssueRefund returns money to the card.\nfunc IssueRefund(amount int) error { return nil }\n",
		"docs/guide.md":      "# Guide\n\n## Refunds\n\nRefunds go back to the card within a week.\n",
	}
	for p, c := range files {
		writeFile(t, root, p, c)
	}
	writeFile(t, root, ".dossier.toml", fmt.Sprintf("[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"fake-embed\"\napi_key_env = \"TEST_EMBED_KEY\"\ntimeout = \"300ms\"\nmax_retries = 1\n", srv.URL+"/v1"))

	mustRun := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
		return out
	}
	mustRun("index", "--root", root)
	if reqs, texts := srv.counts(); reqs == 0 || texts < 4 {
		t.Fatalf("first index: %d requests, %d texts embedded", reqs, texts)
	}
	out := mustRun("search", "--root", root, "--mode", "vector", "--json", "mail the invoice email to the customer")
	var resp struct {
		Results []struct {
			Path   string `json:"path"`
			Symbol string `json:"symbol"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Results) == 0 || resp.Results[0].Symbol != "SendInvoiceEmail" {
		t.Fatalf("vector search with the remote model: %v %s", err, out)
	}

	// Nothing changed: nothing is embedded again.
	srv.set("")
	mustRun("index", "--root", root)
	if reqs, _ := srv.counts(); reqs != 0 {
		t.Errorf("unchanged workspace: %d embedding requests", reqs)
	}
	// One file changed: only its new text goes out.
	writeFile(t, root, "billing/refund.go", "package billing\n\n// IssueRefund returns money to the card, minus fees.\nfunc IssueRefund(amount int) error { return nil }\n")
	srv.set("")
	mustRun("index", "--root", root)
	if _, texts := srv.counts(); texts == 0 || texts > 3 {
		t.Errorf("one changed file: %d texts embedded, want its own chunks only", texts)
	}

	// Back to builtin vectors: the config's openai is now refused at query time.
	mustRun("index", "--root", root, "--embedder", "builtin")
	if _, stderr, code := runCLI(t, "search", "--root", root, "refund the card"); code != exitError || !strings.Contains(stderr, "cannot be compared") {
		t.Errorf("openai query on a builtin index: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "search", "--root", root, "--embedder", "builtin", "refund the card"); code != exitOK {
		t.Errorf("builtin query on a builtin index: exit %d, %q", code, stderr)
	}

	// Switching back to openai needs no request: every text is cached.
	srv.set("")
	mustRun("index", "--root", root)
	if reqs, _ := srv.counts(); reqs != 0 {
		t.Errorf("switch back to a cached model: %d requests", reqs)
	}

	// A failing endpoint during a switch leaves the index as it was.
	mustRun("index", "--root", root, "--embedder", "builtin")
	before := mustRun("search", "--root", root, "--embedder", "builtin", "--json", "refund the card")
	writeFile(t, root, "billing/new.go", "package billing\n\n// Void cancels an unpaid invoice.\nfunc Void(id string) error { return nil }\n")
	for _, c := range []struct{ mode, want string }{
		{"fail", "overloaded"},
		{"malformed", "unexpected"},
		{"wrongdims", "dimensional"},
		{"slow", "timed out"},
	} {
		srv.set(c.mode)
		_, stderr, code := runCLI(t, "index", "--root", root, "--embedder", "openai")
		if code != exitError || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "test-secret") {
			t.Errorf("%s endpoint: exit %d, %q (want exit 1 and %q)", c.mode, code, stderr, c.want)
		}
		after := mustRun("search", "--root", root, "--embedder", "builtin", "--json", "refund the card")
		if stripLatency(after) != stripLatency(before) {
			t.Errorf("%s endpoint changed the index:\nbefore %s\nafter  %s", c.mode, before, after)
		}
	}

	// A wrong key is said plainly, and never printed.
	srv.set("")
	t.Setenv("TEST_EMBED_KEY", "wrong")
	if _, stderr, code := runCLI(t, "index", "--root", root, "--embedder", "openai"); code != exitError || !strings.Contains(stderr, "TEST_EMBED_KEY") || strings.Contains(stderr, "wrong") {
		t.Errorf("wrong key: exit %d, %q", code, stderr)
	}
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stripLatency drops the one field of a search answer that differs between
// identical searches.
func stripLatency(s string) string {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	if d, ok := v["debug"].(map[string]any); ok {
		delete(d, "latency_ms")
	}
	b, _ := json.Marshal(v)
	return string(b)
}
