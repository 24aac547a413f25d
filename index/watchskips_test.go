package index

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/dossierhq/dossier/index/summary"
)

// freshSkips indexes a fresh copy of root and returns the skips of that
// full walk.
func freshSkips(t *testing.T, root string) map[string]int {
	t.Helper()
	return run(t, freshCopy(t, root)).Skipped
}

// storedSkips is what `dossier stats` shows of the skips: the stored
// summary's.
func storedSkips(t *testing.T, root string) map[string]int {
	t.Helper()
	sum, err := summary.Read(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return sum.Skipped
}

// TestWatchBatchKeepsTheTreesSkips proves that after a watcher's batch
// the index's summary, which stats shows, counts the skips of the whole
// tree, as a full walk of it does: the batch's files as they are now, the
// others as they were (issue 30: only the batch's were left).
func TestWatchBatchKeepsTheTreesSkips(t *testing.T) {
	root := fixture(t) // bin.dat is binary
	write(t, root, ".gitignore", "*.log\n")
	write(t, root, "app.log", "ignored\n")
	write(t, root, "node_modules/x/index.js", "default ignore\n")
	run(t, root)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, batch := range []struct {
		what  string
		apply func()
		paths []string
	}{
		{"a file edited", func() { write(t, root, "cart/cart.go", "package cart\n\nfunc Edited() {}\n") }, []string{"cart/cart.go"}},
		{"a file made binary, a binary removed, one added", func() {
			write(t, root, "py/pricing.py", "\x00binary now\n")
			os.Remove(filepath.Join(root, "bin.dat"))
			write(t, root, "img.bin", "\x00\x01\x02")
		}, []string{"py/pricing.py", "bin.dat", "img.bin"}},
		{"a file text again", func() { write(t, root, "py/pricing.py", "def price(x):\n    return x\n") }, []string{"py/pricing.py"}},
	} {
		batch.apply()
		sum, err := ix.Update(context.Background(), batch.paths)
		if err != nil {
			t.Fatal(err)
		}
		want := freshSkips(t, root)
		if got := storedSkips(t, root); !maps.Equal(got, want) || !maps.Equal(sum.Skipped, want) {
			t.Errorf("%s: the summary counts skips %v (stored %v), a full walk %v", batch.what, sum.Skipped, got, want)
		}
	}
	// The tree kept current by the batches lets the next run check it
	// instead of walking: nothing to do, the same skips.
	want := storedSkips(t, root)
	ix.Close()
	if sum := run(t, root); sum.Indexed != 0 || !maps.Equal(sum.Skipped, want) {
		t.Errorf("the next run: indexed %d, skips %v, want %v", sum.Indexed, sum.Skipped, want)
	}
}

// TestWatchBatchSkipsWithoutATree proves a batch keeps the last counts
// when no walk tree tells each file's state (a walk through a symlink
// keeps none): a file the index held that the batch skips is counted in.
func TestWatchBatchSkipsWithoutATree(t *testing.T) {
	root := fixture(t)
	if err := os.Symlink("cart", filepath.Join(root, "cartlink")); err != nil {
		t.Fatal(err)
	}
	before := run(t, root).Skipped
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	write(t, root, "py/pricing.py", "\x00binary now\n")
	if _, err := ix.Update(context.Background(), []string{"py/pricing.py"}); err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(before)
	want["binary"]++
	if got := storedSkips(t, root); !maps.Equal(got, want) {
		t.Errorf("skips %v, want %v (before the batch %v)", got, want, before)
	}
}
