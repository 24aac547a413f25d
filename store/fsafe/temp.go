package fsafe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Temp is the temporary file of an atomic write: it sits next to the file
// it replaces as .NAME.tmp-N, and its writer holds an exclusive flock on
// it from its creation until it is renamed into place or removed. A
// process that ends (killed, crashed) drops the lock with its descriptors,
// so Sweep can tell a temporary file left behind from one still being
// written, without guessing from its age.
type Temp struct {
	f *os.File
}

// CreateTemp creates and locks a temporary file for path, in path's
// directory, with the permission bits perm (set with chmod, past the
// umask).
func CreateTemp(path string, perm fs.FileMode) (*Temp, error) {
	for {
		f, err := os.CreateTemp(filepath.Dir(path), "."+tempBase(filepath.Base(path))+".tmp-*")
		if err != nil {
			return nil, err
		}
		if err := lock(f, 0); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		// Between the create and the lock a sweep may have taken the
		// file for a dead writer's and removed it: make another.
		if st, err := f.Stat(); err == nil && st.Sys().(*syscall.Stat_t).Nlink == 0 {
			f.Close()
			continue
		}
		if err := f.Chmod(perm.Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		return &Temp{f: f}, nil
	}
}

// tempBase is name cut short enough that .NAME.tmp-N fits the 255 bytes
// a file name may have, however long name is (up to that limit itself):
// the temporary name only has to be recognisable.
func tempBase(name string) string {
	const most = 255 - len("..tmp-") - 10 // os.CreateTemp's N: up to 10 digits
	for len(name) > most {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}

// WriteTemp is CreateTemp with data written and synced.
func WriteTemp(path string, data []byte, perm fs.FileMode) (*Temp, error) {
	return writeTemp(path, data, perm, true)
}

// WriteTempUnsynced is CreateTemp with data written but not synced: for
// many files made durable at once by SyncFiles, before anything that
// says they are there is written.
func WriteTempUnsynced(path string, data []byte, perm fs.FileMode) (*Temp, error) {
	return writeTemp(path, data, perm, false)
}

func writeTemp(path string, data []byte, perm fs.FileMode, sync bool) (*Temp, error) {
	t, err := CreateTemp(path, perm)
	if err != nil {
		return nil, err
	}
	if _, err = t.f.Write(data); err == nil && sync {
		err = t.f.Sync()
	}
	if err != nil {
		t.Discard()
		return nil, err
	}
	return t, nil
}

// Name is the temporary file's path.
func (t *Temp) Name() string { return t.f.Name() }

// Rename moves the file to path, replacing what is there, and lets it go.
// On an error the temporary file is removed.
func (t *Temp) Rename(path string) error {
	err := os.Rename(t.f.Name(), path)
	if err != nil {
		os.Remove(t.f.Name())
	}
	return errors.Join(err, t.f.Close())
}

// Link gives the file the name path only if nothing has it (fs.ErrExist
// otherwise), removes the temporary name and lets the file go.
func (t *Temp) Link(path string) error {
	err := os.Link(t.f.Name(), path)
	os.Remove(t.f.Name())
	t.f.Close()
	return err
}

// Discard removes the temporary file.
func (t *Temp) Discard() {
	os.Remove(t.f.Name())
	t.f.Close()
}

// leftName matches what a killed writer leaves: Temp's .NAME.tmp-N and a
// writability probe's .probe-N (the N of os.CreateTemp).
var leftName = regexp.MustCompile(`^(\..+\.tmp|\.probe)-[0-9]+$`)

// Sweep removes, from dir, the temporary files that killed writers left:
// a Temp no process holds locked (one a live writer holds is never
// touched), and probes, which live for a moment and mean nothing (a
// prober whose probe is swept meanwhile loses nothing). It returns the
// names it removed; a directory that cannot be read is not an error (a
// missing one has nothing to sweep, a read-only one fails the command
// that writes to it anyway).
func Sweep(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, en := range entries {
		if SweepFile(filepath.Join(dir, en.Name())) {
			removed = append(removed, en.Name())
		}
	}
	return removed
}

// SweepFile is Sweep for one path: it removes the file when its name is a
// temporary file's and no writer holds it, and reports whether it did.
func SweepFile(path string) bool {
	name := filepath.Base(path)
	if !leftName.MatchString(name) {
		return false
	}
	if strings.HasPrefix(name, ".probe-") {
		return os.Remove(path) == nil
	}
	return sweepTemp(path)
}

// sweepTemp removes the temporary file at path when no writer holds it.
func sweepTemp(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || lock(f, syscall.LOCK_NB) != nil {
		return false // not a file of ours, or a live writer's
	}
	// The writer may have renamed it into place and let it go between
	// the open and the lock: remove the name only while it is this file.
	if now, err := os.Lstat(path); err != nil || !os.SameFile(st, now) {
		return false
	}
	return os.Remove(path) == nil
}

// lock takes an exclusive flock on f (with how = LOCK_NB, without
// waiting).
func lock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if lerr = syscall.Flock(int(fd), syscall.LOCK_EX|how); !errors.Is(lerr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if lerr != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), lerr)
	}
	return nil
}
