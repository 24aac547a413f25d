package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo is a git repository made with the git CLI in a temporary
// directory, with fixed authors and dates.
type repo struct {
	t    *testing.T
	dir  string
	tick int
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the history tests need the git CLI")
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	return gitIn(r.t, r.dir, r.tick, args...)
}

func gitIn(t *testing.T, dir string, tick int, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	date := fmt.Sprintf("2026-01-%02dT10:00:00Z", 1+tick)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Jane Doe", "GIT_AUTHOR_EMAIL=jane@example.com", "GIT_COMMITTER_NAME=Jane Doe",
		"GIT_COMMITTER_EMAIL=jane@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(rel, text string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything with msg, a day after the last commit.
func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.tick++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *repo) sync(depth int) Result {
	r.t.Helper()
	head := ""
	if out, err := exec.Command("git", "-C", r.dir, "rev-parse", "--verify", "-q", "HEAD").Output(); err == nil {
		head = strings.TrimSpace(string(out))
	}
	res, err := Sync(context.Background(), Options{Root: r.dir, Head: head, Depth: depth, Window: 100})
	if err != nil {
		r.t.Fatalf("Sync: %v", err)
	}
	return res
}

// history is the history file of src, "" when there is none.
func (r *repo) history(src string) string {
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(File(src))))
	if err != nil {
		return ""
	}
	return string(data)
}

const controller = `<?php
class InvoiceController extends Controller
{
    public function store($request)
    {
        return 1;
    }

    public function show($id)
    {
        return $id;
    }
}
`

func TestSyncKeepsTheLastCommitsOfEachFile(t *testing.T) {
	r := newRepo(t)
	r.write("app/InvoiceController.php", controller)
	r.write("README.md", "# App\n")
	r.commit("Add invoice controller")
	rounded := strings.Replace(controller, "return 1;", "return round($request->total, 2);", 1)
	r.write("app/InvoiceController.php", rounded)
	r.commit("Round invoice totals\n\nTotals were off by a cent.\n# not a heading\n```\nnot a fence")
	r.write("app/InvoiceController.php", strings.Replace(rounded, "return $id;", "return Invoice::find($id);", 1))
	r.commit("Show finds the invoice")

	res := r.sync(2)
	if res.Read != 3 || !res.Full || res.Note != "" {
		t.Fatalf("Result = %+v, want 3 commits read in full, no note", res)
	}
	h := r.history("app/InvoiceController.php")
	// Newest first, at most two, each a section with its facts.
	if strings.Count(h, "\n## ") != 1 || !strings.HasPrefix(h, "## ") {
		t.Fatalf("history holds %d sections, want 2:\n%s", strings.Count(h, "## "), h)
	}
	show, round := strings.Index(h, "Show finds the invoice"), strings.Index(h, "Round invoice totals")
	if show < 0 || round < 0 || show > round || strings.Contains(h, "Add invoice controller") {
		t.Errorf("history is not the last two commits, newest first:\n%s", h)
	}
	for _, want := range []string{"- file: app/InvoiceController.php (modified)", "- author: Jane Doe", "- date: 2026-01-04T10:00:00+00:00",
		"- changed: show", "- changed: store", "Totals were off by a cent.", "\\# not a heading", "\\```"} {
		if !strings.Contains(h, want) {
			t.Errorf("history lacks %q:\n%s", want, h)
		}
	}
	if r.history("README.md") == "" {
		t.Error("README.md has no history")
	}
}

func TestSyncIsIncrementalAndRereadsRewrittenHistory(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n\nfunc A() int { return 1 }\n")
	r.write("b.go", "package a\n\nfunc B() int { return 1 }\n")
	r.commit("First")
	r.sync(5)
	if res := r.sync(5); !res.Unchanged || res.Read != 0 || res.Written != 0 || res.Removed != 0 {
		t.Fatalf("an unchanged HEAD did something: %+v", res)
	}
	bBefore := r.history("b.go")

	r.write("a.go", "package a\n\nfunc A() int { return 2 }\n")
	r.commit("Second changes A")
	res := r.sync(5)
	if res.Read != 1 || res.Full || res.Written != 1 {
		t.Fatalf("after one new commit: %+v, want 1 commit read incrementally, 1 file written", res)
	}
	if h := r.history("a.go"); !strings.Contains(h, "Second changes A") || !strings.Contains(h, "First") || !strings.Contains(h, "- changed: A") {
		t.Errorf("a.go's history misses a commit:\n%s", h)
	}
	if r.history("b.go") != bBefore {
		t.Error("b.go's history changed though no new commit touched it")
	}

	// Amending rewrites the last commit: the old one is no ancestor of
	// the new HEAD, so everything is read again and it is gone.
	r.write("a.go", "package a\n\nfunc A() int { return 3 }\n")
	r.tick++
	r.git("commit", "-q", "-a", "--amend", "-m", "Third replaces second")
	res = r.sync(5)
	if res.Read != 2 || !res.Full {
		t.Fatalf("after an amend: %+v, want the 2 commits read in full", res)
	}
	if h := r.history("a.go"); strings.Contains(h, "Second changes A") || !strings.Contains(h, "Third replaces second") {
		t.Errorf("a.go's history after the amend:\n%s", h)
	}

	// A deleted file loses its history; depth 0 removes every file.
	r.git("rm", "-q", "b.go")
	r.commit("Drop B")
	r.sync(5)
	if h := r.history("b.go"); h != "" {
		t.Errorf("b.go was deleted but keeps a history:\n%s", h)
	}
	if res := r.sync(0); res.Removed != 1 {
		t.Errorf("history off: %+v, want a.go's file removed", res)
	}
	if _, err := os.Stat(filepath.Join(r.dir, filepath.FromSlash(Dir))); !os.IsNotExist(err) {
		t.Errorf("history off leaves %s: %v", Dir, err)
	}
}

func TestSyncFollowsRenamesAndSkipsMerges(t *testing.T) {
	r := newRepo(t)
	r.write("old name.go", "package a\n\nfunc Keep() {\n\tprintln(1)\n\tprintln(2)\n\tprintln(3)\n}\n")
	r.write("logo.png", "\x89PNG\x00\x00binary")
	r.write("dir/ü odd\"name.go", "package a\n")
	r.commit("Add files")
	r.git("mv", "old name.go", "new_name.go")
	r.commit("Rename")
	r.git("checkout", "-q", "-b", "side")
	r.write("side.go", "package a\n")
	r.commit("Side work")
	r.git("checkout", "-q", "main")
	r.write("main.go", "package a\n")
	r.commit("Main work")
	r.tick++
	r.git("merge", "-q", "--no-ff", "-m", "Merge side", "side")

	res := r.sync(5)
	if res.Read != 4 {
		t.Errorf("read %d commits, want 4 (the merge left out)", res.Read)
	}
	h := r.history("new_name.go")
	if !strings.Contains(h, "renamed from old name.go") || !strings.Contains(h, "Add files") {
		t.Errorf("the renamed file's history does not reach past the rename:\n%s", h)
	}
	if r.history("old name.go") != "" {
		t.Error("the old name of a renamed file keeps a history")
	}
	// The history files depend on git alone: the indexer leaves those
	// of binary files out.
	if !strings.Contains(r.history("logo.png"), "Add files") {
		t.Error("a binary file has no history file")
	}
	if !strings.Contains(r.history("dir/ü odd\"name.go"), "Add files") {
		t.Error("a path with odd characters has no history")
	}
	if strings.Contains(r.history("side.go"), "Merge side") || !strings.Contains(r.history("side.go"), "Side work") {
		t.Errorf("side.go's history:\n%s", r.history("side.go"))
	}
}

func TestSyncNotes(t *testing.T) {
	t.Run("no repository", func(t *testing.T) {
		res, err := Sync(context.Background(), Options{Root: t.TempDir(), Depth: 5})
		if err != nil || res.NoteKey != "history_no_commits" {
			t.Errorf("Sync = %+v, %v; want the no-commits note", res, err)
		}
	})
	t.Run("empty repository", func(t *testing.T) {
		r := newRepo(t)
		if res := r.sync(5); res.NoteKey != "history_no_commits" {
			t.Errorf("Sync = %+v; want the no-commits note", res)
		}
	})
	t.Run("no git binary", func(t *testing.T) {
		r := newRepo(t)
		r.write("a.go", "package a\n")
		head := r.commit("First")
		t.Setenv("PATH", t.TempDir())
		res, err := Sync(context.Background(), Options{Root: r.dir, Head: head, Depth: 5})
		if err != nil || res.NoteKey != "history_no_git" || !strings.Contains(res.Note, "install git") {
			t.Errorf("Sync = %+v, %v; want the no-git note", res, err)
		}
	})
	t.Run("unknown commit", func(t *testing.T) {
		r := newRepo(t)
		r.write("a.go", "package a\n")
		r.commit("First")
		res, err := Sync(context.Background(), Options{Root: r.dir, Head: strings.Repeat("ab", 20), Depth: 5})
		if err != nil || res.NoteKey != "history_unreadable" {
			t.Errorf("Sync = %+v, %v; want the unreadable note", res, err)
		}
	})
	t.Run("shallow clone", func(t *testing.T) {
		r := newRepo(t)
		for i, msg := range []string{"One", "Two", "Three"} {
			r.write("a.go", fmt.Sprintf("package a\n\nvar X = %d\n", i))
			r.commit(msg)
		}
		clone := filepath.Join(t.TempDir(), "clone")
		gitIn(t, r.dir, 0, "clone", "-q", "--depth", "2", "file://"+r.dir, clone)
		head := gitIn(t, clone, 0, "rev-parse", "HEAD")
		res, err := Sync(context.Background(), Options{Root: clone, Head: head, Depth: 5})
		if err != nil || res.NoteKey != "history_shallow" || res.Read != 1 {
			t.Fatalf("Sync = %+v, %v; want the shallow note and the boundary commit left out", res, err)
		}
		h, _ := os.ReadFile(filepath.Join(clone, filepath.FromSlash(File("a.go"))))
		if !strings.Contains(string(h), "Three") || strings.Contains(string(h), "Two") {
			t.Errorf("shallow history:\n%s", h)
		}
	})
}

func TestParseSymbols(t *testing.T) {
	out := "\x1e" + strings.Repeat("a", 40) + "\n\n" +
		"diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n" +
		"@@ -3 +3 @@ func (s *Server) Handle(w http.ResponseWriter) {\n-\told()\n+\tnew()\n" +
		"@@ -9,0 +10,3 @@ type Server struct {\n+func NewServer() *Server {\n" +
		"--- a/not/a/header.go\n+++ b/not/a/header.go\n" +
		"diff --git \"a/odd\\tname.php\" \"b/odd\\tname.php\"\n--- \"a/odd\\tname.php\"\n+++ \"b/odd\\tname.php\"\n" +
		"@@ -1 +1 @@ public function store(Request $request)\n-x\n+y\n" +
		"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-func Gone() {}\n"
	got := parseSymbols([]byte(out))[strings.Repeat("a", 40)]
	want := map[string]string{"x.go": "Handle,Server,NewServer", "odd\tname.php": "store", "gone.go": "Gone"}
	if len(got) != len(want) {
		t.Fatalf("parseSymbols = %q, want %q", got, want)
	}
	for p, w := range want {
		if strings.Join(got[p], ",") != w {
			t.Errorf("%q: %q, want %q", p, got[p], w)
		}
	}
}

func FuzzParseCommits(f *testing.F) {
	f.Add([]byte("\x1e" + strings.Repeat("a", 40) + "\x1fJane\x1f2026-01-01T00:00:00Z\x1fSubject\n\nBody\x1f\x00\n:100644 100644 1 2 M\x00a.go\x00"))
	f.Add([]byte("\x1e" + strings.Repeat("b", 40) + "\x1fJ\x1fd\x1fs\x1f\x00\n:100644 100644 1 2 R090\x00old\x00new\x00"))
	f.Add([]byte("\x1e\x1f\x00:"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, _ := parseCommits(data)
		for _, c := range cs {
			if !isHash(c.Hash) {
				t.Fatalf("a commit with hash %q", c.Hash)
			}
		}
		_ = parseSymbols(data)
	})
}
