package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
	"github.com/dossierhq/dossier/store"
)

// testWorkspace writes a small Go module: calc.go (Add calls clamp),
// calc_test.go, a file of made-up credentials, and a secret outside the
// workspace that a symlink inside points at.
func testWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	write := func(rel, text string) { writeFile(t, root, rel, text) }
	write("go.mod", "module example.com/calc\n\ngo 1.22\n")
	write("calc/calc.go", "package calc\n\n// Add returns the sum of a and b, clamped to the limit.\nfunc Add(a, b int) int {\n\treturn clamp(a + b)\n}\n\n// clamp keeps n under the limit.\nfunc clamp(n int) int {\n\tif n > 100 {\n\t\treturn 100\n\t}\n\treturn n\n}\n")
	write("calc/calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n")
	write("cmd/main.go", secrettest.GoFile())
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("the neighbour's diary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "away")); err != nil {
		t.Fatal(err)
	}
	return root
}

// writeFile writes text to rel under root, making its directories.
func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func indexWorkspace(t *testing.T, root string) {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// connect serves a new server for root to an in-memory client.
func connect(t *testing.T, root string, readOnly bool) (*Server, *sdk.ClientSession) {
	t.Helper()
	srv := New(Options{Root: root, Engine: evidence.NewEngine(root), Search: search.NewEngine(), ReadOnly: readOnly})
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return srv, cs
}

// call calls a tool and returns its text, its structured content and
// whether it is a tool error; a protocol error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out map[string]any
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: structuredContent is not an object: %s", name, raw)
		}
	}
	return text.String(), out, res.IsError
}

// ok calls a tool that must succeed.
func ok(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, map[string]any) {
	t.Helper()
	text, out, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", name, args, text)
	}
	return text, out
}

// fails calls a tool that must fail with a message holding want.
func fails(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	text, _, isErr := call(t, cs, name, args)
	if !isErr {
		t.Errorf("%s %v: no tool error; got:\n%s", name, args, text)
		return
	}
	if !strings.Contains(text, want) {
		t.Errorf("%s %v: error %q does not say %q", name, args, text, want)
	}
	// A tool takes no command line: the CLI's synopsis would name flags
	// it does not have.
	if strings.Contains(text, "usage:") {
		t.Errorf("%s %v: error %q carries the CLI's usage line", name, args, text)
	}
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" {
			t.Errorf("tool %s has no description", tl.Name)
		}
	}
	slices.Sort(names)
	return names
}

func TestToolLists(t *testing.T) {
	root := testWorkspace(t)
	_, cs := connect(t, root, false)
	want := []string{"ask", "assemble", "evidence_add", "evidence_fit", "evidence_focus", "evidence_remove",
		"evidence_status", "evidence_toggle", "flow_new", "flow_use", "read", "related", "search"}
	if got := toolNames(t, cs); !slices.Equal(got, want) {
		t.Errorf("tools: %v, want %v", got, want)
	}
	_, ro := connect(t, root, true)
	if got := toolNames(t, ro); !slices.Equal(got, []string{"assemble", "read", "related", "search"}) {
		t.Errorf("read-only tools: %v", got)
	}
	if _, err := ro.CallTool(context.Background(), &sdk.CallToolParams{Name: "evidence_add", Arguments: map[string]any{"selector": "calc/calc.go"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("read-only server runs evidence_add: %v", err)
	}
}

func TestSearch(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	text, out := ok(t, cs, "search", map[string]any{"query": "clamp limit sum"})
	if !strings.Contains(text, "calc/calc.go:") || !strings.Contains(text, "func Add(a, b int) int") {
		t.Errorf("search text lacks the chunk:\n%s", text)
	}
	// The fields of `dossier search --json`, and each result's text.
	var resp search.Response
	raw, _ := json.Marshal(out)
	if err := json.Unmarshal(raw, &resp); err != nil || len(resp.Results) == 0 {
		t.Fatalf("structuredContent is not a search response (%v): %s", err, raw)
	}
	for _, k := range []string{"query", "results", "min_score", "debug"} {
		if _, ok := out[k]; !ok {
			t.Errorf("structuredContent lacks %q: %s", k, raw)
		}
	}
	first := out["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "path", "start_line", "end_line", "symbol", "kind", "score", "sources", "text"} {
		if _, ok := first[k]; !ok {
			t.Errorf("a result lacks %q: %v", k, first)
		}
	}
	if r := resp.Results[0]; r.Path != "calc/calc.go" || !strings.Contains(first["text"].(string), "clamp") {
		t.Errorf("first result %s:%d-%d %v", r.Path, r.StartLine, r.EndLine, first["text"])
	}

	// A budget of 0 gives locations only; a small one cuts at a line end.
	_, out = ok(t, cs, "search", map[string]any{"query": "clamp", "text_budget": 0})
	if first := out["results"].([]any)[0].(map[string]any); first["text"] != nil {
		t.Errorf("text_budget 0 still returns text: %v", first["text"])
	}
	_, out = ok(t, cs, "search", map[string]any{"query": "clamp", "text_budget": 30, "k": 1})
	if first := out["results"].([]any)[0].(map[string]any); first["trimmed"] != true || len(fmt.Sprint(first["text"])) > 30 {
		t.Errorf("text_budget 30: %v", first)
	}
	_, out = ok(t, cs, "search", map[string]any{"query": "Add", "mode": "symbol", "path_prefix": "calc/", "types": []string{"function"}})
	if rs := out["results"].([]any); len(rs) == 0 || rs[0].(map[string]any)["symbol"] != "Add" {
		t.Errorf("symbol mode: %v", out["results"])
	}

	fails(t, cs, "search", map[string]any{"query": "x", "mode": "telepathy"}, "mode")
	fails(t, cs, "search", map[string]any{"query": "x", "k": 0}, "k")
	fails(t, cs, "search", map[string]any{"query": "x", "min_score": 2}, "min_score")
	fails(t, cs, "search", map[string]any{}, "query")
	fails(t, cs, "search", map[string]any{"query": "x", "nonsense": 1}, "nonsense")
	fails(t, cs, "search", map[string]any{"query": "(", "mode": "regex"}, "(")
}

func TestRead(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	text, out := ok(t, cs, "read", map[string]any{"selector": "calc/calc.go::4,6"})
	if want := "calc/calc.go:4-6\n4  func Add(a, b int) int {\n5  \treturn clamp(a + b)\n6  }\n"; text != want {
		t.Errorf("read text:\n%q\nwant\n%q", text, want)
	}
	if out["path"] != "calc/calc.go" || out["start_line"] != 4.0 || out["end_line"] != 6.0 {
		t.Errorf("read structured: %v", out)
	}
	text, out = ok(t, cs, "read", map[string]any{"selector": "@clamp"})
	if out["path"] != "calc/calc.go" || !strings.HasPrefix(text, "calc/calc.go:8-14  @clamp\n") && !strings.HasPrefix(text, "calc/calc.go:9-14  @clamp\n") {
		t.Errorf("read @clamp:\n%s\n%v", text, out)
	}
	ok(t, cs, "read", map[string]any{"selector": "calc/calc.go::@Add"})
	// An absolute path inside the workspace is taken relative to it.
	if _, out := ok(t, cs, "read", map[string]any{"selector": root + "/calc/calc.go::4,6"}); out["path"] != "calc/calc.go" || out["start_line"] != 4.0 {
		t.Errorf("read of an absolute path inside the workspace: %v", out)
	}

	for sel, want := range map[string]string{
		"../outside.txt":         "leaves the workspace",
		"calc/../../x.go":        "leaves the workspace",
		"/etc/passwd":            "outside the workspace",
		root + "/../outside.txt": "outside the workspace",
		"leak.txt":               "outside the workspace",
		"away/outside.txt":       "outside the workspace",
		"calc/nope.go":           "no such file",
		"calc/calc.go::90,99":    "past the end",
		"calc/calc.go::@Nothing": "Nothing",
		"calc":                   "directory",
		"":                       "selector",
		"--out=/tmp/x":           "starts with '-'",
	} {
		fails(t, cs, "read", map[string]any{"selector": sel}, want)
	}
}

func TestRelated(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	text, out := ok(t, cs, "related", map[string]any{"target": "calc/calc.go::@Add"})
	if !strings.Contains(text, "clamp") || !strings.Contains(text, "calc/calc_test.go") {
		t.Errorf("related text:\n%s", text)
	}
	for _, k := range []string{"target", "imports", "importers", "tests", "callees", "callers"} {
		if _, ok := out[k]; !ok {
			t.Errorf("structuredContent lacks %q (the CLI's related --json has it): %v", k, out)
		}
	}
	fails(t, cs, "related", map[string]any{"target": "../etc/passwd"}, "leaves the workspace")
	fails(t, cs, "related", map[string]any{"target": "/etc/passwd"}, "outside the workspace")
	if text, _ := ok(t, cs, "related", map[string]any{"target": root + "/calc/calc.go::@Add"}); !strings.Contains(text, "calc/calc_test.go") {
		t.Errorf("related of an absolute path inside the workspace:\n%s", text)
	}
	fails(t, cs, "related", map[string]any{"target": "leak.txt"}, "outside the workspace")
	fails(t, cs, "related", map[string]any{"target": "calc/nope.go"}, "no such file")
	fails(t, cs, "related", map[string]any{"target": "calc/calc.go", "limit": -1}, "limit")
	fails(t, cs, "related", map[string]any{"limit": 3}, "target")
}

// TestSecretsRedacted reads, searches and assembles a file of made-up
// credentials: no result carries one, in text or structured content.
func TestSecretsRedacted(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	check := func(what, text string, out map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(out)
		for _, s := range secrettest.All() {
			first := strings.SplitN(s, "\n", 2)[0]
			if strings.Contains(text, first) || strings.Contains(string(raw), first) {
				t.Errorf("%s shows the secret %.20s…", what, s)
			}
		}
		if !strings.Contains(text+string(raw), "[REDACTED:") {
			t.Errorf("%s has no redaction marker:\n%s", what, text)
		}
	}
	text, out := ok(t, cs, "read", map[string]any{"selector": "cmd/main.go"})
	check("read", text, out)
	text, out = ok(t, cs, "search", map[string]any{"query": "token slack key"})
	check("search", text, out)
	text, out = ok(t, cs, "search", map[string]any{"query": "AKIA[0-9A-Z]{16}", "mode": "regex"})
	check("regex search", text, out)
	ok(t, cs, "evidence_add", map[string]any{"selector": "cmd/main.go"})
	text, out = ok(t, cs, "assemble", map[string]any{"format": "aptix"})
	check("assemble", text, out)
	text, out = ok(t, cs, "ask", map[string]any{"question": "what evidence covers token"})
	check("ask", text+"[REDACTED:", out)
}

func TestFlowTools(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	fails(t, cs, "assemble", nil, "flow_new")
	text, out := ok(t, cs, "flow_new", map[string]any{"name": "fix-add", "request": "Add overflows"})
	if !strings.Contains(text, "fix-add") || out["output"] != text {
		t.Errorf("flow_new: %q %v", text, out)
	}
	ok(t, cs, "evidence_add", map[string]any{"selector": "calc/calc.go::@Add", "rank": "150"})
	ok(t, cs, "evidence_add", map[string]any{"selector": root + "/calc/calc_test.go", "rank": "supporting"})
	ok(t, cs, "evidence_add", map[string]any{"role": "system", "text": "Answer in one paragraph."})
	fails(t, cs, "evidence_add", map[string]any{"selector": "../../etc/passwd"}, "leaves the workspace")
	fails(t, cs, "evidence_add", map[string]any{"selector": "leak.txt"}, "outside the workspace")
	fails(t, cs, "evidence_add", map[string]any{"selector": "--link"}, "starts with '-'")
	fails(t, cs, "evidence_add", map[string]any{}, "give a selector")
	fails(t, cs, "evidence_add", map[string]any{"selector": "calc/calc.go", "role": "judge"}, "judge")

	text, out = ok(t, cs, "evidence_status", nil)
	parts, _ := out["parts"].([]any)
	if len(parts) < 3 || !strings.Contains(text, "150") {
		t.Fatalf("status:\n%s\n%v", text, out)
	}
	// The flow on disk is the CLI's: another engine (the CLI, the
	// workbench) sees the agent's parts.
	other := evidence.NewEngine(root)
	var b strings.Builder
	if err := other.Exec(context.Background(), []string{"evidence", "status"}, &b); err != nil || !strings.Contains(b.String(), "150_") {
		t.Errorf("another engine does not see the part: %v\n%s", err, b.String())
	}
	// A part the human adds between two calls is seen by the next.
	if err := other.Exec(context.Background(), []string{"evidence", "add", "--rank", "160", "go.mod"}, &b); err != nil {
		t.Fatal(err)
	}
	if text, _ := ok(t, cs, "evidence_status", nil); !strings.Contains(text, "160_") {
		t.Errorf("status does not show the part added outside:\n%s", text)
	}

	ok(t, cs, "evidence_toggle", map[string]any{"id": "160", "state": "off"})
	if text, _ := ok(t, cs, "evidence_status", nil); !strings.Contains(text, "skip") {
		t.Errorf("toggle off did not skip 160:\n%s", text)
	}
	fails(t, cs, "evidence_toggle", map[string]any{"id": "160", "state": "sideways"}, "sideways")
	fails(t, cs, "evidence_toggle", map[string]any{"id": "999"}, "999")
	ok(t, cs, "evidence_focus", map[string]any{"query": "clamp"})
	ok(t, cs, "evidence_focus", map[string]any{"query": "off"})
	ok(t, cs, "evidence_fit", map[string]any{"tokens": "50"})
	ok(t, cs, "evidence_fit", map[string]any{"tokens": "off"})
	fails(t, cs, "evidence_fit", map[string]any{"tokens": "lots"}, "lots")
	text, _ = ok(t, cs, "ask", map[string]any{"question": "what evidence covers clamp"})
	if !strings.Contains(text, "calc/calc.go") {
		t.Errorf("ask:\n%s", text)
	}
	ok(t, cs, "evidence_remove", map[string]any{"id": "160"})

	text, out = ok(t, cs, "assemble", map[string]any{"budget": 10})
	if !strings.Contains(text, "func Add") || out["tokens"].(float64) <= 0 || out["over_budget"] != true || out["text"] != text {
		t.Errorf("assemble: %v\n%s", out, text)
	}
	fails(t, cs, "assemble", map[string]any{"format": "latex"}, "latex")

	// Values that look like flags are values: "--force" is the request.
	ok(t, cs, "flow_new", map[string]any{"name": "second", "request": "--force the parser to fail"})
	ok(t, cs, "evidence_add", map[string]any{"role": "user", "text": "-h is not help here"})
	if prompt, _ := ok(t, cs, "assemble", nil); !strings.Contains(prompt, "--force the parser to fail") || !strings.Contains(prompt, "-h is not help here") {
		t.Errorf("a value starting with '-' was taken for a flag:\n%s", prompt)
	}
	fails(t, cs, "flow_use", map[string]any{"id": "../../etc"}, "")
	fails(t, cs, "flow_use", map[string]any{"id": "no-such-flow"}, "no-such-flow")
}

// TestConcurrentCalls runs many calls at once: the engines are not safe
// for concurrent use, the server serializes them (run with -race).
func TestConcurrentCalls(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	ok(t, cs, "flow_new", map[string]any{"name": "busy"})
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var name string
			var args map[string]any
			switch i % 4 {
			case 0:
				name, args = "search", map[string]any{"query": "clamp"}
			case 1:
				name, args = "read", map[string]any{"selector": "calc/calc.go::1,5"}
			case 2:
				name, args = "evidence_add", map[string]any{"selector": fmt.Sprintf("calc/calc.go::%d,%d", i/4+1, i/4+3), "rank": fmt.Sprint(200 + i)}
			case 3:
				name, args = "evidence_status", nil
			}
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
			switch {
			case err != nil:
				errs <- fmt.Sprintf("%s: %v", name, err)
			case res.IsError:
				errs <- fmt.Sprintf("%s: %v", name, res.Content[0].(*sdk.TextContent).Text)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	text, _ := ok(t, cs, "evidence_status", nil)
	for i := 2; i < 16; i += 4 {
		if !strings.Contains(text, fmt.Sprintf("%d_", 200+i)) {
			t.Errorf("part %d lost:\n%s", 200+i, text)
		}
	}
}

// TestMissingIndex: without an index the tools say how to get one; Keep
// builds it, and meanwhile they say it is being built.
func TestMissingIndex(t *testing.T) {
	root := testWorkspace(t)
	srv, cs := connect(t, root, false)
	fails(t, cs, "search", map[string]any{"query": "clamp"}, "dossier index --root "+root)
	fails(t, cs, "related", map[string]any{"target": "calc/calc.go"}, "dossier index --root "+root)
	fails(t, cs, "read", map[string]any{"selector": "@clamp"}, "dossier index --root "+root)
	ok(t, cs, "read", map[string]any{"selector": "calc/calc.go"}) // a file needs no index

	srv.building.Store(true)
	fails(t, cs, "search", map[string]any{"query": "clamp"}, "being built")
	srv.building.Store(false)

	var notices []string
	srv.opts.Notice = func(s string) { notices = append(notices, s) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	idx := make(chan struct{})
	srv.opts.Log.SetOutput(&lineHook{want: "watching", hit: idx})
	go func() { done <- srv.Keep(ctx) }()
	<-idx
	if len(notices) == 0 || !strings.Contains(notices[0], "building it now") {
		t.Errorf("no notice of the build: %q", notices)
	}
	if _, out := ok(t, cs, "search", map[string]any{"query": "clamp"}); len(out["results"].([]any)) == 0 {
		t.Errorf("no results once built")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Keep: %v", err)
	}
}

// TestKeepWaitsItsTurn: when another process holds the index's writer
// lock as the server starts (a one-shot `dossier index`, the workbench),
// the server takes over keeping the index current once that
// process lets go, and does not leave the index to go stale for its life.
func TestKeepWaitsItsTurn(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	lock, err := store.AcquireWriter(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv, cs := connect(t, root, false)
	inUse, watching := make(chan struct{}), make(chan struct{})
	srv.opts.Log.SetOutput(io.MultiWriter(&lineHook{want: "in use", hit: inUse}, &lineHook{want: "watching", hit: watching}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Keep(ctx) }()
	<-inUse
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watching:
	case err := <-done:
		t.Fatalf("Keep returned (%v) and left the index to go stale once the other process let go", err)
	}
	if err := os.WriteFile(filepath.Join(root, "calc", "star.go"), []byte("package calc\n\n// Quasar shines.\nfunc Quasar() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, out := ok(t, cs, "search", map[string]any{"query": "quasar", "mode": "text"}); len(out["results"].([]any)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a file written after the other process let go is never found")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Keep: %v", err)
	}
}

// lineHook closes hit when a log line holds want, and sends on each
// (when set) for every line holding also.
type lineHook struct {
	want string
	hit  chan struct{}
	once sync.Once
	also string
	each chan struct{}
}

func (h *lineHook) Write(p []byte) (int, error) {
	if strings.Contains(string(p), h.want) {
		h.once.Do(func() { close(h.hit) })
	}
	if h.each != nil && strings.Contains(string(p), h.also) {
		h.each <- struct{}{}
	}
	return len(p), nil
}

// TestKeepsIndexCurrent: a file written while the server runs is found by
// the next searches once the watcher's batch is written: a lone change as
// soon as the tree is quiet, not when the batch interval runs out (an
// agent searches right after writing; the interval here never runs out).
// A new file, one in a new directory and an editor's save (a temporary
// file renamed into place) are each found.
func TestKeepsIndexCurrent(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	defer func(d time.Duration) { index.WatchInterval = d }(index.WatchInterval)
	index.WatchInterval = time.Hour
	srv, cs := connect(t, root, false)
	watching := make(chan struct{})
	batch := make(chan struct{}, 16)
	srv.opts.Log.SetOutput(&lineHook{want: "watching", hit: watching, also: "watch: re-indexed", each: batch})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Keep(ctx) }()
	<-watching
	write := func(rel, content string) {
		t.Helper()
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ word, what string }{
		{"quasar", "a new file"}, {"pulsar", "a file in a new directory"}, {"nebula", "an editor's save"},
	} {
		if _, out := ok(t, cs, "search", map[string]any{"query": c.word, "mode": "text"}); len(out["results"].([]any)) != 0 {
			t.Fatalf("%s found before it was written: %v", c.word, out)
		}
		src := "package calc\n\n// " + strings.ToUpper(c.word[:1]) + c.word[1:] + " shines.\nfunc " + c.word + "() int { return 1 }\n"
		switch c.what {
		case "a new file":
			write("calc/star.go", src)
		case "a file in a new directory":
			write("sky/far/star.go", src)
		default:
			write("calc/.star2.go.tmp", src)
			if err := os.Rename(filepath.Join(root, "calc/.star2.go.tmp"), filepath.Join(root, "calc/star2.go")); err != nil {
				t.Fatal(err)
			}
		}
		for found := false; !found; {
			select {
			case <-batch:
			case <-time.After(time.Minute):
				t.Fatalf("%s: no watcher batch wrote it: the index is not kept current", c.what)
			}
			_, out := ok(t, cs, "search", map[string]any{"query": c.word, "mode": "text"})
			found = len(out["results"].([]any)) > 0
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Keep: %v", err)
	}
}
