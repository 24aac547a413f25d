package index

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

func generation(t *testing.T, root string) uint64 {
	t.Helper()
	var gen uint64
	view(t, root, func(tx *store.Tx) { gen = tx.Generation() })
	return gen
}

// ageDirs sets the mtimes of root's directories well in the past, so a
// walk trusts them (a directory changed within the walk's clock tick is
// read again instead).
func ageDirs(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// figures are the parts of a summary a no-op and a full run must agree on.
func figures(s Summary) Summary {
	return Summary{Totals: normalTotals(s.Totals), Indexed: s.Indexed, Unchanged: s.Unchanged, Touched: s.Touched,
		Removed: s.Removed, Skipped: s.Skipped, Errors: s.Errors, RebuiltFrom: s.RebuiltFrom, Repo: s.Repo}
}

// TestNoopRunWritesNothing proves a run over an unchanged workspace writes
// nothing (the index's generation stays), and reports what a full walk
// reports.
func TestNoopRunWritesNothing(t *testing.T) {
	root := fixture(t)
	write(t, root, "big.txt", string(make([]byte, 200)))
	ageDirs(t, root)
	run(t, root)
	full := run(t, root, func(o *Options) { o.Verbose = true }) // Verbose: every path walked
	gen := generation(t, root)
	noop := run(t, root)
	if got := generation(t, root); got != gen {
		t.Errorf("a no-op run wrote: generation %d -> %d", gen, got)
	}
	full.SkippedFiles = nil
	if !reflect.DeepEqual(figures(noop), figures(full)) {
		t.Errorf("no-op run:\n %+v\na full run:\n %+v", figures(noop), figures(full))
	}
}

// TestQuickRunChangedFile proves a run that finds a few files changed from
// the last walk's tree indexes them alone, as a full run would, and leaves
// the tree current for the next run.
func TestQuickRunChangedFile(t *testing.T) {
	root := fixture(t)
	ageDirs(t, root)
	first := run(t, root)
	f, err := os.OpenFile(filepath.Join(root, "cart", "cart.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n// Clear empties c.\nfunc (c *Cart) Clear() { c.Items = nil }\n")
	f.Close()
	// Same content, another mtime: touched.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "README.md"), future, future)
	// Text that becomes binary leaves the index.
	write(t, root, "config.yaml", "\x00binary now")

	gen := generation(t, root)
	sum := run(t, root)
	if sum.Indexed != 1 || sum.Touched != 1 || sum.Removed != 1 || sum.Unchanged != first.Files-3 || sum.Files != first.Files-1 {
		t.Fatalf("quick run: indexed %d touched %d removed %d unchanged %d files %d; want 1, 1, 1, %d, %d",
			sum.Indexed, sum.Touched, sum.Removed, sum.Unchanged, sum.Files, first.Files-3, first.Files-1)
	}
	if generation(t, root) == gen {
		t.Fatal("the changed files were not written")
	}
	if sum.Generation != generation(t, root) {
		t.Errorf("the quick run's summary names generation %d, the index is at %d: the next full run decodes every record for its totals", sum.Generation, generation(t, root))
	}
	want := summary.NewTotals()
	view(t, root, func(tx *store.Tx) {
		if err := tx.Files(func(f store.File) error { want.Apply(f, 1); return nil }); err != nil {
			t.Fatal(err)
		}
	})
	if !reflect.DeepEqual(normalTotals(sum.Totals), normalTotals(want)) {
		t.Errorf("quick run's totals\n %+v\nthe records'\n %+v", sum.Totals, want)
	}
	view(t, root, func(tx *store.Tx) {
		if got := symbols(tx, "clear"); len(got) != 1 {
			t.Errorf("the new method is not indexed: %v", got)
		}
		if _, ok, _ := tx.File("config.yaml"); ok {
			t.Error("config.yaml, now binary, is still indexed")
		}
	})
	// The tree was brought up to date: the next run writes nothing and
	// reports what a full walk finds.
	gen = generation(t, root)
	noop := run(t, root)
	if got := generation(t, root); got != gen {
		t.Errorf("a no-op run after a quick one wrote: generation %d -> %d", gen, got)
	}
	full := run(t, root, func(o *Options) { o.Verbose = true })
	if full.Indexed != 0 || full.Touched != 0 || full.Removed != 0 {
		t.Errorf("a full run after the quick ones still found work: %+v", full)
	}
	full.SkippedFiles = nil
	if !reflect.DeepEqual(figures(noop), figures(full)) {
		t.Errorf("no-op run:\n %+v\na full run:\n %+v", figures(noop), figures(full))
	}
}

// TestQuickRunWalksWhenTheTreeChanged proves that changes the tree cannot
// vouch for (a new file, an ignore rule, a write by another writer) get a
// full walk.
func TestQuickRunWalksWhenTheTreeChanged(t *testing.T) {
	root := fixture(t)
	ageDirs(t, root)
	first := run(t, root)
	write(t, root, "cart/discount.go", "package cart\n\n// Discount cuts a price.\nfunc Discount(p int) int { return p * 9 / 10 }\n")
	if sum := run(t, root); sum.Indexed != 1 || sum.Files != first.Files+1 {
		t.Fatalf("a new file: indexed %d, files %d; want 1 and %d", sum.Indexed, sum.Files, first.Files+1)
	}
	write(t, root, ".gitignore", "py/\n")
	if sum := run(t, root); sum.Removed != 2 {
		t.Fatalf("an ignore rule: removed %d, want the 2 files under py/", sum.Removed)
	}
	// Another writer (a watcher's update) moves the generation: the tree
	// is not trusted, and a change it would not show is found.
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "web/src/b.js", "export const b = () => 2;\n")
	if _, err := ix.Update(t.Context(), []string{"web/src/b.js"}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error { return tx.DeleteFile("README.md") })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sum := run(t, root); sum.Indexed != 1 {
		t.Fatalf("after another writer: indexed %d, want README.md again", sum.Indexed)
	}
}

// TestNoopRunKeepsWhatItLearned proves a no-op run that had to read
// directory listings, because the walk recorded their times as too recent
// to trust (an index made right after a clone or a copy), writes the tree
// once with the times it now trusts: the next runs read no listing and
// write nothing, and the summary stays the last run's.
func TestNoopRunKeepsWhatItLearned(t *testing.T) {
	root := fixture(t)
	first := run(t, root) // the directories were just made: not trusted
	ageDirs(t, root)      // ... and now old enough, with the same entries
	gen := generation(t, root)
	if untrustedDirs(t, root) == 0 {
		t.Fatal("the fixture's walk trusted every directory: the test needs racy ones")
	}
	noop := run(t, root)
	if noop.Indexed != 0 || !reflect.DeepEqual(figures(noop).Totals, figures(first).Totals) {
		t.Fatalf("no-op run: indexed %d, totals %+v, want 0 and %+v", noop.Indexed, noop.Totals, first.Totals)
	}
	if got := generation(t, root); got != gen+1 {
		t.Fatalf("the no-op run that learned directory times: generation %d -> %d, want one write", gen, got)
	}
	if n := untrustedDirs(t, root); n != 0 {
		t.Errorf("the stored tree still has %d directories to read", n)
	}
	var stored Summary
	view(t, root, func(tx *store.Tx) {
		if _, err := tx.Summary(&stored); err != nil {
			t.Fatal(err)
		}
	})
	if stored.Indexed != first.Indexed || !stored.Finished.Equal(first.Finished) {
		t.Errorf("stored summary: %d indexed, finished %v; want the last run's %d, %v", stored.Indexed, stored.Finished, first.Indexed, first.Finished)
	}
	run(t, root)
	if got := generation(t, root); got != gen+1 {
		t.Errorf("a later no-op run wrote: generation %d -> %d", gen+1, got)
	}
}

// untrustedDirs is how many directories a check of the stored walk tree
// has to read (Tree.Learned after a Check).
func untrustedDirs(t *testing.T, root string) int {
	t.Helper()
	return checkedTree(t, root).Learned()
}

// checkedTree is the stored walk tree after a Check of root.
func checkedTree(t *testing.T, root string) *discover.Tree {
	t.Helper()
	var b []byte
	view(t, root, func(tx *store.Tx) { b = append([]byte(nil), tx.WalkTree()...) })
	tree, err := discover.DecodeTree(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Check(t.Context(), root, discover.Options{}); err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestNoopRunLearnsBestEffort proves what a no-op run learned is written
// only when it can be at once: a reader holding the index file delays the
// run by at most learnWait and fails nothing, and a writer in between
// (the index moved on since the tree was read) is left as it wrote.
func TestNoopRunLearnsBestEffort(t *testing.T) {
	root := fixture(t)
	run(t, root)
	ageDirs(t, root)
	gen := generation(t, root)
	reader, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	noop := run(t, root) // fails the test on an error
	reader.Close()
	if noop.Indexed != 0 || generation(t, root) != gen {
		t.Fatalf("no-op run beside a reader: indexed %d, generation %d -> %d; want 0 and no write", noop.Indexed, gen, generation(t, root))
	}
	if untrustedDirs(t, root) == 0 {
		t.Fatal("the tree was written beside a reader")
	}

	tree := checkedTree(t, root)
	if err := os.WriteFile(filepath.Join(root, "later.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, root) // another writer, after the tree was read
	moved := generation(t, root)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.keepLearned(tree); !errors.Is(err, errStaleTree) {
		t.Fatalf("keepLearned of a stale tree: %v, want errStaleTree", err)
	}
	if got := generation(t, root); got != moved {
		t.Errorf("keepLearned of a stale tree committed: generation %d -> %d", moved, got)
	}
}

// TestQuickRunSeesAnEntryChangeKind proves a quick run notices a
// directory replaced by a file of the same name and the other way round,
// though the entries' names are the same: an ignored directory
// ("notes.md/" ignores directories only) is not in the tree to be missed,
// and a file that became a directory is read as one.
func TestQuickRunSeesAnEntryChangeKind(t *testing.T) {
	for _, c := range []struct {
		name string
		swap func(t *testing.T, root string)
		want map[string]bool
	}{
		{"ignored directory to file", func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, "notes.md")); err != nil {
				t.Fatal(err)
			}
			write(t, root, "notes.md", "# Notes\n")
		}, map[string]bool{"notes.md": true, "notes.md/inside.md": false}},
		{"file to directory", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "extra.md")); err != nil {
				t.Fatal(err)
			}
			write(t, root, "extra.md/inner.md", "# Inner\n")
		}, map[string]bool{"extra.md": false, "extra.md/inner.md": true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fixture(t)
			write(t, root, ".gitignore", "notes.md/\n")
			write(t, root, "notes.md/inside.md", "# Ignored\n")
			write(t, root, "extra.md", "# Extra\n")
			run(t, root)
			ageDirs(t, root)
			run(t, root)
			c.swap(t, root)
			run(t, root)
			has := map[string]bool{}
			view(t, root, func(tx *store.Tx) {
				tx.Files(func(f store.File) error { has[f.Path] = true; return nil })
			})
			for p, want := range c.want {
				if has[p] != want {
					t.Errorf("%s indexed: %v, want %v", p, has[p], want)
				}
			}
		})
	}
}
