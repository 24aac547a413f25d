package search_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// vectorQueries exercise the vector leg with and without filters.
var vectorQueries = []search.Query{
	{Text: "total price of the cart", MinScore: 0},
	{Text: "connections timeouts", Mode: search.Vector, MinScore: 0},
	{Text: "parse item price", Mode: search.Vector, MinScore: 0, Types: []string{"function"}},
	{Text: "cart items", MinScore: 0, PathPrefix: "shop/"},
	{Text: "round the price", Mode: search.Vector, MinScore: 0, PathPrefix: "tools/"},
}

func withDB(t *testing.T, root string, fn func(db *store.DB) error) {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := fn(db); err != nil {
		t.Fatal(err)
	}
}

func vectorScans(t *testing.T, root string, q search.Query) int {
	t.Helper()
	var n int
	withDB(t, root, func(db *store.DB) error {
		return db.View(func(tx *store.Tx) (err error) {
			n, err = search.VectorScans(tx, q)
			return err
		})
	})
	return n
}

// answers gives every query's answer from a one-shot Engine and from one
// that keeps copies, which must agree.
func answers(t *testing.T, root string) [][]search.Result {
	t.Helper()
	var out [][]search.Result
	for _, q := range vectorQueries {
		e := search.NewEngine()
		e.OneShot()
		one, err := e.SearchRoot(context.Background(), root, q)
		if err != nil {
			t.Fatalf("one-shot %q: %v", q.Text, err)
		}
		kept := query(t, root, q)
		sameResults(t, "one-shot vs kept copy, "+q.Text, one.Results, kept.Results)
		out = append(out, one.Results)
	}
	return out
}

func sameResults(t *testing.T, what string, a, b []search.Result) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d results against %d", what, len(a), len(b))
		return
	}
	for i := range a {
		if a[i].ID != b[i].ID || abs(a[i].Score-b[i].Score) > 1e-9 {
			t.Errorf("%s: result %d is %s %.6f against %s %.6f", what, i, a[i].ID, a[i].Score, b[i].ID, b[i].Score)
		}
	}
}

// TestVectorTable proves the vector leg of a clean index reads the
// snapshot's vector table and no file's record, that a changed file is
// read from its own record, and that the answers are those the per-file
// records give.
func TestVectorTable(t *testing.T) {
	root := workspace(t)
	for _, q := range vectorQueries {
		if n := vectorScans(t, root, q); n != 0 {
			t.Errorf("%q on a clean index read %d files' vector records, want 0", q.Text, n)
		}
	}
	fromTable := answers(t, root)

	// Every file dirty, with the same content: the answers come from the
	// per-file records alone.
	var files int
	withDB(t, root, func(db *store.DB) error {
		return db.Update(func(tx *store.Tx) error {
			for _, p := range tx.Paths() {
				f, _, _ := tx.File(p)
				chunks, _ := tx.FileChunks(p)
				blob, _ := tx.Blob(p)
				u := store.FileUpdate{File: f, Chunks: chunks, Blob: blob,
					Search: append([]byte(nil), tx.SearchRecord(p)...), Vectors: append([]byte(nil), tx.VectorRecord(p)...)}
				if err := tx.ReplaceFile(u); err != nil {
					return err
				}
				files++
			}
			return nil
		})
	})
	if n := vectorScans(t, root, vectorQueries[0]); n != files {
		t.Errorf("with every file dirty the scan read %d records, want %d", n, files)
	}
	for i, got := range answers(t, root) {
		// Hybrid scores differ between a snapshot and records in the text
		// leg, before the vector table as after; the vector leg must not.
		if vectorQueries[i].Mode == search.Vector {
			sameResults(t, "table vs records, "+vectorQueries[i].Text, fromTable[i], got)
		}
	}

	// One file changed: it alone is read from its record, and its old
	// entries in the table are not scored.
	withDB(t, root, func(db *store.DB) error { return search.Rebuild(context.Background(), db.View, db.Update) })
	write(t, root, "net/conn.go", "package net\n\n// resolveHostname looks a hostname up in the zone file.\nfunc resolveHostname(h string) string { return h }\n")
	reindex(t, root, "net/conn.go")
	if n := vectorScans(t, root, vectorQueries[0]); n != 1 {
		t.Errorf("with one file dirty the scan read %d records, want 1", n)
	}
	for _, r := range query(t, root, search.Query{Text: "dial timeout connection", Mode: search.Vector, MinScore: 0}).Results {
		if r.Symbol == "dialTimeout" {
			t.Errorf("the changed file's old vector still found: %+v", r)
		}
	}
	resp := query(t, root, search.Query{Text: "look up a hostname in the zone file", Mode: search.Vector})
	if r := first(t, resp); r.Symbol != "resolveHostname" {
		t.Errorf("first = %+v", r)
	}
}

// TestVectorTableLeavesOutOtherModels proves a file whose vectors come
// from another model when the snapshot is built is kept out of the table,
// read from its record and reported, not compared.
func TestVectorTableLeavesOutOtherModels(t *testing.T) {
	root := workspace(t)
	withDB(t, root, func(db *store.DB) error {
		err := db.Update(func(tx *store.Tx) error {
			p := "net/conn.go"
			f, _, _ := tx.File(p)
			chunks, _ := tx.FileChunks(p)
			blob, _ := tx.Blob(p)
			stored := make([][]byte, len(chunks))
			for i := range stored {
				stored[i] = make([]byte, vecindex.EntrySize(256)+256)
			}
			vrec, err := search.EncodeStoredVectors("another-model", 256, stored)
			if err != nil {
				return err
			}
			return tx.ReplaceFile(store.FileUpdate{File: f, Chunks: chunks, Blob: blob, Search: append([]byte(nil), tx.SearchRecord(p)...), Vectors: vrec})
		})
		if err != nil {
			return err
		}
		return search.Rebuild(context.Background(), db.View, db.Update)
	})
	q := search.Query{Text: "connections timeouts", Mode: search.Vector, MinScore: 0}
	if n := vectorScans(t, root, q); n != 1 {
		t.Errorf("the scan read %d records, want the one the table left out", n)
	}
	resp := query(t, root, q)
	noted := false
	for _, n := range resp.Debug.Notes {
		noted = noted || strings.Contains(n, "1 files have vectors from \"another-model\"")
	}
	if !noted {
		t.Errorf("no note about the file of another model: %v", resp.Debug.Notes)
	}
	for _, r := range resp.Results {
		if r.Path == "net/conn.go" {
			t.Errorf("a file of another model was compared: %+v", r)
		}
	}
}

// TestDamagedVectorTable proves a damaged scale, component or residual
// of the vector table that a query reads gives an error that wraps
// ErrDamaged and says what to do, never a panic or a wrong answer, from a
// one-shot Engine and from one that keeps a copy.
func TestDamagedVectorTable(t *testing.T) {
	for name, damage := range map[string]func(search.VecTables){
		"scale": func(t search.VecTables) { t.Scales()[1] ^= 0x40 },
		"component": func(t search.VecTables) {
			for j := range t.Dims() {
				t.Column(j)[0] ^= 0x40
			}
		},
		"residual": func(t search.VecTables) {
			for d := range t.Docs() {
				t.Row(d)[0] ^= 0x40
			}
		},
	} {
		root := workspace(t)
		withDB(t, root, func(db *store.DB) error { return search.RebuildDamaged(db.View, db.Update, damage) })
		for _, oneShot := range []bool{true, false} {
			e := search.NewEngine()
			if oneShot {
				e.OneShot()
			}
			_, err := e.SearchRoot(context.Background(), root, search.Query{Text: "total price of the cart", Mode: search.Vector, MinScore: 0})
			if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "dossier index") {
				t.Errorf("%s damaged (one-shot %v): %v", name, oneShot, err)
			}
		}
	}
}

// TestVectorRowOfAnotherDocument proves a row of residuals is checked
// against its document's number too: rows swapped intact between
// documents (each a valid row with its own checksum) are damage, not
// another document's residuals rescored.
func TestVectorRowOfAnotherDocument(t *testing.T) {
	root := workspace(t)
	withDB(t, root, func(db *store.DB) error {
		return search.RebuildDamaged(db.View, db.Update, func(t search.VecTables) {
			for d := 0; d+1 < t.Docs(); d += 2 {
				a, b := t.RowAndSum(d), t.RowAndSum(d+1)
				tmp := slices.Clone(a)
				copy(a, b)
				copy(b, tmp)
			}
		})
	})
	_, err := search.NewEngine().SearchRoot(context.Background(), root, search.Query{Text: "total price of the cart", Mode: search.Vector, MinScore: 0})
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "residuals of document") {
		t.Errorf("rows swapped: %v", err)
	}
}

// TestVectorTableKeptCopy proves an Engine that keeps its copy of the
// vector table between queries (the workbench, the MCP server, a --json
// stream) answers the next query from it as a fresh one does.
func TestVectorTableKeptCopy(t *testing.T) {
	root := workspace(t)
	e := search.NewEngine()
	for range 2 {
		for _, q := range vectorQueries {
			got, err := e.SearchRoot(context.Background(), root, q)
			if err != nil {
				t.Fatalf("%q: %v", q.Text, err)
			}
			sameResults(t, "kept copy vs fresh, "+q.Text, got.Results, query(t, root, q).Results)
		}
	}
}
