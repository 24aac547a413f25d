package clip

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// writeFileAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over path, so a reader (or a crash) sees
// the old file or the new one, never half of one. It creates missing parent
// directories (0700), leaves the file 0600 and returns the path written, made
// absolute when possible so the user can find it from any directory.
func writeFileAtomic(path string, data []byte) (string, error) {
	if path == "" {
		return "", errors.New("no fallback file was given")
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("could not save to %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fail(err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	// The prompt may quote anything in the workspace: only its owner reads
	// it. CreateTemp already makes it 0600; say so for other systems.
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	committed = true
	syncDir(dir)
	return path, nil
}

// syncDir makes the rename durable where the system allows it; failing to
// is not worth an error, since the data itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
