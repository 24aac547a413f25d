package clip

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dossierhq/dossier/store/fsafe"
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
	// The prompt may quote anything in the workspace: only its owner reads
	// it. The temporary file is locked while written (fsafe.Temp), so the
	// flow's sweep of build/ never takes it for one a killed copy left.
	tmp, err := fsafe.WriteTemp(path, data, 0o600)
	if err != nil {
		return fail(err)
	}
	if err := tmp.Rename(path); err != nil {
		return fail(err)
	}
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
