package discover

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// record walks root recording a tree, which it returns encoded and decoded
// again, as a run stores it and the next one reads it.
func record(t *testing.T, root string, opts Options) *Tree {
	t.Helper()
	opts.Tree = NewTree()
	if err := Walk(context.Background(), root, opts, NewSkips(false), func(Candidate) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !opts.Tree.Usable() {
		t.Fatalf("tree of %s not usable: %s", root, opts.Tree.broken)
	}
	got, err := DecodeTree(opts.Tree.Encode())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func changedRels(t *testing.T, tr *Tree, root string, opts Options) ([]string, error) {
	t.Helper()
	c, err := tr.Check(context.Background(), root, opts)
	var rels []string
	for _, x := range c {
		rels = append(rels, x.Rel)
	}
	return rels, err
}

// age sets the mtimes of root's directories well before now, so that a
// walk trusts them (see racyWindow).
func age(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTreeCheck proves the tree a walk records tells a later check which
// files changed, and that a change it cannot vouch for (a directory's
// entries, an ignore file, the options) makes the caller walk again.
func TestTreeCheck(t *testing.T) {
	files := map[string]string{
		"a.go": "package a\n", "sub/b.go": "package b\n", "sub/deep/c.go": "package c\n",
		"z.txt": "after sub in the listing\n", ".gitignore": "*.log\n", "x.log": "ignored\n", "big.txt": strings.Repeat("x", 40),
	}
	opts := Options{MaxFileSize: 30}
	setup := func(t *testing.T) (string, *Tree) {
		root := tree(t, files)
		age(t, root)
		return root, record(t, root, opts)
	}
	t.Run("unchanged", func(t *testing.T) {
		root, tr := setup(t)
		if got, err := changedRels(t, tr, root, opts); err != nil || len(got) != 0 {
			t.Fatalf("check of an unchanged tree: %v, %v", got, err)
		}
		if n := tr.Files(StateIndexed); n != 5 {
			t.Errorf("%d indexed files recorded, want 5 (a.go, sub/b.go, sub/deep/c.go, z.txt, .gitignore)", n)
		}
		if want := map[string]int{ReasonIgnored: 1, ReasonTooLarge: 1}; !reflect.DeepEqual(tr.SkipCounts(), want) {
			t.Errorf("skips %v, want %v", tr.SkipCounts(), want)
		}
	})
	t.Run("file changed", func(t *testing.T) {
		root, tr := setup(t)
		// z.txt comes after sub/ in its directory: a walk that filed it
		// under the last directory entered would lose it.
		for _, p := range []string{"sub/deep/c.go", "z.txt", "big.txt"} {
			f, err := os.OpenFile(filepath.Join(root, p), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("// more\n")
			f.Close()
		}
		got, err := changedRels(t, tr, root, opts)
		if want := []string{"big.txt", "z.txt", "sub/deep/c.go"}; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("changed %v, %v; want %v", got, err, want)
		}
	})
	for name, change := range map[string]func(t *testing.T, root string){
		"file added": func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "sub", "new.go"), []byte("x"), 0o644)
		},
		"file removed": func(t *testing.T, root string) { os.Remove(filepath.Join(root, "sub", "deep", "c.go")) },
		"ignore file": func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.go\n"), 0o644)
		},
		"new ignore file": func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "sub", IgnoreFile), []byte("b.go\n"), 0o644)
		},
		"exclude file": func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755)
			os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("z.txt\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root, tr := setup(t)
			change(t, root)
			if got, err := changedRels(t, tr, root, opts); !errors.Is(err, ErrTreeChanged) {
				t.Fatalf("check after %s: %v, %v; want ErrTreeChanged", name, got, err)
			}
		})
	}
	t.Run("options", func(t *testing.T) {
		root, tr := setup(t)
		if _, err := tr.Check(context.Background(), root, Options{MaxFileSize: 30, Exclude: []string{"z.txt"}}); !errors.Is(err, ErrTreeChanged) {
			t.Fatalf("check with another exclude: %v, want ErrTreeChanged", err)
		}
	})
}

// TestTreeRacyDirectory proves a directory whose mtime was too recent to
// trust when it was walked has its entries read again: a file added in the
// same clock tick leaves the mtime as the walk saw it.
func TestTreeRacyDirectory(t *testing.T) {
	root := tree(t, map[string]string{"sub/a.go": "package a\n"})
	sub := filepath.Join(root, "sub")
	recent := time.Now()
	os.Chtimes(sub, recent, recent)
	tr := record(t, root, Options{})
	if err := os.WriteFile(filepath.Join(sub, "b.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(sub, recent, recent) // the same tick
	if got, err := changedRels(t, tr, root, Options{}); !errors.Is(err, ErrTreeChanged) {
		t.Fatalf("a file added to a racily recorded directory: %v, %v; want ErrTreeChanged", got, err)
	}
}

// TestTreeSymlink proves a walk through a symlink records a tree that
// cannot stand for a walk: the link's target changes without a trace in
// its directory.
func TestTreeSymlink(t *testing.T) {
	root := tree(t, map[string]string{"real/a.go": "package a\n"})
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Tree: NewTree()}
	if err := Walk(context.Background(), root, opts, NewSkips(false), func(Candidate) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if opts.Tree.Usable() {
		t.Fatal("a tree walked through a symlink is usable")
	}
	if _, err := opts.Tree.Check(context.Background(), root, Options{}); !errors.Is(err, ErrTreeChanged) {
		t.Fatalf("check: %v, want ErrTreeChanged", err)
	}
}

// TestDecodeTreeDamaged proves a damaged or truncated tree is refused with
// an error, never a panic or a tree that differs from the one stored.
func TestDecodeTreeDamaged(t *testing.T) {
	root := tree(t, map[string]string{"a.go": "package a\n", "sub/b.go": "package b\n"})
	opts := Options{Tree: NewTree()}
	if err := Walk(context.Background(), root, opts, NewSkips(false), func(Candidate) error { return nil }); err != nil {
		t.Fatal(err)
	}
	b := opts.Tree.Encode()
	for i := range b {
		d := append([]byte(nil), b...)
		d[i] ^= 0x40
		if _, err := DecodeTree(d); err == nil {
			t.Fatalf("a tree with byte %d flipped decoded", i)
		}
	}
	for n := range len(b) {
		if _, err := DecodeTree(b[:n]); err == nil {
			t.Fatalf("a tree cut to %d bytes decoded", n)
		}
	}
}

func FuzzDecodeTree(f *testing.F) {
	f.Add([]byte(treeMagic))
	f.Add(NewTree().Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := DecodeTree(b)
		if err == nil {
			tr.Files(StateIndexed)
			tr.SkipCounts()
		}
	})
}

// TestTreeRacyDirectoryRenewed proves a racily recorded directory whose
// entries a check finds unchanged, and whose mtime is by then old enough,
// is trusted from then on (when the tree is written again).
func TestTreeRacyDirectoryRenewed(t *testing.T) {
	root := tree(t, map[string]string{"sub/a.go": "package a\n"})
	sub := filepath.Join(root, "sub")
	now := time.Now()
	os.Chtimes(sub, now, now)
	tr := record(t, root, Options{})
	if tr.dirs[1].rel != "sub" || tr.dirs[1].mtime != 0 {
		t.Fatalf("sub recorded as %+v, want its mtime untrusted (0)", tr.dirs[1])
	}
	old := now.Add(-time.Hour)
	os.Chtimes(sub, old, old)
	if got, err := changedRels(t, tr, root, Options{}); err != nil || len(got) != 0 {
		t.Fatalf("check: %v, %v", got, err)
	}
	again, err := DecodeTree(tr.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if again.dirs[1].mtime != old.UnixNano() {
		t.Errorf("sub's mtime after a check found its entries unchanged: %d, want %d", again.dirs[1].mtime, old.UnixNano())
	}
}
