package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/cmd/internal/cli"
)

// TestMCPHTTPAddress refuses an address that is not loopback unless told
// so, and a remote one without a token.
func TestMCPHTTPAddress(t *testing.T) {
	root := t.TempDir()
	t.Setenv("DOSSIER_TEST_TOKEN", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:8765"}, "not a loopback address"},
		{[]string{"--http", "192.0.2.1:8765"}, "not a loopback address"},
		{[]string{"--http", "0.0.0.0:8765", "--allow-remote"}, "needs --token-env"},
		{[]string{"--http", "8765"}, "give HOST:PORT"},
		{[]string{"--token-env", "X"}, "go with --http"},
		{[]string{"--allow-origin", "http://localhost:6274"}, "go with --http"},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "localhost:6274"}, "--allow-origin \"localhost:6274\": give scheme://host[:port]"},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "http://localhost:6274/mcp"}, "path, query, and fragment are not allowed"},
		{[]string{"--http", "127.0.0.1:0", "--token-env", "DOSSIER_TEST_TOKEN"}, "DOSSIER_TEST_TOKEN: the variable is empty"},
	} {
		_, stderr, code := runCLI(t, append([]string{"mcp", "--root", root}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("mcp %v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveHTTP starts `dossier ARGS` (an mcp --http server) with env added,
// stopped by SIGINT when the test ends, and returns the URL it serves.
func serveHTTP(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := dossier(args...)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "serving "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatalf("the server did not say where it serves")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return url
}

// TestMCPHTTPToken serves streamable HTTP with a bearer token: a request
// without it gets 401, the SDK's client with it searches; with node, the
// TypeScript SDK's client does too.
func TestMCPHTTPToken(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := workspace(t, 3)
	must(t, "index", "--root", root)
	url := serveHTTP(t, []string{"DOSSIER_TEST_TOKEN=s3cret-token"}, "mcp", "--root", root, "--http", "127.0.0.1:0", "--token-env", "DOSSIER_TEST_TOKEN")

	for _, auth := range []string{"", "Bearer wrong", "s3cret-token"} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"s3cret-token"}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "F1_7 does a thing"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "pkg000/f1.go") {
		t.Errorf("search over HTTP: %v %+v", err, res)
	}
	cs.Close()

	if _, err := os.Stat(mcpClientDir); err == nil {
		t.Run("typescript", func(t *testing.T) {
			rep := runTSClient(t, "--http", url, "--token", "s3cret-token", "--query", "F1_7 does a thing", "--selector", "pkg000/f1.go::1,5")
			checkTSReport(t, rep)
		})
	}
}

// TestMCPStdioBuildsMissingIndex runs `dossier mcp` as a process on a
// workspace without an index: it says on stderr that it builds one (stdout
// carries the protocol only, or the client would fail), searches once it
// is built, and logs each call to the debug log.
func TestMCPStdioBuildsMissingIndex(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := workspace(t, 3)
	logPath := filepath.Join(t.TempDir(), "debug.log")
	cmd := dossier("mcp", "--root", root, "--debug-log", logPath)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, want := cs.InitializeResult().ServerInfo.Version, cli.Version().Short(); got != want || got == "dev" {
		t.Errorf("the server's implementation version is %q, want the build's, %q", got, want)
	}
	for !strings.Contains(stderr.String(), "indexed ") {
		if ctx.Err() != nil {
			t.Fatalf("no notice that the index was built; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "no index in "+root+": building it now") {
		t.Errorf("stderr does not say it builds the index:\n%s", stderr.String())
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "F1_7 does a thing"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "pkg000/f1.go") {
		t.Fatalf("search after the build: %v %+v", err, res)
	}
	raw, _ := os.ReadFile(logPath)
	if !strings.Contains(string(raw), `mcp tools/call search {"query":"F1_7 does a thing"}`) {
		t.Errorf("the debug log lacks the call:\n%s", raw)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestMCPStdioKeepsIndexCurrent runs `dossier mcp` as a process on a git
// repository with a .gitignore and searches, over stdio, for files written
// while it runs, as an agent does: a new file, one in a new directory and
// an editor's save (a temporary file renamed into place) are found, and a
// file in an ignored directory never is.
func TestMCPStdioKeepsIndexCurrent(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	g := newGitRepo(t)
	g.commit(map[string]string{".gitignore": "build/\n", "pkg/a.go": "package pkg\n\n// A does a thing.\nfunc A() {}\n"}, "init", false)
	must(t, "index", "--root", g.root)
	logPath := filepath.Join(t.TempDir(), "debug.log")
	cmd := dossier("mcp", "--root", g.root, "--debug-log", logPath)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for {
		if raw, _ := os.ReadFile(logPath); strings.Contains(string(raw), "mcp index: watching") {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the server never said it watches; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	found := func(word string) bool {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": word, "mode": "text"}})
		if err != nil || res.IsError {
			t.Fatalf("search %s: %v %+v", word, err, res)
		}
		out, _ := res.StructuredContent.(map[string]any)
		results, _ := out["results"].([]any)
		return len(results) > 0
	}
	src := func(word string) string { return "package pkg\n\n// " + word + " is new.\nfunc New() {}\n" }
	writeTree(t, g.root, map[string]string{"build/gen.go": src("ignoredword")})
	for _, c := range []struct{ word, what string }{
		{"quasarword", "a new file"}, {"pulsarword", "a file in a new directory"}, {"nebulaword", "an editor's save"},
	} {
		if found(c.word) {
			t.Fatalf("%s found before it was written", c.word)
		}
		switch c.what {
		case "a new file":
			writeTree(t, g.root, map[string]string{"pkg/b.go": src(c.word)})
		case "a file in a new directory":
			writeTree(t, g.root, map[string]string{"fresh/sub/c.go": src(c.word)})
		default:
			writeTree(t, g.root, map[string]string{"pkg/.d.go.swp": src(c.word)})
			if err := os.Rename(filepath.Join(g.root, "pkg/.d.go.swp"), filepath.Join(g.root, "pkg/d.go")); err != nil {
				t.Fatal(err)
			}
		}
		for !found(c.word) {
			if ctx.Err() != nil {
				raw, _ := os.ReadFile(logPath)
				t.Fatalf("%s: never found; the debug log:\n%s", c.what, raw)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if found("ignoredword") {
		t.Error("a file under the ignored build/ was indexed")
	}
}
