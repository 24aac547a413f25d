package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// TestIndexLink: a symbolic link at .dossier/index.db is followed only to
// an index dossier made (kept on another disk, say). A link to nothing or
// to any other file, which a repository can hold as easily as a user can
// make one, is refused by index and every reader with the link, its
// target and what to do (never "run `dossier index`", issue 30), and
// nothing is created or changed where it leads.
func TestIndexLink(t *testing.T) {
	root := workspace(t, 3)
	path := store.Path(root)
	if err := os.MkdirAll(store.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	precious := filepath.Join(elsewhere, "bashrc")
	if err := os.WriteFile(precious, []byte("export PATH=precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(elsewhere, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for what, target := range map[string]string{
		"which does not exist":          filepath.Join(elsewhere, "index.db"),
		"which does not exist ":         filepath.Join(elsewhere, "gone", "index.db"),
		"which is not a dossier index":  precious,
		"which is not a dossier index ": empty,
	} {
		os.Remove(path)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		want := "index " + path + " is a symbolic link to " + target + ", " + strings.TrimSpace(what) + ": "
		for _, args := range [][]string{{"index"}, {"stats"}, {"search", "F1_2"}, {"doctor"}} {
			out, errOut, code := runCLI(t, append(args, "--root", root)...)
			if code != exitError || !strings.Contains(errOut, want) || !strings.Contains(errOut, "remove the link") || strings.Contains(errOut, "run `dossier index` first") {
				t.Errorf("%s through a link to %s: exit %d\n%s%s", args[0], target, code, out, errOut)
			}
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link to %s was replaced: %v %v", target, fi, err)
		}
	}
	if data, _ := os.ReadFile(precious); string(data) != "export PATH=precious\n" {
		t.Errorf("the file a link led to was changed: %q", data)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file a link led to was written: %v %v", fi, err)
	}
	for _, p := range []string{filepath.Join(elsewhere, "index.db"), precious + ".damaged", empty + ".damaged"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}

	// An index moved elsewhere and linked, as the refusal says: used
	// there, the link kept.
	os.Remove(path)
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	moved := filepath.Join(elsewhere, "index.db")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, path); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "new.go", "package p\n\nfunc Brand() {}\n")
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index through the link: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if out, errOut, code := runCLI(t, "stats", "--root", root); code != 0 || !strings.Contains(out, "files   5") {
		t.Errorf("stats through the link: exit %d\n%s%s", code, out, errOut)
	}
}
