package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// TestStoreReaders runs every reader as a user does in a clone that reads
// the shared store (no index of its own), on a real PostgreSQL server,
// and in the clone that published it: related, evidence add, gather and
// from-output give the same answers and the same parts; `dossier mcp`
// searches the store over stdio.
func TestStoreReaders(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	url := pgtest.Start(t)
	root := workspace(t, 12)
	os.WriteFile(filepath.Join(root, "pkg000", "f3_test.go"), []byte("package p0\n\nimport \"testing\"\n\nfunc TestF3_7(t *testing.T) {\n\tif F3_7(2) != 14 {\n\t\tt.Fatal(\"F3_7\")\n\t}\n}\n"), 0o644)
	acmeRepo(t, root, "Readers")
	must(t, "index", "--root", root, "--store", url)
	clone := cloneOf(t, root, "Readers")
	if out := must(t, "index", "--root", clone, "--store", url); !strings.Contains(out, "already indexed") {
		t.Fatalf("the clone indexed: %s", out)
	}

	for _, args := range [][]string{
		{"related", "--json", "pkg000/f3.go"},
		{"related", "--json", "pkg000/f3.go::@F3_7"},
		{"search", "--json", "--mode", "symbol", "F3_7"},
	} {
		want := withoutDebug(t, must(t, append(args, "--root", root)...))
		if got := withoutDebug(t, must(t, append(args, "--root", clone)...)); got != want {
			t.Errorf("%v differs in the clone\nlocal: %.300s\nclone: %.300s", args, want, got)
		}
	}

	// The same flow in both: its parts must be the same files, byte for byte.
	output := "--- FAIL: TestF3_7 (0.00s)\n    f3_test.go:7: F3_7\nFAIL\nFAIL\texample.com/p0\t0.003s\n"
	for _, dir := range []string{root, clone} {
		r := "--root=" + dir
		must(t, "flow", "new", "readers", r, "--request", "Why does F3_7 fail?")
		must(t, "evidence", "add", "pkg000/f3.go::@F3_7", r)
		must(t, "evidence", "add", "pkg000/f7.go::2,6", r)
		must(t, "evidence", "gather", "fix", "pkg000/f5.go::@F5_2", r)
		out := filepath.Join(t.TempDir(), "out.txt")
		os.WriteFile(out, []byte(output), 0o644)
		must(t, "evidence", "from-output", out, r)
	}
	localParts, sharedParts := partFiles(t, root), partFiles(t, clone)
	if len(localParts) < 4 {
		t.Fatalf("the local flow has %d parts: the test proves nothing", len(localParts))
	}
	for name, text := range localParts {
		if sharedParts[name] != text {
			t.Errorf("part %s differs in the clone\nlocal: %.300q\nclone: %.300q", name, text, sharedParts[name])
		}
	}
	if len(sharedParts) != len(localParts) {
		t.Errorf("the clone's flow has %d parts, the local one %d", len(sharedParts), len(localParts))
	}

	// An agent's server on the clone searches the store.
	cmd := dossier("mcp", "--root", clone)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "F9_4 does a thing"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "pkg000/f9.go") {
		t.Fatalf("mcp search on the clone: %v %+v\nstderr: %s", err, res, stderr.String())
	}
	if strings.Contains(stderr.String(), "building it now") {
		t.Errorf("mcp builds an index of the clone, which the store holds:\n%s", stderr.String())
	}
	// An edit while it runs is searched at once: the file joins the
	// overlay, which the local index holds; nothing else is indexed.
	f9 := filepath.Join(clone, "pkg000", "f9.go")
	src, _ := os.ReadFile(f9)
	os.WriteFile(f9, append(src, "// Zebra marks the edit.\nfunc Zebra() {}\n"...), 0o644)
	for {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "Zebra marks the edit"}})
		// The edit's own line (the query, which a response repeats, has
		// no full stop).
		if err == nil && !res.IsError && strings.Contains(res.Content[0].(*sdk.TextContent).Text, "Zebra marks the edit.") {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the edit is never found: %v %+v\nstderr: %s", err, res, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	l, _, err := store.ReadLink(clone)
	if err != nil || !slices.Equal(l.Overlay, []string{"pkg000/f9.go"}) {
		t.Errorf("the link's overlay: %q, %v; want the edited file only", l.Overlay, err)
	}
	var local, shared struct{ Files int }
	json.Unmarshal([]byte(must(t, "stats", "--json", "--root", root)), &local)
	json.Unmarshal([]byte(must(t, "stats", "--json", "--root", clone)), &shared)
	if local.Files < 13 || shared.Files != local.Files {
		t.Errorf("stats: the clone has %d files, the published workspace %d", shared.Files, local.Files)
	}
}

// withoutDebug is a JSON answer without its "debug" member (timings).
func withoutDebug(t *testing.T, out string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	delete(m, "debug")
	b, _ := json.Marshal(m)
	return string(b)
}

// partFiles maps each evidence file of root's current flow to its text.
func partFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	dir := filepath.Join(flowDir(t, root), "ctx", "evidence")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestFreshCloneReadsItsStore: a fresh clone, with an edit, whose user
// config names the store that holds its commit: the first reader links
// it, indexes only the edited file, and answers from the store and the
// edit; no `dossier index` was run.
func TestFreshCloneReadsItsStore(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	url := pgtest.Start(t)
	root := workspace(t, 8)
	acmeRepo(t, root, "Fresh")
	must(t, "index", "--root", root, "--store", url)
	clone := cloneOf(t, root, "Fresh")
	f2 := filepath.Join(clone, "pkg000", "f2.go")
	src, _ := os.ReadFile(f2)
	os.WriteFile(f2, append(src, "// Walrus marks the edit.\nfunc Walrus() {}\n"...), 0o644)
	os.MkdirAll(filepath.Join(cfgHome, "dossier"), 0o755)
	os.WriteFile(filepath.Join(cfgHome, "dossier", "config.toml"), []byte("[store]\nurl = \""+url+"\"\n"), 0o644)

	out, errOut, code := runCLI(t, "search", "--root", clone, "--json", "--mode", "symbol", "Walrus")
	if code != 0 || !strings.Contains(out, `"path":"pkg000/f2.go"`) || !strings.Contains(errOut, "reading the shared store's snapshot") {
		t.Fatalf("search in the fresh clone: %d\n%s\n%s", code, out, errOut)
	}
	l, linked, err := store.ReadLink(clone)
	if err != nil || !linked || !slices.Equal(l.Overlay, []string{"pkg000/f2.go"}) {
		t.Fatalf("the link: %+v %v %v; want the edited file as its overlay", l, linked, err)
	}
	want := withoutDebug(t, must(t, "related", "--json", "pkg000/f5.go", "--root", root))
	if got := withoutDebug(t, must(t, "related", "--json", "pkg000/f5.go", "--root", clone)); got != want {
		t.Errorf("related in the fresh clone\nlocal: %.300s\nclone: %.300s", want, got)
	}
	// A store that lacks the commit leaves the clone as it was.
	other := filepath.Join(t.TempDir(), "other")
	gitRun(t, filepath.Dir(other), "clone", "-q", root, other)
	gitRun(t, other, "commit", "-q", "--allow-empty", "-m", "two")
	if _, errOut, code := runCLI(t, "related", "pkg000/f5.go", "--root", other); code == 0 || !strings.Contains(errOut, "run `dossier index`") {
		t.Errorf("a clone at a commit the store lacks: %d\n%s", code, errOut)
	}
	if _, err := os.Stat(store.LinkPath(other)); !os.IsNotExist(err) {
		t.Errorf("a clone at a commit the store lacks was linked: %v", err)
	}
}
