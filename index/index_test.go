package index

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a small polyglot workspace.
func fixture(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                      "module example.com/shop\n\ngo 1.22\n",
		"cart/cart.go":                "package cart\n\nimport \"fmt\"\n\n// Cart holds items.\ntype Cart struct{ Items []string }\n\n// Add puts an item in the cart.\nfunc (c *Cart) Add(item string) { c.Items = append(c.Items, item) }\n\n// Total formats the item count.\nfunc Total(c *Cart) string { return fmt.Sprint(len(c.Items)) }\n",
		"cart/cart_test.go":           "package cart\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tc := &Cart{}\n\tc.Add(\"x\")\n}\n",
		"py/pricing.py":               "import math\n\n\ndef price(x):\n    \"\"\"Round a price up.\"\"\"\n    return math.ceil(x)\n",
		"py/test_pricing.py":          "from pricing import price\n\n\ndef test_price():\n    assert price(1.2) == 2\n",
		"web/src/a.ts":                "export function greet(n: string): string { return `hi ${n}`; }\n",
		"web/tests/a.test.ts":         "import { greet } from '../src/a';\ntest('greet', () => greet('x'));\n",
		"web/src/b.js":                "export const b = () => 1;\n",
		"web/src/__tests__/b.test.js": "import { b } from '../b';\n",
		"README.md":                   "# Shop\n\nA shop.\n\n## Install\n\nRun it.\n",
		"config.yaml":                 "server:\n  port: 8080\nlog:\n  level: info\n",
		"bin.dat":                     "\x00\x01\x02binary",
	}
	for p, c := range files {
		write(t, root, p, c)
	}
	return root
}

func run(t *testing.T, root string, opts ...func(*Options)) Summary {
	t.Helper()
	o := Options{Root: root}
	for _, f := range opts {
		f(&o)
	}
	ix, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sum, err := ix.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkDB(t, root)
	return sum
}

// checkDB runs bbolt's consistency check and dossier's own: every chunk of
// every file resolves, and its artifact is readable.
func checkDB(t *testing.T, root string) {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("bbolt check: %v", err)
	}
	err = db.View(func(tx *store.Tx) error {
		return tx.Files(func(f store.File) error {
			for _, id := range f.Chunks {
				c, ok, err := tx.Chunk(id)
				if err != nil || !ok {
					t.Errorf("%s: chunk %s unresolvable (%v)", f.Path, id, err)
					continue
				}
				if _, err := tx.Artifact(c); err != nil {
					t.Error(err)
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func view(t *testing.T, root string, fn func(tx *store.Tx)) {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *store.Tx) error { fn(tx); return nil })
}

func symbols(tx *store.Tx, prefix string) []string {
	var out []string
	tx.SymbolsWithPrefix(prefix, func(s store.Symbol) bool {
		out = append(out, s.Path+":"+s.Name+":"+s.Kind)
		return true
	})
	sort.Strings(out)
	return out
}

func TestFullIndex(t *testing.T) {
	root := fixture(t)
	sum := run(t, root)
	if sum.Files != 11 || sum.Indexed != 11 || sum.Skipped["binary"] != 1 {
		t.Errorf("files %d indexed %d skipped %v", sum.Files, sum.Indexed, sum.Skipped)
	}
	for kind, min := range map[string]int{"function": 5, "method": 1, "struct": 1, "markdown_section": 2, "config_key": 1, "imports": 1} {
		if sum.ChunksByKind[kind] < min {
			t.Errorf("chunks of kind %s: %d, want at least %d (%v)", kind, sum.ChunksByKind[kind], min, sum.ChunksByKind)
		}
	}
	view(t, root, func(tx *store.Tx) {
		if got := symbols(tx, "add"); !reflect.DeepEqual(got, []string{"cart/cart.go:Add:method"}) {
			t.Errorf("symbols add = %v", got)
		}
		if got := symbols(tx, "price"); !reflect.DeepEqual(got, []string{"py/pricing.py:price:function"}) {
			t.Errorf("symbols price = %v", got)
		}
		if imps, _ := tx.Imports("cart/cart.go"); !reflect.DeepEqual(imps, []string{"fmt"}) {
			t.Errorf("imports = %v", imps)
		}
		links := map[string]map[string]string{
			"cart/cart.go":        {"cart/cart_test.go": "test"},
			"cart/cart_test.go":   {"cart/cart.go": "subject"},
			"py/pricing.py":       {"py/test_pricing.py": "test"},
			"web/src/a.ts":        {"web/tests/a.test.ts": "test"},
			"web/src/b.js":        {"web/src/__tests__/b.test.js": "test"},
			"web/tests/a.test.ts": {"web/src/a.ts": "subject"},
		}
		for p, want := range links {
			if got := tx.TestLinks(p); !reflect.DeepEqual(got, want) {
				t.Errorf("TestLinks(%s) = %v, want %v", p, got, want)
			}
		}
		repo, _ := tx.Repo()
		if repo.Name != filepath.Base(root) {
			t.Errorf("repo name = %q", repo.Name)
		}
	})
	st, err := Stats(context.Background(), root)
	if err != nil || st.Files != sum.Files || st.Chunks != sum.Chunks {
		t.Errorf("Stats = %+v, %v", st.Totals, err)
	}
}

func TestIncremental(t *testing.T) {
	root := fixture(t)
	first := run(t, root)

	noop := run(t, root)
	if noop.Indexed != 0 || noop.Touched != 0 || noop.Unchanged != first.Files || noop.Chunks != first.Chunks {
		t.Errorf("no-op run: %+v", noop)
	}

	// Same content, new mtime: only the record is touched.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "README.md"), future, future)
	touched := run(t, root)
	if touched.Touched != 1 || touched.Indexed != 0 {
		t.Errorf("touch: touched %d indexed %d", touched.Touched, touched.Indexed)
	}

	// A changed file is re-processed: its old symbols go, new ones come.
	write(t, root, "py/pricing.py", "def discount(x):\n    return x * 0.9\n")
	changed := run(t, root)
	if changed.Indexed != 1 || changed.Files != first.Files {
		t.Errorf("change: %+v", changed)
	}
	view(t, root, func(tx *store.Tx) {
		if got := symbols(tx, "price"); len(got) != 0 {
			t.Errorf("old symbol survived: %v", got)
		}
		if got := symbols(tx, "discount"); len(got) != 1 {
			t.Errorf("new symbol missing: %v", got)
		}
		if imps, _ := tx.Imports("py/pricing.py"); len(imps) != 0 {
			t.Errorf("old imports survived: %v", imps)
		}
	})

	// A deleted file loses every derived record, test links included.
	os.Remove(filepath.Join(root, "cart/cart.go"))
	deleted := run(t, root)
	if deleted.Removed != 1 || deleted.Files != first.Files-1 {
		t.Errorf("delete: %+v", deleted)
	}
	view(t, root, func(tx *store.Tx) {
		if got := symbols(tx, "total"); len(got) != 0 {
			t.Errorf("symbols of a deleted file: %v", got)
		}
		if links := tx.TestLinks("cart/cart_test.go"); len(links) != 0 {
			t.Errorf("test links of a deleted file: %v", links)
		}
		if _, ok := tx.Blob("cart/cart.go"); ok {
			t.Error("text of a deleted file survived")
		}
	})

	// A file that becomes ignored leaves the index.
	write(t, root, ".gitignore", "web/\n")
	ignored := run(t, root)
	if ignored.Removed != 4 {
		t.Errorf("ignore: removed %d, want the 4 files under web/", ignored.Removed)
	}
}

// Identical trees give identical chunk ids, whatever the run.
func TestDeterministic(t *testing.T) {
	a, b := fixture(t), fixture(t)
	run(t, a)
	run(t, b)
	ids := func(root string) []string {
		var out []string
		view(t, root, func(tx *store.Tx) {
			tx.Chunks(func(c store.Chunk) error {
				out = append(out, c.ID+" "+c.SemanticID[strings.Index(c.SemanticID, ":"):]+" "+c.Hash)
				return nil
			})
		})
		return out
	}
	if x, y := ids(a), ids(b); !reflect.DeepEqual(x, y) || len(x) == 0 {
		t.Errorf("chunk ids differ between identical trees:\n%v\n%v", x, y)
	}
}

func TestBadInput(t *testing.T) {
	root := t.TempDir()
	write(t, root, "latin1.txt", "caf\xe9 cr\xe8me\n")
	// Garbage between two functions: both survive as symbols.
	write(t, root, "broken.go", "package x\n\nfunc Good() {}\n\n@@@ garbage ;;; here\n\nfunc After() {}\n")
	// A broken body: tree-sitter folds what follows into it, so the symbol
	// is lost, but no text is.
	write(t, root, "swallow.go", "package y\n\nfunc Fine() {}\n\nfunc Bad() {\n\tx := \n}\n\nfunc Later() { return }\n")
	write(t, root, "min.js", strings.Repeat("var a=1;", 8000)) // 64 KB, one line
	big := strings.Repeat("x", 2<<20)
	write(t, root, "huge.txt", big)
	sum := run(t, root, func(o *Options) { o.Verbose = true })
	if sum.Notes["invalid_utf8"] != 1 || sum.Skipped["too_large"] != 1 || sum.Skipped["generated"] != 1 {
		t.Errorf("notes %v skipped %v", sum.Notes, sum.Skipped)
	}
	if sum.ParseErrors != 2 {
		t.Errorf("parse errors = %d", sum.ParseErrors)
	}
	// Which files, and where: a verbose run (and --json) lists them.
	var where []string
	for _, n := range sum.NotedFiles {
		if n.Reason == NoteParseError {
			where = append(where, n.Path+" "+n.Detail)
		}
	}
	if want := []string{"broken.go first syntax error at line 5", "swallow.go first syntax error at line 6"}; !slices.Equal(where, want) {
		t.Errorf("parse errors noted %q, want %q", where, want)
	}
	view(t, root, func(tx *store.Tx) {
		if got := symbols(tx, "good"); len(got) != 1 {
			t.Errorf("function before a syntax error lost: %v", got)
		}
		if got := symbols(tx, "after"); len(got) != 1 {
			t.Errorf("function after a syntax error lost: %v", got)
		}
		assertCovered(t, tx, "swallow.go")
		assertCovered(t, tx, "broken.go")
		blob, _ := tx.Blob("latin1.txt")
		if !strings.Contains(string(blob), "caf\uFFFD") {
			t.Errorf("invalid UTF-8 not repaired: %q", blob)
		}
	})
}

func TestBadRoot(t *testing.T) {
	_, err := Open(Options{Root: filepath.Join(t.TempDir(), "missing")})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("err = %v", err)
	}
}

// makeReadOnly makes paths unwritable even for root (chattr +i), or by
// permissions for other users; it undoes that when the test ends.
func makeReadOnly(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		p := p
		if os.Geteuid() != 0 {
			st, _ := os.Stat(p)
			mode := os.FileMode(0o444)
			if st.IsDir() {
				mode = 0o555
			}
			os.Chmod(p, mode)
			t.Cleanup(func() { os.Chmod(p, mode|0o200) })
			continue
		}
		if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
			t.Skipf("cannot make %s read-only as root (chattr: %v %s)", p, err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
	}
}

func TestReadOnlyIndexDir(t *testing.T) {
	t.Run("fresh", func(t *testing.T) {
		root := fixture(t)
		os.MkdirAll(store.Dir(root), 0o755)
		makeReadOnly(t, store.Dir(root))
		_, err := Open(Options{Root: root})
		if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "writable") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("existing index", func(t *testing.T) {
		root := fixture(t)
		before := run(t, root)
		makeReadOnly(t, store.Path(root), filepath.Join(store.Dir(root), "index.lock"), store.Dir(root))
		write(t, root, "new.go", "package x\n")
		ix, err := Open(Options{Root: root})
		if err == nil {
			_, err = ix.Run(context.Background())
			ix.Close()
		}
		// EACCES by permissions, EPERM by chattr +i as root.
		if err == nil || !strings.Contains(err.Error(), "permission denied") && !strings.Contains(err.Error(), "not permitted") ||
			!strings.Contains(err.Error(), "writable") {
			t.Errorf("err = %v", err)
		}
		// The earlier index is intact and readable.
		st, err := Stats(context.Background(), root)
		if err != nil || st.Files != before.Files {
			t.Errorf("stats after a refused write: %v, files %d", err, st.Files)
		}
	})
	// The directory is writable, the file is not: the error names the
	// file, not the directory (issue 30).
	t.Run("read-only file", func(t *testing.T) {
		root := fixture(t)
		run(t, root)
		path := store.Path(root)
		makeReadOnly(t, path)
		write(t, root, "new.go", "package x\n")
		ix, err := Open(Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ix.Run(context.Background())
		ix.Close()
		if err == nil || !strings.Contains(err.Error(), "open index "+path+": the file cannot be opened for writing (") ||
			!strings.Contains(err.Error(), "make it writable (`chmod u+rw "+path+"`)") || strings.Contains(err.Error(), "make "+store.Dir(root)) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestSecondIndexerFails(t *testing.T) {
	root := fixture(t)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	start := time.Now()
	_, err = Open(Options{Root: root})
	if !errors.Is(err, store.ErrInUse) || !strings.Contains(err.Error(), "index in use by another dossier process") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("second indexer took %v to give up", d)
	}
	// Readers get in while the indexer is idle between batches.
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := Stats(context.Background(), root); err != nil {
		t.Errorf("stats while an indexer holds the workspace: %v", err)
	}
}

// An interrupted run keeps every batch it committed, and the next run
// completes the index.
func TestInterruptedRun(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 40; i++ {
		write(t, root, filepath.Join("pkg", string(rune('a'+i%26))+strings.Repeat("x", i/26), "f.go"), "package p\n\nfunc F() {}\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	ix, err := Open(Options{Root: root, BatchFiles: 5, Workers: 1, Progress: func(p Progress) {
		if p.Done == 17 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ix.Run(ctx)
	ix.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v", err)
	}
	checkDB(t, root)
	var kept int
	view(t, root, func(tx *store.Tx) { kept = len(tx.Paths()) })
	if kept == 0 || kept >= 40 {
		t.Errorf("interrupted run kept %d files, want some but not all", kept)
	}
	sum := run(t, root)
	if sum.Files != 40 || sum.Indexed != 40-kept || sum.Unchanged != kept {
		t.Errorf("resumed run: files %d indexed %d unchanged %d (kept %d)", sum.Files, sum.Indexed, sum.Unchanged, kept)
	}
}

// assertCovered checks that every non-blank byte of a file lies in one of
// its chunks' spans.
func assertCovered(t *testing.T, tx *store.Tx, path string) {
	t.Helper()
	blob, ok := tx.Blob(path)
	if !ok {
		t.Fatalf("%s: no text", path)
	}
	covered := make([]bool, len(blob))
	chunks, _ := tx.FileChunks(path)
	for _, c := range chunks {
		for i := c.StartByte; i < c.EndByte; i++ {
			covered[i] = true
		}
	}
	for i, b := range blob {
		if !covered[i] && b != ' ' && b != '\n' && b != '\t' {
			t.Errorf("%s: byte %d (%q) is in no chunk", path, i, b)
			return
		}
	}
}

// A 50 MB minified file is skipped quickly whatever the size cap.
func TestHugeMinifiedFile(t *testing.T) {
	root := t.TempDir()
	write(t, root, "bundle.js", strings.Repeat("var a=function(){return 1};", 50<<20/27))
	write(t, root, "ok.go", "package ok\n")
	if sum := run(t, root); sum.Skipped["too_large"] != 1 || sum.Files != 1 {
		t.Errorf("default cap: skipped %v files %d", sum.Skipped, sum.Files)
	}
	sum := run(t, root, func(o *Options) { o.MaxFileSize = 64 << 20 })
	if sum.Skipped["generated"] != 1 || sum.Files != 1 {
		t.Errorf("raised cap: skipped %v files %d", sum.Skipped, sum.Files)
	}
}

// Identical content in two files is one hash.
func TestDuplicateContent(t *testing.T) {
	root := t.TempDir()
	body := "package x\n\n// Same is everywhere.\nfunc Same() int { return 42 }\n"
	write(t, root, "a/x.go", body)
	write(t, root, "b/x.go", strings.ReplaceAll(body, "\n", "  \r\n")) // CRLF and trailing blanks normalize away
	run(t, root)
	view(t, root, func(tx *store.Tx) {
		var hashes []string
		tx.SymbolsWithPrefix("same", func(s store.Symbol) bool {
			c, _, _ := tx.Chunk(s.ChunkID)
			hashes = append(hashes, c.Hash)
			return true
		})
		if len(hashes) != 2 || hashes[0] != hashes[1] {
			t.Errorf("identical functions in two files have the hashes %q", hashes)
		}
	})
}

// A file deleted between the walk and its read is a counted skip.
func TestVanishedFile(t *testing.T) {
	root := t.TempDir()
	write(t, root, "gone.go", "package x\n")
	w := &worker{parsers: nil, reg: nil}
	os.Remove(filepath.Join(root, "gone.go"))
	o := w.process(context.Background(), discover.Candidate{Rel: "gone.go", Abs: filepath.Join(root, "gone.go")}, nil)
	if o.skip != discover.ReasonVanished {
		t.Errorf("skip = %q", o.skip)
	}
}

// A file touched without a change of content (touch, git stash && git
// stash pop, a branch switch and back) keeps its whole record: the index is
// the one a fresh run over the same tree builds, through Run and Update.
func TestTouchKeepsRecord(t *testing.T) {
	root := fixture(t)
	run(t, root)
	records := func(root string) map[string]store.File {
		out := map[string]store.File{}
		view(t, root, func(tx *store.Tx) {
			tx.Files(func(f store.File) error { out[f.Path] = f; return nil })
		})
		return out
	}
	recordMtime := func(root, p string) int64 {
		var mt int64
		view(t, root, func(tx *store.Tx) {
			r, err := search.DecodeRecord(tx.SearchRecord(p))
			if err != nil {
				t.Fatal(err)
			}
			mt = r.ModTime
		})
		return mt
	}
	future := time.Now().Add(time.Hour).Truncate(time.Second)
	os.Chtimes(filepath.Join(root, "cart/cart.go"), future, future)
	if sum := run(t, root); sum.Touched != 1 {
		t.Fatalf("touched %d, want 1", sum.Touched)
	}
	later := future.Add(time.Minute)
	os.Chtimes(filepath.Join(root, "py/pricing.py"), later, later)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ix.Update(context.Background(), []string{"py/pricing.py"})
	ix.Close()
	if err != nil || sum.Touched != 1 {
		t.Fatalf("update: touched %d, %v", sum.Touched, err)
	}

	fresh := t.TempDir()
	if err := os.CopyFS(fresh, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(fresh, store.DirName))
	for p := range records(root) {
		st, _ := os.Stat(filepath.Join(root, p))
		os.Chtimes(filepath.Join(fresh, p), st.ModTime(), st.ModTime())
	}
	run(t, fresh)
	got, want := records(root), records(fresh)
	for p, w := range want {
		if g := got[p]; !reflect.DeepEqual(g, w) {
			t.Errorf("%s after a touch:\n got %+v\nwant %+v", p, g, w)
		}
	}
	for _, p := range []string{"cart/cart.go", "py/pricing.py"} {
		if g, w := recordMtime(root, p), recordMtime(fresh, p); g != w {
			t.Errorf("%s: search record's time %d, a fresh index's %d", p, g, w)
		}
	}
}
