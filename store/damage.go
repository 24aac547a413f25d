package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dossierhq/dossier/store/fsafe"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// A damaged index must never take the process down: bbolt maps the file
// and trusts it, so a file shorter than its header says faults (SIGBUS)
// when a page past the end is touched, and a page with garbage in it makes
// bbolt panic. The cheap checks before bbolt sees the file (check.go) catch
// a shrunk or empty file and bad meta pages; everything that reads pages
// runs under guard, which turns a fault or a bbolt panic into a
// *DamageError; and the values that drive results carry a checksum
// (checksum.go).

// DamageError is the error of a damaged index: the file and what is wrong
// with it. It wraps ErrDamaged.
type DamageError struct {
	Path    string // the index file
	Problem string // what is wrong, e.g. "file is 4096 bytes, its header says 65536"
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("index %s is damaged (%s): run `dossier index` to rebuild it (the damaged file is kept as %s; `dossier doctor` lists every problem)",
		e.Path, e.Problem, filepath.Base(DamagedPath(e.Path)))
}

// Unwrap makes errors.Is(err, ErrDamaged) hold.
func (e *DamageError) Unwrap() error { return ErrDamaged }

func damaged(path, format string, args ...any) *DamageError {
	return &DamageError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

// DamagedPath is where a writer keeps a damaged index file before it
// rebuilds: index.db.damaged next to it.
func DamagedPath(path string) string { return path + ".damaged" }

// notePath holds the damage a reader found in values the writer may never
// read again (an unchanged file's text, say), so the next `dossier index`
// rebuilds instead of keeping the damage.
func notePath(path string) string { return path + ".damage-note" }

// damageNote is the content of notePath.
type damageNote struct {
	// Generation of the index the damage was found in (0: unknown); a note
	// about an earlier file at the same path is ignored.
	Generation uint64 `json:"generation,omitempty"`
	Problem    string `json:"problem"`
}

// SetAside renames a damaged index file to DamagedPath (replacing an older
// one) so a writer can rebuild from scratch; the caller holds the
// workspace's writer lock. It returns the new path. Where path is a
// symbolic link to an index (one on another disk, see checkLink), that
// file is set aside beside it and the link stays, so the rebuild is
// written where the user put the index; a link to anything else is what
// is set aside, and the file it leads to is left alone.
func SetAside(path string) (string, error) {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil && boltFile(t) {
		target = t
	}
	dst := DamagedPath(target)
	if err := os.Rename(target, dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("keep damaged index as %s: %w (move or delete %s by hand)", dst, err, target)
	}
	_ = os.Remove(notePath(path))
	_ = os.Remove(stampPath(path))
	return dst, nil
}

// noteDamage records err for the next writer when it is a damage error;
// best effort: a reader may have no right to write there.
func (db *DB) noteDamage(err error) {
	var de *DamageError
	if !errors.As(err, &de) {
		return
	}
	data, _ := json.Marshal(damageNote{Generation: db.gen, Problem: de.Problem})
	_ = os.WriteFile(notePath(db.path), data, 0o600)
}

// DamageNoted reports whether a reader noted damage in the index at path
// for the next writer (see checkNote): a caller that would only read the
// index, finding nothing to write, leaves the repair to a writer's open.
func DamageNoted(path string) bool {
	_, err := os.Lstat(notePath(path))
	return err == nil
}

// checkNote returns the damage a reader recorded in this file (a note of
// the same file: its generation is not older than the note's, by less
// than a reasonable count of commits), or nil.
func (db *DB) checkNote() error {
	data, err := fsafe.ReadFile(notePath(db.path), 1<<16)
	if err != nil {
		return nil
	}
	var n damageNote
	if json.Unmarshal(data, &n) != nil || n.Problem == "" {
		return damaged(db.path, "a reader found damage")
	}
	if n.Generation != 0 && (db.gen < n.Generation || db.gen-n.Generation > 1<<32) {
		_ = os.Remove(notePath(db.path)) // about an earlier file at this path
		return nil
	}
	return damaged(db.path, "found by an earlier reader: %s", n.Problem)
}

// A page no run reads can be damaged too: bbolt asserts a page only when
// it reads it, and a run reads little more than what it changes. dossier's
// own writes never damage a page (a commit is atomic; a crash leaves the
// last one whole), so such damage comes from outside: another program
// writing the file, a copy cut short, a sync client, the disk. A writer
// leaves the file's identity (size, modification time, inode) in
// index.db.stamp as it closes it, and the next writer to open a file that
// is not as it was left checks the structure of every page, with one
// pread per page and no value read, before it keeps what it does not
// rewrite (checkOutside). Damage that leaves the file as it was (a
// failing disk) is found by the first reader of the page or value, or by
// `dossier doctor`, which note it for the next writer.

// stampPath holds the identity of the index file as its last writer left it.
func stampPath(path string) string { return path + ".stamp" }

// stampOf is the identity of the file f: its size, modification time and
// inode.
func stampOf(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	return fmt.Sprintf("%d %d %d\n", st.Size(), st.ModTime().UnixNano(), ino)
}

// writeStamp records the file as this writer leaves it. Best effort: a
// stamp not written costs the next writer a check, nothing more.
func (db *DB) writeStamp() {
	if s := stampOf(db.file); s != "" {
		_ = os.WriteFile(stampPath(db.path), []byte(s), 0o600)
	}
}

// stamped reports whether f is the index file at path as its last writer
// left it.
func stamped(path string, f *os.File) bool {
	data, err := fsafe.ReadFile(stampPath(path), 256)
	return err == nil && string(data) == stampOf(f)
}

// checkOutside checks the structure of every page (see pageWalk) when the
// file is not as dossier's last writer left it.
func (db *DB) checkOutside() error {
	if stamped(db.path, db.file) {
		return nil
	}
	return guard(db.path, func() error {
		return db.bolt.View(func(tx *bolt.Tx) error {
			ps := int64(tx.DB().Info().PageSize)
			hwm := uint64(tx.Size() / ps)
			w := &pageWalk{path: db.path, f: db.file, pageSize: ps, hwm: hwm, seen: make([]uint64, hwm/64+1)}
			if err := w.tree("(root)", uint64(tx.Cursor().Bucket().Root())); err != nil {
				return err
			}
			for _, name := range allBuckets {
				if b := tx.Bucket(name); b != nil && b.Root() != 0 {
					if err := w.tree(string(name), uint64(b.Root())); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
}

// ChangedOutside reports whether the index file at path is not as
// dossier's last writer left it (see checkOutside): a caller that would
// only read the index, finding nothing to write, leaves it to a writer's
// open, which checks it.
func ChangedOutside(path string) bool {
	f, err := openRegular(path)
	if err != nil {
		return false // nothing to check: a writer's open reports it
	}
	defer f.Close()
	return !stamped(path, f)
}

// guard runs fn, turning a memory fault on the mapped file, a panic inside
// bbolt or a checksum failure (which accessors without an error result
// raise as a *DamageError panic) into an error wrapping ErrDamaged. Any
// other panic is a bug and goes on.
func guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if derr := damageOf(path, r); derr != nil {
				err = derr
				return
			}
			panic(r)
		}
	}()
	return fn()
}

// Guard runs fn, which reads values the transaction handed out on a
// goroutine of its own, and returns a fault on the mapped file as an error
// wrapping ErrDamaged instead of crashing: a panic on another goroutine
// cannot be recovered by the transaction's. Another panic (a bug) is
// returned as an error too, naming it an internal error.
func (t *Tx) Guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v; please report it", r)
		}
	}()
	return guard(t.where(), fn)
}

// damageOf classifies a recovered panic value: a *DamageError, a memory
// fault (from SetPanicOnFault: a runtime error with the faulting address)
// or a panic raised inside bbolt mean damage; anything else is nil.
func damageOf(path string, r any) *DamageError {
	switch v := r.(type) {
	case *DamageError:
		return v
	case interface {
		runtime.Error
		Addr() uintptr
	}:
		return damaged(path, "reading it faulted at address %#x: the file is shorter than its pages or unreadable", v.Addr())
	}
	if fn := panicSite(); strings.HasPrefix(fn, "go.etcd.io/bbolt") {
		return damaged(path, "bbolt: %v", r)
	}
	return nil
}

// panicSite names the function that panicked: the first frame below
// runtime.gopanic that is not the runtime's. It must be called from the
// deferred function that recovers, while the panicking frames are still on
// the stack.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			inPanic = true
		case inPanic && !strings.HasPrefix(f.Function, "runtime."):
			return f.Function
		}
		if !more {
			return ""
		}
	}
}
