package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/embed/embedtest"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
	"github.com/dossierhq/dossier/store/config"
)

// TestRemoteEmbedder drives an OpenAI-compatible endpoint through the CLI:
// indexing embeds every chunk once, the cache spares unchanged text, the
// index records its model, a query with another model is refused, and an
// endpoint that fails leaves the index exactly as it was.
func TestRemoteEmbedder(t *testing.T) {
	srv := embedtest.NewServer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	root := t.TempDir()
	files := map[string]string{
		"billing/invoice.go": "package billing\n\n// SendInvoiceEmail mails the invoice to the customer.\nfunc SendInvoiceEmail(to string) error { return nil }\n",
		"billing/refund.go":  "package billing\n\n// IssueRefund returns money to the card.\nfunc IssueRefund(amount int) error { return nil }\n",
		"docs/guide.md":      "# Guide\n\n## Refunds\n\nRefunds go back to the card within a week.\n",
	}
	for p, c := range files {
		writeFile(t, root, p, c)
	}
	writeFile(t, root, ".dossier.toml", fmt.Sprintf("[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = %q\napi_key_env = \"TEST_EMBED_KEY\"\ntimeout = \"300ms\"\nmax_retries = 1\n", srv.BaseURL(), embedtest.Model))

	mustRun := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
		return out
	}
	if _, err := config.Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	mustRun("index", "--root", root)
	if reqs, texts := srv.Counts(); reqs == 0 || texts < 4 {
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

	// A key pasted into the query reaches the endpoint as its marker, and
	// the output says so.
	srv.Set("")
	out = mustRun("search", "--root", root, "invoice email "+secrettest.AWSKey)
	if in := srv.Inputs(); len(in) != 1 || in[0] != "invoice email [REDACTED:aws-access-token]" {
		t.Errorf("the query's key was sent: %q", in)
	}
	if !strings.Contains(out, "note: the query holds a secret (aws-access-token)") {
		t.Errorf("search does not say the query was redacted:\n%s", out)
	}

	// Nothing changed: nothing is embedded again.
	srv.Set("")
	mustRun("index", "--root", root)
	if reqs, _ := srv.Counts(); reqs != 0 {
		t.Errorf("unchanged workspace: %d embedding requests", reqs)
	}
	// One file changed: only its new text goes out.
	writeFile(t, root, "billing/refund.go", "package billing\n\n// IssueRefund returns money to the card, minus fees.\nfunc IssueRefund(amount int) error { return nil }\n")
	srv.Set("")
	mustRun("index", "--root", root)
	if _, texts := srv.Counts(); texts == 0 || texts > 3 {
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

	// Switching back to openai embeds nothing again: every text is cached
	// (one one-text request learns the model's size).
	srv.Set("")
	mustRun("index", "--root", root)
	if reqs, texts := srv.Counts(); reqs > 1 || texts > 1 {
		t.Errorf("switch back to a cached model: %d requests, %d texts", reqs, texts)
	}

	// A failing endpoint during a switch leaves the index as it was.
	mustRun("index", "--root", root, "--embedder", "builtin")
	before := mustRun("search", "--root", root, "--embedder", "builtin", "--json", "refund the card")
	writeFile(t, root, "billing/new.go", "package billing\n\n// Void cancels an unpaid invoice.\nfunc Void(id string) error { return nil }\n")
	for _, c := range []struct{ mode, want string }{
		{embedtest.Fail, "overloaded"},
		{embedtest.Malformed, "unexpected"},
		{embedtest.WrongDims, "dimensional"},
		{embedtest.Slow, "timed out"},
	} {
		srv.Set(c.mode)
		_, stderr, code := runCLI(t, "index", "--root", root, "--embedder", "openai")
		if code != exitError || !strings.Contains(stderr, c.want) || strings.Contains(stderr, embedtest.Key) {
			t.Errorf("%s endpoint: exit %d, %q (want exit 1 and %q)", c.mode, code, stderr, c.want)
		}
		after := mustRun("search", "--root", root, "--embedder", "builtin", "--json", "refund the card")
		if stripLatency(after) != stripLatency(before) {
			t.Errorf("%s endpoint changed the index:\nbefore %s\nafter  %s", c.mode, before, after)
		}
	}

	// A wrong key is said plainly, and never printed.
	srv.Set("")
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

// TestRemoteSearchWhenTheEndpointFails drives the search command, as a
// process, against an endpoint that stalls and one that is down: hybrid
// answers from text and symbols and says on standard error why the vectors
// are left out, vector mode fails naming the endpoint, a search waiting on
// the endpoint keeps nobody from indexing, and Ctrl-C ends its wait.
func TestRemoteSearchWhenTheEndpointFails(t *testing.T) {
	srv := embedtest.NewServer(t)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	root := t.TempDir()
	writeFile(t, root, "billing/refund.go", "package billing\n\n// IssueRefund returns money to the card.\nfunc IssueRefund(amount int) error { return nil }\n")
	writeFile(t, root, "docs/guide.md", "# Guide\n\n## Refunds\n\nRefunds go back to the card within a week.\n")
	// The user's own settings: outside the workspace, so changing them
	// changes nothing the index holds.
	configure := func(timeout string) {
		t.Helper()
		writeFile(t, home, "dossier/config.toml", fmt.Sprintf("[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = %q\napi_key_env = \"TEST_EMBED_KEY\"\ntimeout = %q\nmax_retries = 1\n", srv.BaseURL(), embedtest.Model, timeout))
	}
	// run runs the binary, failing the test rather than hanging.
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := dossier(args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Start()
		if err == nil {
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("%v did not return in 30s: %s%s", args, out.String(), errb.String())
			}
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	configure("300ms")
	if _, stderr, code := run("index", "--root", root); code != exitOK {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}

	checkFallback := func(why string) {
		t.Helper()
		out, stderr, code := run("search", "--root", root, "--json", "refund the card")
		var resp search.Response
		if code != exitOK || json.Unmarshal([]byte(out), &resp) != nil || len(resp.Results) == 0 {
			t.Fatalf("hybrid search: exit %d, %s%s", code, out, stderr)
		}
		for _, r := range resp.Results {
			if slices.Contains(r.Sources, "vector") {
				t.Errorf("%s found by %v", r.Path, r.Sources)
			}
		}
		want := "dossier: vectors left out: embeddings endpoint " + srv.BaseURL() + "/embeddings " + why
		if !strings.Contains(stderr, want) || strings.Contains(stderr+out, embedtest.Key) || len(resp.Debug.Warnings) != 1 {
			t.Errorf("stderr %q, warnings %q: want %q, without the key", stderr, resp.Debug.Warnings, want)
		}
		_, stderr, code = run("search", "--root", root, "--mode", "vector", "refund the card")
		if code != exitError || !strings.Contains(stderr, srv.BaseURL()) || !strings.Contains(stderr, why) {
			t.Errorf("vector search: exit %d, %q: want exit 1 naming %s and %q", code, stderr, srv.BaseURL(), why)
		}
	}
	srv.Set(embedtest.Stall)
	checkFallback("timed out after 2 attempts (300ms each)")

	// A search that waits does not hold the index: a run goes through.
	configure("10m")
	srv.Set(embedtest.Stall)
	waiting := dossier("search", "--root", root, "refund the card")
	var errb bytes.Buffer
	waiting.Stderr = &errb
	if err := waiting.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { waiting.Process.Kill() })
	select {
	case <-srv.Arrived():
	case <-time.After(30 * time.Second):
		t.Fatal("the search never reached the endpoint")
	}
	if _, stderr, code := run("index", "--root", root); code != exitOK {
		t.Errorf("index while a search waits on the endpoint: exit %d: %s", code, stderr)
	}
	// Ctrl-C ends the wait.
	if err := waiting.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- waiting.Wait() }()
	select {
	case <-done:
		if code := waiting.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(errb.String(), "stopped by SIGINT") {
			t.Errorf("interrupted search: exit %d, %q", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted search did not end in 30s")
	}

	configure("300ms")
	srv.Close()
	checkFallback("unreachable after 2 attempts")
}
