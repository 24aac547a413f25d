package index

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// The watcher's per-path updates meet a damaged index too: they fall back
// to a full run, which keeps the damaged file and rebuilds.
func TestUpdateRebuildsDamagedIndex(t *testing.T) {
	root := fixture(t)
	run(t, root)
	path := store.Path(root)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var notices []string
	ix, err := Open(Options{Root: root, Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	write(t, root, "cart/more.go", "package cart\n\nfunc More() {}\n")
	sum, err := ix.Update(context.Background(), []string{"cart/more.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.RebuiltDamaged || sum.DamagedFile != store.DamagedPath(path) || sum.Files != 12 {
		t.Errorf("summary: rebuilt_damaged %v, damaged_file %q, files %d", sum.RebuiltDamaged, sum.DamagedFile, sum.Files)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "index.db is damaged (the file is empty): kept as index.db.damaged, rebuilding from scratch") {
		t.Errorf("notices: %q", notices)
	}
	checkDB(t, root)
	if rep, err := Doctor(root); err != nil || len(rep.Problems) > 0 || rep.Incomplete != "" {
		t.Errorf("doctor after the rebuild: %+v %v", rep, err)
	}
}
