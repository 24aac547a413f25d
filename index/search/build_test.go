package search_test

import (
	"testing"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// TestBuildPassesMatchOneBuilder proves the rebuild's two passes at once
// (postings in one, tables and vectors in the other) build the snapshot a
// single builder fed every record builds, table by table and term by term.
func TestBuildPassesMatchOneBuilder(t *testing.T) {
	root := workspace(t)
	search.SmallRecordBlocks(t) // every block let go as soon as both passes are past it
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
