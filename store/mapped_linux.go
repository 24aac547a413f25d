package store

import "golang.org/x/sys/unix"

// ReleaseMapped tells the kernel that this process no longer needs the
// pages of the index file it has mapped in (see readat.go): a scan of a
// whole bucket maps every page it reads, and they count in the process's
// resident memory until the file is closed. The pages stay in the page
// cache; a value read after the call, including one handed out before it,
// faults its page back in with the same bytes (the map is of the file,
// read-only and shared). The map cannot move during the call: t holds it.
func (t *Tx) ReleaseMapped() {
	if t.tx.Writable() || t.tx.Size() == 0 {
		return
	}
	// A raw call: the map's address comes from bbolt as a number, and
	// turning it back into a pointer is what vet rightly refuses.
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, t.tx.DB().Info().Data, uintptr(t.tx.Size()), unix.MADV_DONTNEED)
}
