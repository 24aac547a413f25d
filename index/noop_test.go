package index

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

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
