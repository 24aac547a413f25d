// Package embedtest is an OpenAI-compatible embeddings endpoint for tests:
// it decodes the real request and answers in the real wire format with
// deterministic vectors (hashed words, so texts that share words are
// close), and can be told to fail in the ways real endpoints do.
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// Key and Model are what the server accepts.
const (
	Key   = "test-secret"
	Model = "fake-embed"
	Dims  = 32
)

// Modes a Server can be put in.
const (
	OK        = ""
	Fail      = "fail"      // 503 with an OpenAI error body
	Malformed = "malformed" // a truncated JSON body
	WrongDims = "wrongdims" // right for a one-text probe, wrong after
	Slow      = "slow"      // answers after 2 s (or when the client gives up)
	Stall     = "stall"     // never answers: waits until the client gives up
	StallBody = "stallbody" // sends 200 and the start of a body, then waits
)

// Server is the endpoint; its URL plus "/v1" is the base URL.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	texts    int
	inputs   []string
	mode     string
	failOn   string // fail any request holding a text with this
	arrived  chan struct{}
	stop     chan struct{} // closed when the test ends: stalled handlers return
}

// NewServer starts a server, closed when the test ends.
func NewServer(t *testing.T) *Server {
	s := &Server{arrived: make(chan struct{}, 1024), stop: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.stop) }) // first: Close waits for the handlers
	return s
}

// Arrived receives once for every embeddings request that reached the
// model (authorized and well-formed), so a test can act while one waits.
func (s *Server) Arrived() <-chan struct{} { return s.arrived }

// BaseURL is the API root to configure.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Set changes the mode and resets the counts.
func (s *Server) Set(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode, s.requests, s.texts, s.failOn, s.inputs = mode, 0, 0, "", nil
	for len(s.arrived) > 0 {
		<-s.arrived
	}
}

// FailOn makes every request that holds a text containing substr fail.
func (s *Server) FailOn(substr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failOn = substr
}

// Inputs returns every text the requests since the last Set carried, as
// they arrived.
func (s *Server) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.inputs...)
}

// Counts returns the requests and texts embedded since the last Set.
func (s *Server) Counts() (requests, texts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.texts
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Key {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != Model {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests++
	s.texts += len(req.Input)
	s.inputs = append(s.inputs, req.Input...)
	mode, failOn := s.mode, s.failOn
	s.mu.Unlock()
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	if failOn != "" {
		for _, in := range req.Input {
			if strings.Contains(in, failOn) {
				mode = Fail
			}
		}
	}
	switch mode {
	case Fail:
		http.Error(w, `{"error":{"message":"the model is overloaded"}}`, http.StatusServiceUnavailable)
		return
	case Malformed:
		fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`)
		return
	case Slow:
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	case Stall, StallBody:
		if mode == StallBody {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "4096")
			fmt.Fprint(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	}
	dims := Dims
	if mode == WrongDims && len(req.Input) > 1 {
		dims = Dims / 2
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
		resp.Data = append(resp.Data, item{"embedding", i, Vector(text, dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// Vector is the server's embedding of text: its words hashed into dims
// components, normalized.
func Vector(text string, dims int) []float32 {
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
