package index

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/discover"
)

// within fails the test when fn does not return in time: a FIFO opened for
// reading blocks until a writer comes, which in a test is forever.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still blocked after 20s", what)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A file that became a FIFO after the walk saw it is skipped, not waited
// on (the indexer holds the writer lock while it waits).
func TestFileReplacedByFIFO(t *testing.T) {
	root := fixture(t)
	abs := filepath.Join(root, "cart/cart.go")
	os.Remove(abs)
	mkfifo(t, abs)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w := ix.newWorker()
	defer w.parsers.Close()
	var o outcome
	within(t, "processing a FIFO", func() {
		o = w.process(context.Background(), discover.Candidate{Rel: "cart/cart.go", Abs: abs, Size: 10}, nil)
	})
	if o.skip != discover.ReasonSpecial {
		t.Errorf("skip %q (%s), want %q", o.skip, o.detail, discover.ReasonSpecial)
	}
}

// FIFOs where dossier reads git's files or ignore files do not hang a run.
func TestFIFOsInGitAndIgnoreFiles(t *testing.T) {
	root := fixture(t)
	mkfifo(t, filepath.Join(root, ".gitignore"))
	mkfifo(t, filepath.Join(root, "web", ".dossierignore"))
	mkfifo(t, filepath.Join(root, ".git", "HEAD"))
	mkfifo(t, filepath.Join(root, ".git", "config"))
	var sum Summary
	within(t, "indexing", func() { sum = run(t, root) })
	if sum.Files == 0 {
		t.Errorf("nothing indexed: %+v", sum)
	}
	within(t, "updating", func() {
		ix, err := Open(Options{Root: root})
		if err != nil {
			t.Error(err)
			return
		}
		defer ix.Close()
		if _, err := ix.Update(context.Background(), []string{"web/src/a.ts"}); err != nil {
			t.Error(err)
		}
	})
}
