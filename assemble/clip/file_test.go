package clip

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flow", "build", "clipboard.txt")
	got, err := writeFileAtomic(path, payloadSample)
	if err != nil {
		t.Fatal(err)
	}
	if got != path {
		t.Errorf("path = %q, want %q", got, path)
	}
	if b := readFile(t, path); !bytes.Equal(b, payloadSample) {
		t.Errorf("file holds %q", b)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
		}
		for _, d := range []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))} {
			di, err := os.Stat(d)
			if err != nil {
				t.Fatal(err)
			}
			if di.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %v, want 0700", d, di.Mode().Perm())
			}
		}
	}

	// A second, shorter write replaces the file whole and leaves no
	// temporary files behind.
	if _, err := writeFileAtomic(path, []byte("short")); err != nil {
		t.Fatal(err)
	}
	if b := readFile(t, path); string(b) != "short" {
		t.Errorf("after rewrite the file holds %q", b)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %q, want only clipboard.txt", names)
	}
}

func TestWriteFileRelativePathBecomesAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	got, err := writeFileAtomic(filepath.Join("build", "clipboard.txt"), []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(got) || filepath.Base(got) != "clipboard.txt" {
		t.Errorf("path = %q, want an absolute path", got)
	}
}

// TestUnwritableFile: the parent "directory" is a regular file, which
// fails for root too (unlike permission bits).
func TestUnwritableFile(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "clipboard.txt")
	rep, err := Copy(context.Background(), payloadSample, Options{Method: "file", File: path})
	if err == nil {
		t.Fatalf("Copy wrote under a regular file: %+v", rep)
	}
	for _, want := range []string{"could not save to " + path, "not a directory", "--out FILE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if rep.Method != "" || rep.Path != "" {
		t.Errorf("report claims a destination: %+v", rep)
	}
}

func TestFileFallbackAfterEverythingElse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "clipboard.txt")
	rep, err := Copy(context.Background(), payloadSample, Options{File: path, Getenv: envOf("DISPLAY=:0"), LookPath: lookIn(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodFile || rep.Path != path || len(rep.Warnings) != 0 {
		t.Errorf("report = %+v", rep)
	}
	if b := readFile(t, path); !bytes.Equal(b, payloadSample) {
		t.Errorf("file holds %q", b)
	}
}
