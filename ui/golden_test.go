package ui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites golden files instead of comparing with them:
// go test ./ui/ -update (or make test-update).
var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/<t.Name()>/<name>.golden, or writes that
// file when -update is set. Views under test must use a fixed size, colour
// profile and background so the files are stable.
func golden(t *testing.T, name string, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name()), name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run go test -update to create it)", err)
		return
	}
	if got == string(want) {
		return
	}
	// Report the first differing line quoted, so escape sequences are
	// visible instead of being interpreted by the terminal.
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s: line %d differs (run go test -update if the change is intended)\n got: %q\nwant: %q", path, i+1, gl, wl)
			return
		}
	}
	t.Errorf("%s: content differs", path)
}
