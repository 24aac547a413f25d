package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/store"
)

// historyRecords is what the index at root holds of history files: per
// history file its content's hash and its chunks.
func historyRecords(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	view(t, root, func(tx *store.Tx) {
		_ = tx.Files(func(f store.File) error {
			if strings.HasPrefix(f.Path, history.Dir+"/") {
				out[f.Path] = f.Hash + " " + strings.Join(f.Chunks, ",")
			}
			return nil
		})
	})
	return out
}

// freshCopy copies root's tree (and git repository) without its .dossier:
// a workspace a run indexes afresh.
func freshCopy(t *testing.T, root string) string {
	t.Helper()
	fresh := t.TempDir()
	if out, err := exec.Command("cp", "-a", root+"/.", fresh).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	if err := os.RemoveAll(store.Dir(fresh)); err != nil {
		t.Fatal(err)
	}
	return fresh
}

// freshHistory indexes a fresh copy of root and returns its history
// records.
func freshHistory(t *testing.T, root string, opts func(*Options)) map[string]string {
	t.Helper()
	fresh := freshCopy(t, root)
	run(t, fresh, opts)
	return historyRecords(t, fresh)
}

// TestHistoryChurnMatchesFresh proves the history an index holds after
// any sequence of runs is the history a fresh index of the same tree
// holds: a file away (missing, a FIFO, a directory, binary for a while)
// during a run which reads a commit that changed it, or one an amend
// rewrote, has no history indexed while away and has it again once back;
// so too through the watcher's updates (issue 30: 6 of 6 churn rounds
// lost the history for good).
func TestHistoryChurnMatchesFresh(t *testing.T) {
	opts := func(o *Options) { o.HistoryDepth, o.HistoryCommits = 5, 100 }
	for _, away := range []string{"missing", "fifo", "dir", "binary", "amend", "watch"} {
		t.Run(away, func(t *testing.T) {
			root := t.TempDir()
			git := gitIn(t, root)
			git("init", "-q")
			write(t, root, "a.go", "package a\n\nfunc A() {}\n")
			write(t, root, "b.go", "package a\n\nfunc B() {}\n")
			git("add", "-A")
			git("commit", "-q", "-m", "First")
			write(t, root, "b.go", "package a\n\nfunc B() { println() }\n")
			git("commit", "-q", "-am", "Second")
			run(t, root, opts)
			// A new commit that changes b.go, read by a run while b.go is away.
			write(t, root, "b.go", "package a\n\nfunc B() { println(1) }\n")
			git("commit", "-q", "-am", "Third")
			b := filepath.Join(root, "b.go")
			kept, err := os.ReadFile(b)
			if err != nil {
				t.Fatal(err)
			}
			index := func() { run(t, root, opts) }
			switch away {
			case "missing":
				os.Remove(b)
			case "fifo":
				os.Remove(b)
				mkfifo(t, b)
			case "dir":
				os.Remove(b)
				write(t, root, "b.go/c.txt", "a directory now\n")
			case "binary":
				write(t, root, "b.go", "\x00\x01 not text\n")
			case "amend":
				// Missing while an amend rewrites HEAD: history is read anew.
				os.Remove(b)
				write(t, root, "a.go", "package a\n\nfunc A() { println() }\n")
				git("add", "a.go")
				git("commit", "-q", "--amend", "--no-edit")
			case "watch":
				// The commit is read by a run; the watcher sees b.go go and come back.
				index()
				os.Remove(b)
				index = func() { update(t, root, opts, "b.go") }
			}
			index()
			same(t, root, opts, false)
			os.RemoveAll(b)
			if err := os.WriteFile(b, kept, 0o644); err != nil {
				t.Fatal(err)
			}
			index()
			same(t, root, opts, true)
		})
	}
}

// same fails t when the history records of the index at root are not a
// fresh index's; b, whether b.go's history is in it.
func same(t *testing.T, root string, opts func(*Options), b bool) {
	t.Helper()
	got, want := historyRecords(t, root), freshHistory(t, root, opts)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history records:\n got %v\nwant %v (a fresh index)", got, want)
	}
	if (want[history.File("b.go")] != "") != b {
		t.Errorf("b.go's history in a fresh index: %v, want %v", want, b)
	}
}

// update brings the index at root up to date with paths, as the watcher
// does.
func update(t *testing.T, root string, opts func(*Options), paths ...string) {
	t.Helper()
	o := Options{Root: root}
	opts(&o)
	ix, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
}
