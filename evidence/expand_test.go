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
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		src := fmt.Sprintf("package lib\n\n// F%d is step %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, "lib", fmt.Sprintf("f%03d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, e, "flow", "new", "folder", "--request", "Read the library.")
	return e, root
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
