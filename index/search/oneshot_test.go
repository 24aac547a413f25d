package search_test

import (
	"context"
	"reflect"
	"runtime/debug"
	"testing"

	"github.com/dossierhq/dossier/index/search"
)

// TestOneShotMatchesCachingEngine proves a one-shot Engine, which scans
// vector entries in place, answers every mode as an Engine that keeps
// copies does, and keeps no copy, nor its response (a cache of responses
// starts a goroutine and a timer a process that answers one never uses).
func TestOneShotMatchesCachingEngine(t *testing.T) {
	root := workspace(t)
	for _, q := range []search.Query{
		{Text: "total price of the cart"},
		{Text: "parse item", Mode: search.Vector},
		{Text: "TotalPrice", Mode: search.Symbol},
		{Text: "dial timeout", Mode: search.Text},
		{Text: "cart items", Types: []string{"method"}},
	} {
		cached := query(t, root, q)
		e := search.NewEngine()
		e.OneShot()
		got, err := e.SearchRoot(context.Background(), root, q)
		if err != nil {
			t.Fatalf("one-shot %+v: %v", q, err)
		}
		if search.VectorsCached(e) {
			t.Errorf("one-shot %q kept a copy of the vectors", q.Text)
		}
		if search.ResultsCached(e) {
			t.Errorf("one-shot %q kept its response for a next query", q.Text)
		}
		if !reflect.DeepEqual(got.Results, cached.Results) {
			t.Errorf("one-shot %q:\n got %+v\nwant %+v", q.Text, got.Results, cached.Results)
		}
	}
}

// TestOneShotDefersCollection proves a one-shot Engine raises the
// process's GOGC to oneShotGC, and never lowers one set higher or off.
func TestOneShotDefersCollection(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, c := range []struct{ before, want int }{{100, search.OneShotGC}, {1000, 1000}, {-1, -1}} {
		debug.SetGCPercent(c.before)
		search.NewEngine().OneShot()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC %d: one-shot left %d, want %d", c.before, got, c.want)
		}
	}
}
