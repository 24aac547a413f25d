package store

import (
	"fmt"
	"os"
	"unsafe"
)

// A value a transaction hands out is a slice of the index file's memory
// map: reading it maps its pages into the process, where they count in its
// resident memory until the file is closed. A query that reads tens of
// megabytes once (the search snapshot's vector table) or a few bytes from
// many places (the residuals of its candidates) reads them with pread
// instead (from the file the database holds open), into a buffer it reuses: the same bytes from the page cache,
// but the process holds one buffer of them at a time, not every page it
// ever touched (and the kernel's fault-around, which maps up to 64 KB
// around each page touched, never multiplies a small random read).

// file is the index file the transaction's database maps, for reading
// values by copy: the very file bbolt opened, not the file at its path,
// which a writer may have renamed away (SetAside) and replaced since.
func (t *Tx) file() (*os.File, error) {
	if t.f == nil {
		return nil, fmt.Errorf("read %s: the index file is not open", t.where())
	}
	return t.f, nil
}

// offset is where v, a value of t, lies in the index file; false when it
// is not in the file's memory map (a value a write transaction has not
// committed yet).
func (t *Tx) offset(v []byte) (int64, bool) {
	if len(v) == 0 || t.tx == nil || t.shared != nil || t.tx.Writable() {
		return 0, false
	}
	base := t.tx.DB().Info().Data
	p := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	if p < base || int64(p-base)+int64(len(v)) > t.tx.Size() {
		return 0, false
	}
	return int64(p - base), true
}

// readAt copies len(p) bytes of v from offset off on into p, from the file
// when v lies in it, else from memory.
func (t *Tx) readAt(v, p []byte, off int) error {
	if off < 0 || off+len(p) > len(v) {
		return fmt.Errorf("read %d bytes at %d of a %d-byte value", len(p), off, len(v))
	}
	at, ok := t.offset(v)
	if !ok {
		copy(p, v[off:])
		return nil
	}
	f, err := t.file()
	if err != nil {
		return err
	}
	if _, err := f.ReadAt(p, at+int64(off)); err != nil {
		return fmt.Errorf("read %s: %w", t.where(), err)
	}
	return nil
}

// Len is the length of the value without its checksum (0 if missing).
func (s SealedValue) Len() int {
	if s.remote != nil {
		return max(s.remote.size-sumSize, 0)
	}
	return max(len(s.v)-sumSize, 0)
}

// ReadAt copies len(p) bytes of the value from offset off on into p, by
// copy (see valueFile), unchecked: for a caller whose values carry
// checksums of their own parts.
func (s SealedValue) ReadAt(p []byte, off int) error {
	if off+len(p) > s.Len() {
		return damaged(s.db, "search snapshot value %q is %d bytes, too short to hold bytes %d-%d", s.key, s.Len(), off, off+len(p))
	}
	if s.remote != nil {
		return s.remote.readAt(p, off)
	}
	return s.t.readAt(s.v, p, off)
}

// Unchecked returns the value without its checksum (nil if missing), the
// checksum unchecked: for a caller whose values carry checksums of their
// own parts, each checked as it is read. Valid until the transaction ends.
func (s SealedValue) Unchecked() []byte {
	if s.remote != nil {
		s.v = s.remote.whole()
	}
	if len(s.v) < sumSize {
		return nil
	}
	return s.v[: len(s.v)-sumSize : len(s.v)-sumSize]
}

// Damaged is the error for damage its caller found inside the value (a
// checksum of its own parts), which problem describes.
func (s SealedValue) Damaged(problem string) error {
	return damaged(s.db, "search snapshot value %q: %s", s.key, problem)
}
