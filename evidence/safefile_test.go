package evidence

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWithin(t *testing.T) {
	roots := []string{"/w/root", "/x"}
	for p, want := range map[string]bool{"/w/root": true, "/w/root/a/b": true, "/w/rootx/a": false, "/w": false, "/x/..y": true, "/etc/shadow": false} {
		if within(p, roots) != want {
			t.Errorf("within(%s) = %v", p, !want)
		}
	}
}

func TestReadRegularRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("x"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(fifo, link)
	roots := resolveRoots(dir)
	for path, state := range map[string]string{fifo: RefusedNotRegular, link: RefusedNotRegular, dir: RefusedNotRegular, "/dev/null": RefusedOutside} {
		var re *RefusedError
		if _, err := ReadRegular(path, roots); !errors.As(err, &re) || re.State != state {
			t.Errorf("%s: %v, want %s", path, err, state)
		}
	}
	if _, err := ReadRegular("/dev/null", nil); refusedState(err) != RefusedNotRegular {
		t.Errorf("/dev/null without roots: %v", err)
	}
	if raw, err := ReadRegular(ok, roots); err != nil || string(raw) != "x" {
		t.Errorf("regular file: %q %v", raw, err)
	}
}

// TestReadRegularSeesSymlinkedDirectories: a plain file reached through a
// symlinked directory is where the directory leads, by either path (the
// open handle's, or every symlink resolved).
func TestReadRegularSeesSymlinkedDirectories(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "shadow"), []byte("secret"), 0o600)
	os.WriteFile(filepath.Join(ws, "mine"), []byte("mine"), 0o600)
	if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	roots := resolveRoots(ws)
	through := filepath.Join(ws, "sub", "shadow")
	if raw, err := ReadRegular(through, roots); refusedState(err) != RefusedOutside || raw != nil {
		t.Errorf("a file behind a symlinked directory: %q, %v", raw, err)
	}
	if raw, err := readResolved(through, roots); refusedState(err) != RefusedOutside || raw != nil {
		t.Errorf("resolved: %q, %v", raw, err)
	}
	if raw, err := ReadRegular(filepath.Join(ws, "mine"), roots); err != nil || string(raw) != "mine" {
		t.Errorf("a plain file inside: %q, %v", raw, err)
	}
}

// TestTooLargeForARangeToo: a source over MaxSourceBytes is refused for a
// range as for the whole file, and the refusal says why a
// range does not help and what does (it said "select a range" to a range).
func TestTooLargeForARangeToo(t *testing.T) {
	e, root := newTestEngine(t)
	run(t, e, "flow", "new", "big")
	huge := filepath.Join(root, "huge.go")
	if err := os.WriteFile(huge, []byte("package huge\n\nfunc F() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxSourceBytes+1<<20); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	for _, sel := range []string{"huge.go::1,10", "huge.go::100c,200c", "huge.go"} {
		var w strings.Builder
		err := e.Exec(context.Background(), []string{"evidence", "add", sel}, &w)
		if err == nil || !strings.Contains(err.Error(), "huge.go is 9.0 MB, over the 8 MB limit of an evidence source, for a range or a symbol of it too") ||
			!strings.Contains(err.Error(), "sed -n '100,400p' huge.go") || strings.Contains(err.Error(), "select a range") {
			t.Errorf("add %s: %v", sel, err)
		}
	}
	if f, _ := e.Flow(); len(f.EvidenceParts()) != 0 {
		t.Errorf("parts were added: %v", f.EvidenceParts())
	}
}
