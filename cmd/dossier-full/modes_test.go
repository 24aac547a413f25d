package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWrittenFilesArePrivate checks that what dossier creates is 0600 (files)
// and 0700 (directories) under the common umask 022, which would otherwise
// leave them readable by everyone.
func TestWrittenFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "--role", "system", "--text", "Answer in English.", r)
	must(t, "evidence", "add", "render/render.go", r)
	must(t, "evidence", "add", "--link", "parser/parse.go", r)
	must(t, "evidence", "toggle", "off", "110_parse_go", r)
	must(t, "evidence", "remove", "100_render_go", r)
	must(t, "assemble", "--copy", "--copy-method", "file", r)
	newOut := filepath.Join(root, "out", "new.md")
	must(t, "assemble", "--out", newOut, r)
	shared := filepath.Join(root, "shared.md")
	if err := os.WriteFile(shared, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o644)
	must(t, "assemble", "--out", shared, r)

	check := func(path string, want fs.FileMode) {
		t.Helper()
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
	dot := filepath.Join(root, ".dossier")
	check(dot, 0o700)
	check(filepath.Join(dot, "index.db"), 0o600)
	n := 0
	filepath.WalkDir(dot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0: // a .link part; symlinks have no mode of their own
		case d.IsDir():
			check(p, 0o700)
		default:
			check(p, 0o600)
		}
		n++
		return nil
	})
	dir := flowDir(t, root)
	for _, rel := range []string{"flow.json", "build/prompt.mdctx", "build/ctxplan.json", "build/clipboard.txt", "ctx/000_policy.system.md", "build/removed/100_render_go.evidence.md"} {
		check(filepath.Join(dir, filepath.FromSlash(rel)), 0o600)
	}
	check(filepath.Join(dir, "build", "removed"), 0o700)
	check(filepath.Join(root, "out"), 0o700)
	check(newOut, 0o600)
	// Replacing a file keeps the mode its owner gave it.
	check(shared, 0o644)
	if n < 10 {
		t.Errorf("walked only %d entries under .dossier", n)
	}
}
