package index

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// TestNoopRunKeepsTotals proves a run that writes nothing reports the
// totals of the file records (taken from the last summary), and that a
// write the summary did not see (another writer, an interrupted run) makes
// the run sum the records again instead of trusting it.
func TestNoopRunKeepsTotals(t *testing.T) {
	root := fixture(t)
	full := run(t, root)
	noop := run(t, root)
	if noop.Indexed != 0 || !reflect.DeepEqual(normalTotals(noop.Totals), normalTotals(full.Totals)) {
		t.Fatalf("no-op run: indexed %d, totals %+v, want 0 and %+v", noop.Indexed, noop.Totals, full.Totals)
	}
	// Another writer removes a file's records, and the file goes.
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error { return tx.DeleteFile("py/pricing.py") })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "py", "pricing.py")); err != nil {
		t.Fatal(err)
	}
	after := run(t, root)
	if after.Files != full.Files-1 || after.FilesByLanguage["python"] != full.FilesByLanguage["python"]-1 {
		t.Errorf("after a write the summary did not see: %d files (%d python), want %d (%d)",
			after.Files, after.FilesByLanguage["python"], full.Files-1, full.FilesByLanguage["python"]-1)
	}
}

// TestRunKeepsTotalsCurrent proves the totals a run carries forward from
// the last summary, with its own writes and removals applied, are the sums
// of the file records.
func TestRunKeepsTotalsCurrent(t *testing.T) {
	root := fixture(t)
	run(t, root)
	write(t, root, "cart/cart.go", "package cart\n\n// Cart holds items.\ntype Cart struct{ Items []string }\n\n// Empty reports whether c has no items.\nfunc (c *Cart) Empty() bool { return len(c.Items) == 0 }\n\n// Clear empties c.\nfunc (c *Cart) Clear() { c.Items = nil }\n")
	write(t, root, "py/tax.py", "def tax(x):\n    \"\"\"Add the tax.\"\"\"\n    return x * 1.2\n\n\ndef net(x):\n    return x / 1.2\n")
	if err := os.Remove(filepath.Join(root, "web", "src", "b.js")); err != nil {
		t.Fatal(err)
	}
	sum := run(t, root)
	if sum.Indexed != 2 || sum.Removed != 1 {
		t.Fatalf("indexed %d, removed %d, want 2 and 1", sum.Indexed, sum.Removed)
	}
	want := summary.NewTotals()
	view(t, root, func(tx *store.Tx) {
		if err := tx.Files(func(f store.File) error { want.Apply(f, 1); return nil }); err != nil {
			t.Fatal(err)
		}
	})
	if !reflect.DeepEqual(normalTotals(sum.Totals), normalTotals(want)) {
		t.Errorf("run's totals\n %+v\nthe records'\n %+v", sum.Totals, want)
	}
}
