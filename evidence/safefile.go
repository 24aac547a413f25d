package evidence

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// States of a part, or a source, that dossier refuses to open. A refused
// part is shown with its state and a fix, and left out of every prompt;
// the rest of the flow works as before.
const (
	// RefusedOutside: the file resolves, after symlinks, outside the
	// workspace, the flow and [evidence] extra_roots.
	RefusedOutside = "outside"
	// RefusedNotRegular: a FIFO, device, socket or directory, which could
	// block a read forever or never end.
	RefusedNotRegular = "not a regular file"
	// RefusedTooLarge: larger than MaxSourceBytes.
	RefusedTooLarge = "too large"
)

// RefusedError says why a file was not opened.
type RefusedError struct {
	State string // RefusedOutside, RefusedNotRegular or RefusedTooLarge
	Path  string // as named (the part file, the link, the source)
	Real  string // where it resolves
	What  string // for RefusedNotRegular: "a FIFO", "a device", ...
	Size  int64  // for RefusedTooLarge
}

func (e *RefusedError) Error() string {
	switch e.State {
	case RefusedOutside:
		return fmt.Sprintf("%s resolves outside the workspace (%s): copy the file into the workspace or add its directory to [evidence] extra_roots in .dossier.toml", e.Path, e.Real)
	case RefusedNotRegular:
		return fmt.Sprintf("%s is not a regular file (%s, %s): evidence is read from regular files only; replace it with a file", e.Path, e.What, e.Real)
	}
	return tooLarge(e.Path, e.Size)
}

// refusedState is the state of a RefusedError in err's chain, or "".
func refusedState(err error) string {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.State
	}
	return ""
}

// ReadRegular reads the file at path, which may be a symlink, when it
// resolves to a regular file of at most MaxSourceBytes inside one of roots
// (resolved directories; nil skips that check). It never blocks on a FIFO
// and never reads a device: the file is opened non-blocking and checked
// again through the open handle, in case it was swapped after the stat.
// Refusals are *RefusedError. Every reader of workspace files (evidence,
// staleness, the workbench's previews) goes through it.
func ReadRegular(path string, roots []string) ([]byte, error) {
	// A regular file needs no walk through its directories: the open
	// handle tells where it is. Anything else (a symlink, a FIFO, a
	// device), or a system without /proc, is resolved first.
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() && st.Size() <= MaxSourceBytes {
		if raw, err, ok := readOpened(path, roots); ok {
			return raw, err
		}
	}
	return readResolved(path, roots)
}

// readOpened opens path (no symlink at its end), learns where the handle
// leads from /proc, and reads it when that is inside roots; ok is false
// when /proc cannot tell.
func readOpened(path string, roots []string) (raw []byte, err error, ok bool) {
	f, err := openNonBlocking(path, path)
	if err != nil {
		return nil, err, true
	}
	defer f.Close()
	if err := checkOpened(f, path, path); err != nil {
		return nil, err, true
	}
	real, err := handlePath(f)
	if err != nil {
		return nil, nil, false
	}
	if roots != nil && !within(real, roots) {
		return nil, &RefusedError{State: RefusedOutside, Path: path, Real: real}, true
	}
	raw, err = readCapped(f, path, real)
	return raw, err, true
}

// handlePath is the path of an open file as the kernel knows it.
func handlePath(f *os.File) (string, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", err
	}
	var real string
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		real, lerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	}); err != nil {
		return "", err
	}
	if lerr != nil || !filepath.IsAbs(real) {
		return "", errors.New("no /proc path")
	}
	return real, nil
}

// readResolved resolves every symlink of path before it opens it.
func readResolved(path string, roots []string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if roots != nil && !within(real, roots) {
		return nil, &RefusedError{State: RefusedOutside, Path: path, Real: real}
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, real, st); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path, real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkOpened(f, path, real); err != nil {
		return nil, err
	}
	return readCapped(f, path, real)
}

// openNonBlocking opens real, which must not be a symlink (O_NOFOLLOW: one
// there now is a swap), without blocking on a FIFO.
func openNonBlocking(path, real string) (*os.File, error) {
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENXIO) {
			return nil, &RefusedError{State: RefusedNotRegular, Path: path, Real: real, What: "changed while opened"}
		}
		return nil, err
	}
	return f, nil
}

// checkOpened checks the open handle: the file may have been swapped
// since it was looked at.
func checkOpened(f *os.File, path, real string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return checkRegular(path, real, st)
}

// readCapped reads at most MaxSourceBytes.
func readCapped(f *os.File, path, real string) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(f, MaxSourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxSourceBytes {
		return nil, &RefusedError{State: RefusedTooLarge, Path: path, Real: real, Size: int64(len(raw))}
	}
	return raw, nil
}

// checkRegular refuses anything but a regular file of an acceptable size.
func checkRegular(path, real string, st fs.FileInfo) error {
	m := st.Mode()
	if !m.IsRegular() {
		return &RefusedError{State: RefusedNotRegular, Path: path, Real: real, What: fileKind(m)}
	}
	if st.Size() > MaxSourceBytes {
		return &RefusedError{State: RefusedTooLarge, Path: path, Real: real, Size: st.Size()}
	}
	return nil
}

// fileKind names a file type for a message.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// within reports whether the resolved path real is one of roots or below
// one of them.
func within(real string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, real)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// resolveRoots resolves the symlinks of each directory, dropping empty
// names and those that do not exist, so within compares like with like.
// WorkspaceRoots is the workspace root resolved, as ReadRegular takes it.
func WorkspaceRoots(root string) []string { return resolveRoots(root) }

func resolveRoots(dirs ...string) []string {
	out := []string{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			out = append(out, real)
		}
	}
	return out
}
