package search_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/embed/embedtest"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// hang guards a test against a search that never returns: far above any
// bound the settings give, it only turns a hang into a failure.
const hang = 30 * time.Second

// remoteWorkspace indexes the test files with the fake endpoint's model and
// returns the root and the settings that name the endpoint, with the
// given timeout and retries.
func remoteWorkspace(t *testing.T, srv *embedtest.Server, timeout string, retries int) (string, config.Embed) {
	t.Helper()
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	c := config.Embed{Provider: "openai", BaseURL: srv.BaseURL(), Model: embedtest.Model,
		APIKeyEnv: "TEST_EMBED_KEY", Timeout: timeout, MaxRetries: retries}
	root := t.TempDir()
	for p, content := range files {
		write(t, root, p, content)
	}
	runIndex(t, root, c)
	return root, c
}

// runIndex brings the index of root up to date with the remote model of c.
func runIndex(t *testing.T, root string, c config.Embed) {
	t.Helper()
	m, e, err := index.NewEmbedder(c, "")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(index.Options{Root: root, Model: m, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

type answer struct {
	resp search.Response
	err  error
}

// searchBG runs one search in the background.
func searchBG(ctx context.Context, e *search.Engine, root string, q search.Query) <-chan answer {
	done := make(chan answer, 1)
	go func() {
		resp, err := e.SearchRoot(ctx, root, q)
		done <- answer{resp, err}
	}()
	return done
}

// await returns the search's answer, failing the test if it hangs.
func await(t *testing.T, done <-chan answer) answer {
	t.Helper()
	select {
	case a := <-done:
		return a
	case <-time.After(hang):
		t.Fatalf("the search did not return in %s", hang)
		return answer{}
	}
}

// lexicalOnly checks a hybrid answer that left the vectors out: results,
// every one found by text or symbols, and a warning that says why, in the
// notes too, without the key.
func lexicalOnly(t *testing.T, resp search.Response, why string) {
	t.Helper()
	if len(resp.Results) == 0 || resp.Results[0].Symbol != "Cart.TotalPrice" {
		t.Fatalf("results %+v, want Cart.TotalPrice first", resp.Results)
	}
	for _, r := range resp.Results {
		for _, s := range r.Sources {
			if s != "text" && s != "symbol" {
				t.Errorf("%s:%d found by %v without vectors", r.Path, r.StartLine, r.Sources)
			}
		}
	}
	if len(resp.Debug.Warnings) != 1 {
		t.Fatalf("warnings %q, want one", resp.Debug.Warnings)
	}
	w := resp.Debug.Warnings[0]
	if !strings.HasPrefix(w, "vectors left out: ") || !strings.Contains(w, why) || strings.Contains(w, embedtest.Key) {
		t.Errorf("warning %q, want vectors left out because %q, without the key", w, why)
	}
	found := false
	for _, n := range resp.Debug.Notes {
		found = found || n == w
	}
	if !found {
		t.Errorf("notes %q lack the warning", resp.Debug.Notes)
	}
}

// TestStalledEndpointFallsBack: an endpoint that accepts the query and
// never answers costs the settings' attempts, each cut at the timeout, and
// a hybrid search then answers from text and symbols.
func TestStalledEndpointFallsBack(t *testing.T) {
	for _, mode := range []string{embedtest.Stall, embedtest.StallBody} {
		t.Run(mode, func(t *testing.T) {
			srv := embedtest.NewServer(t)
			root, c := remoteWorkspace(t, srv, "300ms", 1)
			e := search.NewEngine()
			e.AllowEndpoint(c)
			srv.Set(mode)
			ctx, cancel := context.WithTimeout(context.Background(), hang)
			defer cancel()
			a := await(t, searchBG(ctx, e, root, search.Query{Text: "total price of the cart"}))
			if a.err != nil {
				t.Fatalf("hybrid search on a stalled endpoint: %v", a.err)
			}
			lexicalOnly(t, a.resp, "timed out after 2 attempts (300ms each)")
			if reqs, _ := srv.Counts(); reqs != 2 {
				t.Errorf("%d requests, want 2 (max_retries 1)", reqs)
			}
			// The partial answer is not kept: the next search asks again.
			srv.Set(embedtest.OK)
			a = await(t, searchBG(ctx, e, root, search.Query{Text: "total price of the cart"}))
			if a.err != nil || len(a.resp.Debug.Warnings) != 0 || !strings.Contains(a.resp.Debug.Strategy, "vector") {
				t.Errorf("the endpoint is back: %v, strategy %s, warnings %q", a.err, a.resp.Debug.Strategy, a.resp.Debug.Warnings)
			}
		})
	}
}

// TestWaitingSearchHoldsNoIndex: while a search waits on the endpoint, an
// indexer writes the index; cancelling the search ends its wait.
func TestWaitingSearchHoldsNoIndex(t *testing.T) {
	t.Run("one-off", func(t *testing.T) { waitingSearchHoldsNoIndex(t, false) })
	// An Engine told to Hold the index lets it go before it waits, too.
	t.Run("held", func(t *testing.T) { waitingSearchHoldsNoIndex(t, true) })
}

func waitingSearchHoldsNoIndex(t *testing.T, hold bool) {
	srv := embedtest.NewServer(t)
	root, c := remoteWorkspace(t, srv, "10m", -1)
	e := search.NewEngine()
	e.AllowEndpoint(c)
	if hold {
		e.Hold()
		defer e.Release()
	}
	srv.Set(embedtest.Stall)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := searchBG(ctx, e, root, search.Query{Text: "total price of the cart"})
	select {
	case <-srv.Arrived():
	case a := <-done:
		t.Fatalf("the search returned before the endpoint answered: %v", a.err)
	case <-time.After(hang):
		t.Fatal("the query never reached the endpoint")
	}
	// A writer gets in at once, and a full run, writing its summary.
	w, err := store.Open(store.Path(root), store.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("a writer while the search waits on the endpoint: %v", err)
	}
	w.Close()
	runIndex(t, root, c)
	cancel()
	if a := await(t, done); !errors.Is(a.err, context.Canceled) {
		t.Fatalf("cancelled search: %v, want context.Canceled", a.err)
	}
}

// TestEndpointDown: with nothing listening, hybrid answers from text and
// symbols and says the endpoint is unreachable; vector mode fails, naming
// the endpoint and the problem.
func TestEndpointDown(t *testing.T) {
	srv := embedtest.NewServer(t)
	root, c := remoteWorkspace(t, srv, "300ms", 1)
	srv.Close()
	e := search.NewEngine()
	e.AllowEndpoint(c)
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	a := await(t, searchBG(ctx, e, root, search.Query{Text: "total price of the cart"}))
	if a.err != nil {
		t.Fatalf("hybrid search on a closed endpoint: %v", a.err)
	}
	lexicalOnly(t, a.resp, "unreachable after 2 attempts")
	if !strings.Contains(a.resp.Debug.Warnings[0], srv.BaseURL()) {
		t.Errorf("warning %q does not name %s", a.resp.Debug.Warnings[0], srv.BaseURL())
	}
	a = await(t, searchBG(ctx, e, root, search.Query{Text: "total price of the cart", Mode: search.Vector}))
	var ee *search.EndpointError
	if !errors.As(a.err, &ee) || !strings.Contains(a.err.Error(), srv.BaseURL()) || !strings.Contains(a.err.Error(), "unreachable") {
		t.Fatalf("vector search on a closed endpoint: %v, want an EndpointError naming %s", a.err, srv.BaseURL())
	}
}

// TestRejectedKeyFallsBack: a key the endpoint refuses is a failure of the
// endpoint like any other: hybrid answers without vectors, and says what
// to fix without saying the key.
func TestRejectedKeyFallsBack(t *testing.T) {
	srv := embedtest.NewServer(t)
	root, c := remoteWorkspace(t, srv, "300ms", 1)
	t.Setenv("TEST_EMBED_KEY", "wrong-key")
	e := search.NewEngine()
	e.AllowEndpoint(c)
	resp, err := e.SearchRoot(context.Background(), root, search.Query{Text: "total price of the cart"})
	if err != nil {
		t.Fatal(err)
	}
	lexicalOnly(t, resp, "rejected the API key (HTTP 401): set $TEST_EMBED_KEY")
	if strings.Contains(resp.Debug.Warnings[0], "wrong-key") {
		t.Errorf("warning %q shows the key", resp.Debug.Warnings[0])
	}
}
