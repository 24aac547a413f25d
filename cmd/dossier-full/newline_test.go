package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewlineFileName proves a file named with a newline neither breaks
// search nor splits a result line: text output shows the name escaped,
// JSON keeps it exact.
func TestNewlineFileName(t *testing.T) {
	root := workspace(t, 3)
	name := "new\nline.go"
	if err := os.WriteFile(filepath.Join(root, name), []byte("package p\n\n// Frobnicate twists a widget.\nfunc Frobnicate() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	for _, mode := range []string{"hybrid", "text", "symbol", "vector", "regex"} {
		out, stderr, code := runCLI(t, "search", "--root", root, "--mode", mode, "Frobnicate")
		if code != exitOK {
			t.Fatalf("search --mode %s: %d %s", mode, code, stderr)
		}
		first, _, _ := strings.Cut(out, "\n")
		if !strings.Contains(first, `new\nline.go:`) {
			t.Errorf("search --mode %s: first line %q, want the escaped name", mode, first)
		}
	}
	out, stderr, code := runCLI(t, "search", "--root", root, "--json", "Frobnicate")
	if code != exitOK || !strings.Contains(out, `"path":"new\nline.go"`) {
		t.Errorf("search --json: %d %s\n%s", code, stderr, out)
	}
}
