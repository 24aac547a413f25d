package evidence

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// outputPlan is what WriteOutput does with a path: replace a regular file
// (or make a new one) atomically, or write into what is there.
type outputPlan struct {
	// Target is the file written: the path with its symlinks followed.
	Target string
	// Into writes into Target as it is (a device, a FIFO, a terminal,
	// where a dangling link leads): never renamed over, chmodded or
	// removed. False replaces Target atomically.
	Into bool
	// Perm is a replaced file's permission bits (FileMode for a new one);
	// owner its uid and gid, when it has them.
	Perm  fs.FileMode
	owner *syscall.Stat_t
}

// planOutput decides how WriteOutput writes path.
func planOutput(path string) (outputPlan, error) {
	if kernelPath(path) {
		// /dev/stdout, /dev/fd/N, /proc/self/fd/N lead to whatever the
		// descriptor is, a regular file too (`>> log`): the shell writes
		// into it, and so does dossier.
		return outputPlan{Target: path, Into: true}, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Readlink(path); lerr == nil {
			// A link to nothing yet: the shell creates its target.
			return outputPlan{Target: path, Into: true, Perm: FileMode}, nil
		}
		return outputPlan{Target: path, Perm: FileMode}, nil
	}
	if err != nil {
		return outputPlan{}, writeErr(path, err)
	}
	st, err := os.Stat(target)
	if err != nil {
		return outputPlan{}, writeErr(path, err)
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return outputPlan{}, fmt.Errorf("%s is a directory: give the name of a file to write, such as %s", path, filepath.Join(path, "prompt.md"))
	case m.IsRegular():
		owner, _ := st.Sys().(*syscall.Stat_t)
		return outputPlan{Target: target, Perm: m.Perm(), owner: owner}, nil
	}
	return outputPlan{Target: target, Into: true}, nil
}

// WriteOutput writes data to path, a file the user named (assemble --out,
// the workbench's /export), as a shell's > would and never worse. A
// regular file, or the one a symlink leads to, is replaced atomically
// (the link stays a link), keeping its permission bits and, where the
// process may set it, its owner; a new file is FileMode, since the prompt
// quotes the workspace. Anything else (/dev/null, /dev/stdout, a FIFO, a
// terminal) is written into and left as it is: never renamed over,
// chmodded or removed. A FIFO's reader is waited for, as the shell waits,
// until ctx ends; a directory is an error.
func WriteOutput(ctx context.Context, path string, data []byte) error {
	p, err := planOutput(path)
	if err != nil {
		return err
	}
	if p.Into {
		return writeInto(ctx, p.Target, data)
	}
	// A file the shell could not write is refused as the shell refuses
	// it, though its directory would take a replacement.
	if err := unix.Access(p.Target, unix.W_OK); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot write %s: %w (make it writable, chmod u+w, or choose another file)", p.Target, err)
	}
	err = replaceFile(p.Target, data, p.Perm, p.owner)
	if err != nil && inPlace(err) {
		// The directory takes no new file (read-only, a file mounted on
		// its own): write into the file, as the shell does, not atomically.
		if ierr := writeInto(ctx, p.Target, data); ierr == nil {
			return nil
		}
	}
	return err
}

// inPlace reports whether a replacement failed where writing into the
// file may still work: the directory cannot take the temporary file, or
// the rename cannot cross to the file's mount.
func inPlace(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EBUSY)
}

// kernelPath reports whether path is one of the kernel's views of a
// descriptor (/dev/stdout, /dev/fd/1, /proc/self/fd/1) or lies under /dev
// or /proc at all: nothing there is replaced.
func kernelPath(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
}

// writeInto writes data into the file at path as it is, creating a
// regular one (FileMode) where nothing is.
func writeInto(ctx context.Context, path string, data []byte) error {
	f, err := openInto(ctx, path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Now()) }) // a reader that stops reading
	defer stop()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// openInto opens path for writing as a shell's > opens it (creating the
// file a dangling link leads to), without blocking where a context cannot
// reach: a FIFO without a reader is waited on in the background until one
// comes or ctx ends.
func openInto(ctx context.Context, path string) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	f, err := os.OpenFile(path, flags|syscall.O_NONBLOCK, FileMode)
	if !errors.Is(err, syscall.ENXIO) {
		return f, err
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, flags, FileMode)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
	}
	// Be the reader the open waits for, so that it returns, and close
	// both ends: the FIFO is left as it was.
	if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		if o := <-ch; o.f != nil {
			o.f.Close()
		}
		r.Close()
	}
	return nil, ctx.Err()
}
