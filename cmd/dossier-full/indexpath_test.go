package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// A symbolic link at .dossier/index.db to a file that does not exist:
// index follows it and creates the file when its directory exists, as a
// shell's redirection would; otherwise index and every reader refuse with
// the link, its target and what to do, never "run `dossier index`"
// (issue 30).
func TestIndexLinkToMissingFile(t *testing.T) {
	root := workspace(t, 3)
	path := store.Path(root)
	if err := os.MkdirAll(store.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "gone", "index.db")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	want := "index " + path + " is a symbolic link to " + target + ", whose directory " + filepath.Dir(target) +
		" does not exist: create that directory, or remove the link to keep the index in " + store.Dir(root)
	for _, args := range [][]string{{"index"}, {"stats"}, {"search", "F1_2"}, {"doctor"}} {
		out, errOut, code := runCLI(t, append(args, "--root", root)...)
		if code != exitError || !strings.Contains(errOut, want) || strings.Contains(errOut, "run `dossier index`") {
			t.Errorf("%s through a link to a missing directory: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index through a link to a missing file: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link's target was not created: %v", err)
	}
	if out, errOut, code := runCLI(t, "stats", "--root", root); code != 0 || !strings.Contains(out, "files   4") {
		t.Errorf("stats through the link: exit %d\n%s%s", code, out, errOut)
	}
}
