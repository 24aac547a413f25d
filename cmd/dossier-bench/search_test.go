package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDocQueriesFindEnough proves the query maker keeps looking when the
// files its first pass samples have no documented function: a tree where
// one file in four has them still gives the queries asked for, each once.
func TestDocQueriesFindEnough(t *testing.T) {
	root := t.TempDir()
	words := []string{"config", "socket", "buffer", "ledger", "invoice", "parcel", "header", "stream"}
	for i := range 60 {
		src := fmt.Sprintf("package p%d\n\nfunc helper%d() {}\n", i, i)
		if i%4 == 1 {
			for j := range 2 {
				w1, w2 := words[(i+j)%len(words)], words[(i/4+3*j+1)%len(words)]
				src += fmt.Sprintf("\n// F%d_%d reads the %s file %d and returns the %s it holds.\nfunc F%d_%d() {}\n", i, j, w1, i*10+j, w2, i, j)
			}
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	descs, names, err := docQueries(root, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(descs) != 20 || len(names) != 20 {
		t.Fatalf("%d queries, want 20: %q", len(descs), descs)
	}
	seen := map[string]bool{}
	for _, d := range descs {
		if seen[d] {
			t.Errorf("query %q twice", d)
		}
		seen[d] = true
	}
}
