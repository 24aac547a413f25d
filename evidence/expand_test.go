package evidence

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folderEngine is an engine on a flow and a folder lib/ of n Go files.
func folderEngine(t *testing.T, n int) (*Engine, string) {
	t.Helper()
	e, root := newTestEngine(t)
	writeLib(t, root, n)
	run(t, e, "flow", "new", "folder", "--request", "Read the library.")
	return e, root
}

// writeLib writes lib/f001.go ... under root.
func writeLib(tb testing.TB, root string, n int) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		src := fmt.Sprintf("package lib\n\n// F%d is step %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, "lib", fmt.Sprintf("f%03d.go", i)), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// On a terminal (Interactive), a folder of more than a handful of files
// is asked for on Stdin: "n" adds nothing, "y" adds them all.
func TestAddFolderAsksOnTerminal(t *testing.T) {
	e, _ := folderEngine(t, 6)
	e.Interactive = true
	e.Stdin = strings.NewReader("n\n")
	out := run(t, e, "evidence", "add", "lib/")
	if !strings.Contains(out, "Add these 6 files? [y/N]") || !strings.Contains(out, "nothing added") {
		t.Errorf("answer n:\n%s", out)
	}
	if f, _ := e.Flow(); len(f.Parts) != 1 {
		t.Fatalf("answer n added parts: %d parts", len(f.Parts))
	}
	e.Stdin = strings.NewReader("y\n")
	out = run(t, e, "evidence", "add", "lib/")
	if n := strings.Count(out, "✓ Added evidence"); n != 6 {
		t.Errorf("answer y added %d parts:\n%s", n, out)
	}
}

// A folder with more files than its band has free ranks is refused
// before anything is written, not cut off half way.
func TestAddFolderBandFullAddsNothing(t *testing.T) {
	e, _ := folderEngine(t, 101)
	var w bytes.Buffer
	err := e.Exec(context.Background(), []string{"evidence", "add", "--yes", "lib/"}, &w)
	if err == nil || !strings.Contains(err.Error(), "101 files to add") || !strings.Contains(err.Error(), "nothing added") {
		t.Fatalf("err %v\n%s", err, w.String())
	}
	e.Reload()
	if f, _ := e.Flow(); len(f.Parts) != 1 {
		t.Errorf("a refused folder left %d parts", len(f.Parts))
	}
}

// A folder that holds only credential files adds nothing and says which
// files it skipped and why, rather than "no file".
func TestAddFolderOfSecretsListsThem(t *testing.T) {
	e, root := folderEngine(t, 0)
	if err := os.MkdirAll(filepath.Join(root, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "keys", ".env"), "TOKEN=x\n", 0o644)
	mustWrite(t, filepath.Join(root, "keys", "id_rsa"), "not a key\n", 0o644)
	var w bytes.Buffer
	err := e.Exec(context.Background(), []string{"evidence", "add", "keys/"}, &w)
	if err == nil || !strings.Contains(err.Error(), "skipped keys/.env: secret_file") || !strings.Contains(err.Error(), "skipped keys/id_rsa: secret_file") {
		t.Errorf("err %v", err)
	}
}

// FuzzExpandSelectors: any words expand without a panic, and every file
// a folder or glob gives lies inside the workspace and is one the walk
// found (never under .git, never an excluded one).
func FuzzExpandSelectors(f *testing.F) {
	for _, seed := range [][2]string{{"lib/", "!**/f001.go"}, {"lib/**/*.go", "!lib/"}, {"{lib,x}/*", "![a-"}, {"./lib/#t,u", "!*.go"}, {"../*", "!"}, {"lib/[", "lib/f001.go"}} {
		f.Add(seed[0], seed[1])
	}
	root := f.TempDir()
	writeLib(f, root, 3)
	e := NewEngine(root)
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" {
			return
		}
		x, err := e.expandSelectors(context.Background(), []string{a, b})
		if err != nil {
			return
		}
		for s, from := range x.from {
			sel, perr := ParseSelector(s)
			if perr != nil {
				t.Fatalf("%q (from %q) does not parse: %v", s, from, perr)
			}
			if _, statErr := os.Stat(filepath.Join(root, filepath.FromSlash(sel.Path))); statErr != nil || !strings.HasPrefix(sel.Path, "lib/") {
				t.Fatalf("%q gave %q, not a file of the workspace", from, sel.Path)
			}
		}
	})
}

// A glob of many {a,b} groups, whose combinations double with each, is
// refused at once rather than matched for minutes.
func TestAddGlobBraceBomb(t *testing.T) {
	e, _ := folderEngine(t, 1)
	bomb := strings.Repeat("{,}", 30) + "x"
	for _, args := range [][]string{{"lib/" + bomb}, {"lib/", "!" + bomb}} {
		var w bytes.Buffer
		err := e.Exec(context.Background(), append([]string{"evidence", "add"}, args...), &w)
		if err == nil || !strings.Contains(err.Error(), "more than 256 patterns") {
			t.Errorf("%v: err %v", args, err)
		}
	}
}
