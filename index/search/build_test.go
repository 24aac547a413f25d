package search_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// TestBuildPassesMatchOneBuilder proves the rebuild's two passes at once
// (postings in one, tables and vectors in the other) build the snapshot a
// single builder fed every record builds, table by table and term by term.
func TestBuildPassesMatchOneBuilder(t *testing.T) {
	root := workspace(t)
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	diff, err := search.BuildDiff(db.View)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Error(diff)
	}
}

// TestRebuildPassesDisagree proves the two passes check they read the same
// records: passes that see different indexes (no writer lock held) fail
// the rebuild with an error that says so, rather than write a snapshot
// whose postings point at other documents.
func TestRebuildPassesDisagree(t *testing.T) {
	full := workspace(t)
	write(t, full, "extra/more.go", "package extra\n\n// More is one more file.\nfunc More() int { return 1 }\n")
	reindex(t, full)
	var dbs []*store.DB
	for _, root := range []string{workspace(t), full} {
		db, err := store.Open(store.Path(root), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	var calls atomic.Int32
	view := func(fn func(*store.Tx) error) error { return dbs[calls.Add(1)%2].View(fn) }
	err := search.Rebuild(view, dbs[0].Update)
	if err == nil || !strings.Contains(err.Error(), "changed during the rebuild") {
		t.Fatalf("passes over different records: %v", err)
	}
}
