package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestPickTouchFileAnyLanguage proves the one-file run works on a tree of
// another language: it changes a source file the index reads, with a line
// that is a comment in that file's language, and says what it looked for
// when the tree has none.
func TestPickTouchFileAnyLanguage(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		".venv/lib/site.py":    "x = 1\n",
		"node_modules/a/i.js":  "var a\n",
		"README.md":            "# app\n",
		"app/models/ticket.py": "class Ticket:\n    pass\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path, leader, err := pickTouchFile(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "app", "models", "ticket.py"); path != want || leader != "#" {
		t.Errorf("pickTouchFile = %s %q, want %s \"#\"", path, leader, want)
	}
	if descs, _, err := docQueries(root, 20); err != nil || len(descs) != 0 {
		t.Errorf("docQueries on a Python tree = %q, %v; want none", descs, err)
	}
	if _, err := searchPhase(t.Context(), "/nonexistent/dossier", root, 20); !errors.Is(err, errNoQueries) {
		t.Errorf("searchPhase on a Python tree: %v, want errNoQueries (the phase skipped, not run)", err)
	}

	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pickTouchFile(empty); err == nil || !strings.Contains(err.Error(), ".py") {
		t.Errorf("pickTouchFile on a tree without source: %v, want an error naming what it looked for", err)
	}
}
