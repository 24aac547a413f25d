package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/store/fsafe"
)

// Modes of what dossier writes: flows quote the workspace, so only their
// owner reads them, whatever the umask.
const (
	FileMode os.FileMode = 0o600
	DirMode  os.FileMode = 0o700
)

// WriteFileAtomic writes data to a temporary file next to path, syncs it
// and renames it over path, so a reader or a crash sees the old file or
// the new one, never half of either. The file is FileMode; missing
// directories are made DirMode.
func WriteFileAtomic(path string, data []byte) error {
	return replaceFile(path, data, FileMode, nil)
}

// replaceFile is WriteFileAtomic with the file's permission bits given
// (chmod, so the umask does not apply) and, when owner is not nil, its
// uid and gid where the process may set them (root only).
func replaceFile(path string, data []byte, perm os.FileMode, owner *syscall.Stat_t) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return writeErr(path, err)
	}
	t, err := fsafe.WriteTemp(path, data, perm)
	if err != nil {
		return writeErr(path, err)
	}
	if owner != nil {
		_ = os.Chown(t.Name(), int(owner.Uid), int(owner.Gid))
	}
	if err := t.Rename(path); err != nil {
		return writeErr(path, err)
	}
	return nil
}

// writeErr names the file and says what to do about the common causes.
func writeErr(path string, err error) error {
	switch {
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("cannot write %s: the directory is read-only; make it writable (chmod u+w) or use another flow (FLOW_DIR): %w", path, err)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("cannot write %s: the disk is full: %w", path, err)
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// Writable checks, before a command changes anything, that ctx/,
// ctx/evidence/ and build/ take new files, so a read-only flow fails whole
// instead of half-way. It first sweeps what killed commands left.
func (f *Flow) Writable() error {
	f.sweep()
	for _, d := range []string{ctxDir, evidenceDir, buildDir} {
		dir := filepath.Join(f.Dir, filepath.FromSlash(d))
		if err := os.MkdirAll(dir, DirMode); err != nil {
			return writeErr(dir, err)
		}
		if err := probeDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// sweep removes, from the flow's directories, the temporary files that
// commands killed mid-write left and no live writer holds (fsafe.Sweep).
// Once a process a flow: a killed command's leftovers are found by the
// next command (a process of its own), while the workbench and the MCP
// server, which run command after command, do not read six directories
// again at every keystroke or call (a toggle cost 0.5 ms more).
func (f *Flow) sweep() {
	if _, done := swept.LoadOrStore(f.Dir, true); done {
		return
	}
	for _, d := range []string{".", ctxDir, evidenceDir, buildDir, "build/removed", turnsDir} {
		fsafe.Sweep(filepath.Join(f.Dir, filepath.FromSlash(d)))
	}
}

// swept holds the flow directories this process has swept.
var swept sync.Map

// probeDir checks that dir takes new files, or, when it does not exist
// yet, that it can be made there, and leaves nothing behind: a probe file
// (or directory) is made and removed again.
func probeDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("cannot write %s: it is %s, not a directory: move it away", dir, fileKind(st.Mode()))
	case err == nil:
		t, err := os.CreateTemp(dir, ".probe-*")
		if err != nil {
			return writeErr(dir, err)
		}
		t.Close()
		return ignoreGone(os.Remove(t.Name()))
	case !errors.Is(err, fs.ErrNotExist):
		return writeErr(dir, err)
	}
	if to, err := os.Readlink(dir); err == nil {
		return fmt.Errorf("cannot write %s: it is a symlink to %s, which does not exist: make that directory, or remove the link", dir, to)
	}
	d, err := os.MkdirTemp(filepath.Dir(dir), ".probe-*")
	if err != nil {
		return writeErr(dir, err)
	}
	return ignoreGone(os.Remove(d))
}

// ignoreGone drops the error of removing a probe a concurrent sweep
// removed first.
func ignoreGone(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// rename moves a part file, refusing to replace an existing one.
func rename(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s already exists in the flow: remove or rename that file first", filepath.Base(to))
	}
	if err := os.Rename(from, to); err != nil {
		return writeErr(to, err)
	}
	return nil
}

// languageOf names a file's language, which is also its fence tag.
func languageOf(rel string, head []byte) string {
	l := lang.Detect(rel, head)
	if l == "" {
		return "text"
	}
	return l
}
