//go:build !linux

package store

// ReleaseMapped does nothing here: only Linux's madvise(MADV_DONTNEED)
// is known to drop a shared file map's pages without losing their bytes.
func (t *Tx) ReleaseMapped() {}
