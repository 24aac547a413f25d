package search_test

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

const newlineName = "new\nline.go"

// TestNewlineInFileName proves a file whose name holds a newline is
// indexed and found in every mode, and leaves the rest searchable.
func TestNewlineInFileName(t *testing.T) {
	root := t.TempDir()
	for p, c := range files {
		write(t, root, p, c)
	}
	write(t, root, newlineName, "package main\n\n// frobnicateWidgets twists every widget once.\nfunc frobnicateWidgets() {}\n")
	reindex(t, root)
	for _, mode := range search.Modes {
		q := "frobnicateWidgets"
		resp := query(t, root, search.Query{Text: q, Mode: mode})
		if got := first(t, resp); got.Path != newlineName {
			t.Errorf("%s: first result %q, want %q", mode, got.Path, newlineName)
		}
	}
	if got := first(t, query(t, root, search.Query{Text: "total price", Mode: search.Text})); got.Path != "shop/cart.go" {
		t.Errorf("other files: first result %q", got.Path)
	}
}

// TestOldSnapshotLayout proves an index whose snapshot has an older layout
// still answers (from the per-file records), says so, and is healed by the
// next index run even though no file changed.
func TestOldSnapshotLayout(t *testing.T) {
	root := workspace(t)
	want := query(t, root, search.Query{Text: "total price cart", Mode: search.Text})
	update(t, root, search.WriteOldSnapshot)
	got := query(t, root, search.Query{Text: "total price cart", Mode: search.Text})
	if notes := strings.Join(got.Debug.Notes, "\n"); !strings.Contains(notes, "layout 3") || strings.Contains(notes, "no search snapshot") {
		t.Errorf("want one note, about the old layout: %q", got.Debug.Notes)
	}
	if len(got.Results) != len(want.Results) || got.Results[0].ID != want.Results[0].ID {
		t.Errorf("old layout: %+v, want %+v", got.Results, want.Results)
	}
	reindex(t, root)
	view(t, root, func(tx *store.Tx) {
		if !search.SnapshotCurrent(tx) {
			t.Errorf("the index run kept the old snapshot")
		}
	})
	if got := query(t, root, search.Query{Text: "total price cart", Mode: search.Text}); len(got.Debug.Notes) != 0 {
		t.Errorf("notes after the rebuild: %q", got.Debug.Notes)
	}
}

// TestOldSnapshotLayoutNoChange proves an index run that finds no file
// changed still rebuilds a snapshot of another layout: what a newer dossier
// finds in an index the older one left, its walk and summary current.
func TestOldSnapshotLayoutNoChange(t *testing.T) {
	root := workspace(t)
	update(t, root, func(tx *store.Tx) error {
		if err := search.WriteOldSnapshot(tx); err != nil {
			return err
		}
		// The run that wrote the tree and summary wrote this snapshot too:
		// both describe the generation this commit makes.
		tree, err := discover.DecodeTree(tx.WalkTree())
		if err != nil {
			return err
		}
		tree.Gen = tx.Generation() + 1
		var sum index.Summary
		if _, err := tx.Summary(&sum); err != nil {
			return err
		}
		sum.Generation = tree.Gen
		if err := tx.SetWalkTree(tree.Encode()); err != nil {
			return err
		}
		return tx.SetSummary(sum)
	})
	reindex(t, root)
	view(t, root, func(tx *store.Tx) {
		if !search.SnapshotCurrent(tx) {
			t.Errorf("the index run kept the snapshot of another layout")
		}
	})
}

func update(t *testing.T, root string, fn func(*store.Tx) error) {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func view(t *testing.T, root string, fn func(*store.Tx)) {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(func(tx *store.Tx) error { fn(tx); return nil }); err != nil {
		t.Fatal(err)
	}
}
