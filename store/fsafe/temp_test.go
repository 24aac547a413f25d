package fsafe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// TestSweep: what killed writers left (an unlocked temporary file, a
// probe) is removed; a live writer's locked temporary file, other files
// and a FIFO with a temporary file's name are left alone.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	left := []string{".flow.json.tmp-123", ".100_a_go.evidence.md.tmp-4567", ".probe-89"}
	kept := []string{"flow.json", ".x.tmp-abc", "a.tmp-1", ".tmp-12", "notes.probe-1"}
	for _, name := range append(left, kept...) {
		touch(name)
	}
	if err := os.Mkdir(filepath.Join(dir, ".probe-90"), 0o700); err != nil {
		t.Fatal(err)
	}
	left = append(left, ".probe-90")
	if err := syscall.Mkfifo(filepath.Join(dir, ".p.tmp-77"), 0o600); err == nil {
		kept = append(kept, ".p.tmp-77")
	}
	live, err := WriteTemp(filepath.Join(dir, "flow.json"), []byte("new"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	kept = append(kept, filepath.Base(live.Name()))

	removed := Sweep(dir)
	slices.Sort(removed)
	slices.Sort(left)
	if !slices.Equal(removed, left) {
		t.Errorf("removed %q, want %q", removed, left)
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := live.Rename(filepath.Join(dir, "flow.json")); err != nil {
		t.Fatalf("the live writer's rename: %v", err)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "flow.json")); string(raw) != "new" {
		t.Errorf("flow.json is %q", raw)
	}
	// Once its writer is gone, a temporary file is swept.
	dead, err := CreateTemp(filepath.Join(dir, "flow.json"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	dead.f.Close() // as a killed process's descriptors are
	if removed := Sweep(dir); !slices.Equal(removed, []string{filepath.Base(dead.Name())}) {
		t.Errorf("after its writer ended: removed %q", removed)
	}
}

// TestTempOfALongName: a file whose name is near the 255-byte limit gets
// a temporary file too (its .NAME.tmp-N would not fit), which Sweep
// recognises once its writer is gone.
func TestTempOfALongName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("é", 120)+".go.md") // 246 bytes
	tmp, err := WriteTemp(path, []byte("x"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(tmp.Name()); len(base) > 255 || !utf8.ValidString(base) {
		t.Errorf("temporary name %q: %d bytes", base, len(base))
	}
	f, err := os.Open(tmp.Name()) // a second descriptor, so the name outlives the lock
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmp.f.Close() // the writer dies: its lock goes
	if got := Sweep(dir); len(got) != 1 {
		t.Errorf("Sweep = %q, want the dead writer's temporary file", got)
	}
}

func TestSyncFilesAfterUnsyncedWrites(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a.md", "b.md"} {
		p := filepath.Join(dir, name)
		tmp, err := WriteTempUnsynced(p, []byte(name), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := tmp.Rename(p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if err := SyncFiles(dir, paths); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if data, err := os.ReadFile(p); err != nil || string(data) != filepath.Base(p) {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
	if left := Sweep(dir); len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
	gone := filepath.Join(dir, "gone")
	if err := SyncFiles(gone, []string{filepath.Join(gone, "x")}); err == nil || !strings.Contains(err.Error(), gone) {
		t.Errorf("SyncFiles of a missing directory: %v, want an error naming it", err)
	}
}
