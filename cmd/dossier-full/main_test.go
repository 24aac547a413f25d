package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
)

// The test binary doubles as the dossier binary for process-level tests.
func TestMain(m *testing.M) {
	if os.Getenv("DOSSIER_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func dossier(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DOSSIER_AS_MAIN=1")
	return cmd
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func workspace(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i/50))
		os.MkdirAll(dir, 0o755)
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i/50)
		for f := 0; f < 20; f++ {
			fmt.Fprintf(&b, "// F%d_%d does a thing.\nfunc F%d_%d(x int) int {\n\treturn x * %d\n}\n\n", i, f, i, f, f)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(b.String()), 0o644)
	}
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# W\n\n## Use\n\nIt works.\n"), 0o644)
	return root
}

func TestIndexAndStatsJSON(t *testing.T) {
	root := workspace(t, 3)
	out, errOut, code := runCLI(t, "index", "--root", root, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sum index.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("index --json is not JSON: %v\n%s", err, out)
	}
	if sum.Files != 4 || sum.ChunksByKind["function"] != 60 || sum.ChunksByKind["markdown_section"] != 1 {
		t.Errorf("summary: files %d kinds %v", sum.Files, sum.ChunksByKind)
	}
	out, _, code = runCLI(t, "stats", "--root", root, "--json")
	var st index.Summary
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Chunks != sum.Chunks {
		t.Errorf("stats --json: exit %d, %s", code, out)
	}
	out, _, code = runCLI(t, "stats", "--root", root)
	if code != 0 || !strings.Contains(out, "chunks  64") || !strings.Contains(out, "function 60") {
		t.Errorf("stats: exit %d\n%s", code, out)
	}
	// Without a command, dossier indexes the workspace (until the workbench exists).
	out, _, code = runCLI(t, "--root", root)
	if code != 0 || !strings.Contains(out, "4 unchanged") {
		t.Errorf("bare dossier: exit %d\n%s", code, out)
	}
}

func TestVerboseListsSkips(t *testing.T) {
	root := workspace(t, 1)
	os.WriteFile(filepath.Join(root, "blob.bin"), []byte{0, 1, 2, 3}, 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(root, "x.log"), []byte("x"), 0o644)
	out, _, code := runCLI(t, "index", "--root", root, "--verbose")
	if code != 0 || !strings.Contains(out, "skip binary") || !strings.Contains(out, "blob.bin") ||
		!strings.Contains(out, "skip ignored") || !strings.Contains(out, "x.log") {
		t.Errorf("--verbose: exit %d\n%s", code, out)
	}
}

func TestBadInvocations(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, errOut, code := runCLI(t, "index", "--root", missing)
	if code != exitError || !strings.Contains(errOut, "does not exist") || !strings.Contains(errOut, "--root") {
		t.Errorf("missing root: exit %d: %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "stats", "--root", t.TempDir())
	if code != exitError || !strings.Contains(errOut, "dossier index") {
		t.Errorf("stats without index: exit %d: %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "index", "--no-such-flag")
	if code != exitUsage || !strings.Contains(errOut, "no-such-flag") {
		t.Errorf("unknown flag: exit %d: %s", code, errOut)
	}
	root := workspace(t, 1)
	os.WriteFile(filepath.Join(root, ".dossier.toml"), []byte("[index]\nmax_file_size = \"big\"\n"), 0o644)
	_, errOut, code = runCLI(t, "index", "--root", root)
	if code != exitError || !strings.Contains(errOut, ".dossier.toml") {
		t.Errorf("bad config: exit %d: %s", code, errOut)
	}
}

// A watching indexer holds the workspace: a second `dossier index` fails
// fast with a clear message, while `dossier stats` works side by side.
func TestSideBySide(t *testing.T) {
	root := workspace(t, 20)
	watch := dossier("index", "--root", root, "--watch")
	var werr bytes.Buffer
	watch.Stderr = &werr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer watch.Process.Kill()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(werr.String(), "watching") {
		if time.Now().After(deadline) {
			t.Fatalf("watcher never started: %s", werr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	out, err := dossier("index", "--root", root).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "index in use by another dossier process") {
		t.Errorf("second index: err %v, output %s", err, out)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("second index took %v to fail", d)
	}
	out, err = dossier("stats", "--root", root).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "files   21") {
		t.Errorf("stats beside a watcher: err %v\n%s", err, out)
	}
	out, err = dossier("search", "--root", root, "--mode", "symbol", "F7_3").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pkg000/f7.go") {
		t.Errorf("search beside a watcher: err %v\n%s", err, out)
	}
	watch.Process.Signal(syscall.SIGINT)
	if err := watch.Wait(); watch.ProcessState.ExitCode() != 128+int(syscall.SIGINT) {
		t.Errorf("watch did not exit 130 on Ctrl-C: %v\n%s", err, werr.String())
	}
}

// kill -9 in the middle of a run leaves a consistent index that the next
// run completes.
func TestKilledRunResumes(t *testing.T) {
	root := workspace(t, 3000)
	cmd := dossier("index", "--root", root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once the first batch is on disk: the file grows past its
	// preallocated size (or after 15 s).
	var first int64
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		st, err := os.Stat(store.Path(root))
		if err != nil {
			continue
		}
		if first == 0 {
			first = st.Size()
		} else if st.Size() > first {
			break
		}
	}
	time.Sleep(700 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()

	if db, err := store.Open(store.Path(root), store.Options{ReadOnly: true}); err == nil {
		if err := db.Check(); err != nil {
			t.Fatalf("index corrupt after kill -9: %v", err)
		}
		db.View(func(tx *store.Tx) error { t.Logf("after kill: %d files in the index", len(tx.Paths())); return nil })
		db.Close()
	}
	out, errOut, code := runCLI(t, "index", "--root", root, "--json")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	var sum index.Summary
	json.Unmarshal([]byte(out), &sum)
	if sum.Files != 3001 || sum.ChunksByKind["function"] != 60000 {
		t.Errorf("after resume: files %d functions %d (indexed %d, unchanged %d)", sum.Files, sum.ChunksByKind["function"], sum.Indexed, sum.Unchanged)
	}
	t.Logf("killed run had committed %d files", sum.Unchanged)
}

func TestSearchCLI(t *testing.T) {
	root := workspace(t, 3)
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "search", "--root", root, "--json", "F2_5")
	if code != exitOK {
		t.Fatalf("search: %d %s", code, stderr)
	}
	var resp struct {
		Query   string `json:"query"`
		Results []struct {
			Path, Symbol, Kind, Language string
			Score                        float64
			StartLine                    int `json:"start_line"`
			Sources                      []string
		} `json:"results"`
		Debug struct {
			Strategy        string  `json:"strategy"`
			LatencyMS       float64 `json:"latency_ms"`
			TotalCandidates int     `json:"total_candidates"`
		} `json:"debug"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(resp.Results) == 0 || resp.Results[0].Symbol != "F2_5" || resp.Results[0].Path != "pkg000/f2.go" ||
		resp.Results[0].StartLine != 28 || resp.Debug.Strategy == "" || resp.Debug.TotalCandidates == 0 {
		t.Errorf("search --json: %+v", resp)
	}

	// Queries from stdin: one JSON line each, in order.
	cmd := dossier("search", "--root", root, "--json", "--mode", "symbol")
	cmd.Stdin = strings.NewReader("F1_2\n\nF0_19\n")
	stream, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(stream)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"query":"F1_2"`) || !strings.Contains(lines[1], `"query":"F0_19"`) {
		t.Errorf("stream:\n%s", stream)
	}

	out, _, code = runCLI(t, "search", "--root", root, "a thing")
	if code != exitOK || !strings.Contains(out, "pkg000/") || !strings.Contains(out, "results, hybrid(") {
		t.Errorf("human output (%d):\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"search", "--root", root, "--mode", "fuzzy", "x"},
		{"search", "--root", root},
		{"search", "--root", root, "-k", "0", "x"},
	} {
		if _, stderr, code := runCLI(t, bad...); code != exitUsage || stderr == "" {
			t.Errorf("%v: exit %d, %q", bad, code, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "search", "--root", t.TempDir(), "x"); code != exitError || !strings.Contains(stderr, "dossier index") {
		t.Errorf("search without an index: exit %d, %q", code, stderr)
	}
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--mode", "regex", "(x"}, exitUsage, "bad regular expression"},
		{[]string{" "}, exitUsage, "empty query"},
		{[]string{strings.Repeat("word ", 2000)}, exitUsage, "the limit is 2000"},
		{[]string{"--min-score", "1.5", "x"}, exitUsage, "between 0 and 1"},
		{[]string{"--embedder", "openai", "x"}, exitError, "cannot be compared"},
	} {
		args := append([]string{"search", "--root", root}, bad.args...)
		if _, stderr, code := runCLI(t, args...); code != bad.code || !strings.Contains(stderr, bad.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%.40q: exit %d, %q (want exit %d and a message with %q)", bad.args, code, stderr, bad.code, bad.want)
		}
	}
}

// A stream of queries keeps the index open only while queries are
// waiting: once it has answered all it was sent, a writer gets in at once,
// and a query sent while the writer holds the index is answered after it.
func TestSearchStreamLetsWritersIn(t *testing.T) {
	root := workspace(t, 1)
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	cmd := dossier("search", "--root", root, "--json", "--mode", "symbol")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	answers := bufio.NewScanner(outPipe)
	answer := func() string {
		t.Helper()
		if !answers.Scan() {
			t.Fatalf("the stream ended: %v", answers.Err())
		}
		return answers.Text()
	}
	// Several at once: the stream holds the index from one to the next.
	if _, err := io.WriteString(in, "F0_1\nF0_2\nF0_3\nF0_4\n"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"F0_1", "F0_2", "F0_3", "F0_4"} {
		if a := answer(); !strings.Contains(a, `"query":"`+q+`"`) || !strings.Contains(a, `"symbol":"`+q+`"`) {
			t.Fatalf("answer to %s: %s", q, a)
		}
	}
	// Waiting for input, it holds nothing.
	w, err := store.Open(store.Path(root), store.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("a writer while the stream waits for input: %v", err)
	}
	if _, err := io.WriteString(in, "F0_5\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the query waits for the writer
	w.Close()
	if a := answer(); !strings.Contains(a, `"symbol":"F0_5"`) {
		t.Errorf("answer after the writer: %s", a)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("stream: %v", err)
	}
}

// TestUsageErrorPointsAtItsCommand: a command line a subcommand cannot
// take points at that subcommand's --help, not the root's.
func TestUsageErrorPointsAtItsCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--bogus", "q"}, "run `dossier search --help` for usage\n"},
		{[]string{"flow", "new", "--bogus"}, "run `dossier flow --help` for usage\n"},
		{[]string{"related", "--bogus", "a.go"}, "run `dossier related --help` for usage\n"},
		{[]string{"evidence", "add"}, "run `dossier evidence --help` for usage\n"}, // the engine parses evidence's verbs
		{[]string{"nosuchcommand"}, "run `dossier --help` for usage\n"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != exitUsage || !strings.HasSuffix(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 ending %q", c.args, code, stderr, c.want)
		}
	}
}

// TestSearchNoResultsSaysWhy: a query of common words alone is told so,
// not to check its spelling; a misspelt one is.
func TestSearchNoResultsSaysWhy(t *testing.T) {
	root := workspace(t, 3)
	must(t, "index", "--root", root)
	for q, want := range map[string]string{
		"the of":   "its words are all common ones",
		"zzqqxxyy": "check the spelling",
	} {
		out := must(t, "search", "--root", root, "--mode", "text", q)
		if !strings.Contains(out, want) {
			t.Errorf("search %q: %s; want it to say %q", q, out, want)
		}
	}
}
