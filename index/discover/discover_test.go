package discover

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// tree writes files (path -> content) under a new temp root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func walk(t *testing.T, root string, opts Options) ([]string, *Skips) {
	t.Helper()
	skips := NewSkips(true)
	var got []string
	if err := Walk(context.Background(), root, opts, skips, func(c Candidate) error {
		got = append(got, c.Rel)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got, skips
}

func TestIgnoreRules(t *testing.T) {
	root := tree(t, map[string]string{
		".gitignore":              "*.log\n# a comment\n\n/out.txt\n",
		".git/info/exclude":       "excluded.txt\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		".dossierignore":          "private/\n!keep.min.js\n",
		"main.go":                 "package main\n",
		"app.log":                 "x",
		"out.txt":                 "x",
		"excluded.txt":            "x",
		"private/secret.go":       "x",
		"node_modules/x/i.js":     "x",
		"sub/.gitignore":          "local.txt\n!important.log\n",
		"sub/local.txt":           "x",
		"sub/important.log":       "x",
		"sub/out.txt":             "anchored pattern only matches at the root",
		"sub/deep/local.txt":      "nested ignore applies below its directory",
		"other/local.txt":         "but not beside it",
		"build/gen.go":            "root build output",
		"go/build/build.go":       "a package named build is source",
		"keep.min.js":             "re-included",
		"lib.min.js":              "x",
		".dossier/index.db":       "x",
		"big.txt":                 strings.Repeat("x", 100),
		"docs/README.md":          "# hi\n",
		"sub/deep/.dossierignore": "*.tmp\n",
		"sub/deep/a.tmp":          "x",
	})
	got, skips := walk(t, root, Options{MaxFileSize: 50})
	want := []string{".dossierignore", ".gitignore", "docs/README.md", "go/build/build.go", "keep.min.js", "main.go",
		"other/local.txt", "sub/.gitignore", "sub/deep/.dossierignore", "sub/important.log", "sub/out.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates:\n got %v\nwant %v", got, want)
	}
	wantSkips := map[string]int{ReasonIgnored: 7, ReasonDefault: 5, ReasonTooLarge: 1}
	if c := skips.Counts(); !reflect.DeepEqual(c, wantSkips) {
		t.Errorf("skip counts = %v, want %v\n%v", c, wantSkips, skips.List())
	}
	// Check agrees with Walk on every path of the tree.
	seen := map[string]bool{}
	for _, g := range got {
		seen[g] = true
	}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, ".git/") {
			return nil
		}
		_, reason, err := Check(root, rel, Options{MaxFileSize: 50})
		if err != nil {
			t.Fatal(err)
		}
		if (reason == "") != seen[rel] {
			t.Errorf("Check(%s) reason %q disagrees with the walk (walked: %v)", rel, reason, seen[rel])
		}
		return nil
	})
}

func TestExcludeOption(t *testing.T) {
	root := tree(t, map[string]string{"a.go": "x", "gen/b.go": "x", "c_gen.go": "x"})
	got, _ := walk(t, root, Options{Exclude: []string{"gen/", "*_gen.go"}})
	if !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Errorf("got %v", got)
	}
}

func TestSymlinks(t *testing.T) {
	outside := tree(t, map[string]string{"secret.go": "package secret\n"})
	root := tree(t, map[string]string{"a.go": "package a\n", "dir/b.go": "package b\n"})
	links := map[string]string{
		"out.go":      filepath.Join(outside, "secret.go"), // file outside the root
		"outdir":      outside,                             // directory outside the root
		"alias.go":    filepath.Join(root, "a.go"),         // file inside: indexed under its own name
		"dir/loop":    filepath.Join(root, "dir"),          // directory loop
		"broken.go":   filepath.Join(root, "missing.go"),
		"self":        "self", // a link to itself
		"dir/up":      "..",   // loop through a relative link
		"inside/link": filepath.Join(root, "dir"),
	}
	os.MkdirAll(filepath.Join(root, "inside"), 0o755)
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	got, skips := walk(t, root, Options{})
	sort.Strings(got)
	want := []string{"a.go", "alias.go", "dir/b.go"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates = %v, want %v", got, want)
	}
	c := skips.Counts()
	if c[ReasonOutsideRoot] != 2 || c[ReasonBrokenLink] != 1 || c[ReasonLoop] < 3 {
		t.Errorf("skips = %v\n%v", c, skips.List())
	}
}

// TestSymlinksIntoGit: a link into git's own files (its config may hold a
// token) is skipped by the walk and by Check, as the files themselves are;
// a name that only looks like git's is not.
func TestSymlinksIntoGit(t *testing.T) {
	// wt/.git is a worktree's (or a submodule's) pointer file: git's too.
	root := tree(t, map[string]string{"a.go": "package a\n", ".git/config": "[remote]\n", "sub/.git/HEAD": "ref\n", ".github/ci.yml": "on: push\n",
		"wt/.git": "gitdir: /elsewhere/.git/worktrees/wt\n", "wt/b.go": "package b\n"})
	for name, target := range map[string]string{"cfg.txt": ".git/config", "hooks": ".git", "head.txt": "sub/.git/HEAD", "ci.yml": ".github/ci.yml"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	got, skips := walk(t, root, Options{})
	sort.Strings(got)
	if want := []string{".github/ci.yml", "a.go", "ci.yml", "wt/b.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("candidates = %v, want %v\n%v", got, want, skips.List())
	}
	for _, rel := range []string{"cfg.txt", "hooks/config", "head.txt", "wt/.git"} {
		if _, reason, err := Check(root, rel, Options{}); err != nil || reason != ReasonDefault {
			t.Errorf("Check %s: reason %q err %v", rel, reason, err)
		}
	}
	if _, reason, err := Check(root, "ci.yml", Options{}); err != nil || reason != "" {
		t.Errorf("Check ci.yml: reason %q err %v", reason, err)
	}
}

func TestUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := tree(t, map[string]string{"a.go": "x", "locked/b.go": "x"})
	os.Chmod(filepath.Join(root, "locked"), 0)
	defer os.Chmod(filepath.Join(root, "locked"), 0o755)
	got, skips := walk(t, root, Options{})
	if !reflect.DeepEqual(got, []string{"a.go"}) || skips.Counts()[ReasonUnreadable] != 1 {
		t.Errorf("got %v, skips %v", got, skips.Counts())
	}
}

func TestBadRoot(t *testing.T) {
	for name, root := range map[string]string{
		"does not exist":     filepath.Join(t.TempDir(), "nope"),
		"is not a directory": tree(t, map[string]string{"f": "x"}) + "/f",
	} {
		err := Walk(context.Background(), root, Options{}, NewSkips(false), func(Candidate) error { return nil })
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "--root") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestCheckOutsideRoot(t *testing.T) {
	root := tree(t, map[string]string{"a.go": "x"})
	if _, _, err := Check(root, "../etc/passwd", Options{}); err == nil {
		t.Error("Check accepted a path outside the root")
	}
	if _, reason, err := Check(root, "gone.go", Options{}); err != nil || reason != ReasonVanished {
		t.Errorf("missing file: reason %q err %v", reason, err)
	}
	if _, _, err := Check(root, ".", Options{}); err == nil {
		t.Error("Check accepted the root itself")
	}
}

func TestWalkStopsOnCancel(t *testing.T) {
	root := tree(t, map[string]string{"a/1.go": "x", "b/2.go": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, root, Options{}, NewSkips(false), func(Candidate) error { return nil }); err == nil {
		t.Error("walk ignored a cancelled context")
	}
}
