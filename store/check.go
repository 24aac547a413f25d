package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/gofrs/flock"
)

// bbolt's on-disk layout (go.etcd.io/bbolt/internal/common: page.go,
// meta.go, types.go), read here before bbolt maps the file, so a file it
// would fault or panic on is refused with an error instead. Every page
// starts with a 16-byte header (id uint64, flags uint16, count uint16,
// overflow uint32); pages 0 and 1 are meta pages whose body is
// magic, version, page size, flags (uint32 each), the root bucket (root
// pgid, sequence: uint64 each), the freelist pgid, the high-water mark
// pgid, the txid and an FNV-64a checksum of the fields before it, all in
// the machine's byte order.
const (
	boltPageHeader = 16
	boltMetaSize   = 64
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	boltMetaFlag   = 0x04
	// boltNoFreelist is the freelist pgid of a file that does not keep one.
	boltNoFreelist = 0xffffffffffffffff
)

// boltMeta is the part of a meta page the checks read.
type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64 // high-water mark: pages 0..pgid-1 exist
	txid     uint64
}

// readMeta reads and validates the meta page at off; problem says what is
// wrong when it is invalid.
func readMeta(r io.ReaderAt, off int64) (m boltMeta, problem string) {
	var buf [boltPageHeader + boltMetaSize]byte
	if _, err := r.ReadAt(buf[:], off); err != nil {
		return m, fmt.Sprintf("cannot read it: %v", err)
	}
	ne := binary.NativeEndian
	if flags := ne.Uint16(buf[8:]); flags&boltMetaFlag == 0 {
		return m, fmt.Sprintf("page flags %#x are not a meta page's", flags)
	}
	body := buf[boltPageHeader:]
	switch {
	case ne.Uint32(body[0:]) != boltMagic:
		return m, "bad magic number (not a bbolt file)"
	case ne.Uint32(body[4:]) != boltVersion:
		return m, fmt.Sprintf("format version %d, not %d", ne.Uint32(body[4:]), boltVersion)
	}
	h := fnv.New64a()
	h.Write(body[:56])
	if h.Sum64() != ne.Uint64(body[56:]) {
		return m, "checksum mismatch"
	}
	m = boltMeta{pageSize: ne.Uint32(body[8:]), root: ne.Uint64(body[16:]), freelist: ne.Uint64(body[32:]),
		pgid: ne.Uint64(body[40:]), txid: ne.Uint64(body[48:])}
	switch {
	case m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0:
		return m, fmt.Sprintf("page size %d is not a power of two between 512 and 1 MiB", m.pageSize)
	case m.root >= m.pgid:
		return m, fmt.Sprintf("root page %d is past the high-water mark %d", m.root, m.pgid)
	case m.freelist >= m.pgid && m.freelist != boltNoFreelist:
		return m, fmt.Sprintf("freelist page %d is past the high-water mark %d", m.freelist, m.pgid)
	}
	return m, ""
}

// checkFile validates an existing index file before bbolt opens it: both
// meta pages must be valid and the file at least as long as the pages the
// current one counts. It reads under the file's lock (shared for a reader,
// exclusive for a writer, as bbolt takes it), so a writer's commit in
// another process is never seen half done. A missing file is no problem
// here (a writer creates it); a file shorter than two pages is damaged.
// It tries the lock once: errLocked means another process holds the file,
// and the caller waits (see waiter).
func checkFile(path string, readOnly bool) error {
	// A FIFO or a device put at the index's path is damage: never opened
	// in a way that waits on it, never mapped.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return damaged(path, "it is not a regular file (%s)", st.Mode().Type())
	}
	lock := flock.New(path, flock.SetFlag(os.O_RDONLY|syscall.O_NONBLOCK))
	var ok bool
	var err error
	if readOnly {
		ok, err = lock.TryRLock()
	} else {
		ok, err = lock.TryLock()
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		if readOnly {
			return fmt.Errorf("%w at %s: run `dossier index` first", ErrNoIndex, path)
		}
		return nil
	case err != nil:
		return fmt.Errorf("open index %s: %w", path, err)
	case !ok:
		return errLocked
	}
	defer lock.Unlock()
	f, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open index %s: %w", path, err)
	}
	return checkLayout(path, f, st.Size())
}

// checkLink decides what a symbolic link at the index's path may lead to:
// an index dossier made (a bbolt file: its magic number on a meta page),
// which is then read and written there, the link kept (an index on
// another disk); or to nothing where such an index was set aside as
// damaged, for the rebuild. A link to anything else, or to nothing, is refused:
// dossier never creates or overwrites a file through a link, since a
// repository can hold one (.dossier/index.db -> ~/.bashrc, or as root to
// a file a system service reads) as easily as a user can make one.
func checkLink(path string) error {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err == nil && boltFile(target) {
		return nil
	}
	if err != nil {
		target, _ = os.Readlink(path)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		// The index a writer set aside there as damaged (SetAside): the
		// rebuild goes where it was.
		if boltFile(DamagedPath(target)) {
			return nil
		}
	}
	what := "which does not exist"
	if err == nil {
		what = "which is not a dossier index"
	}
	return fmt.Errorf("index %s is a symbolic link to %s, %s: dossier reads and writes an index through a link only when it leads to an index dossier made, and never creates or replaces a file through one; remove the link to keep the index in %s, or, to keep it at %s, run `dossier index` without the link and then move the file there (mv %s %s && ln -s %s %s)",
		path, target, what, filepath.Dir(path), target, path, target, target, path)
}

// boltFile reports whether path is a regular file with bbolt's magic
// number on one of its meta pages (the other may be damaged), without
// waiting on a FIFO or a device.
func boltFile(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	for _, off := range []int64{0, int64(os.Getpagesize())} {
		var buf [boltPageHeader + 4]byte
		if _, err := f.ReadAt(buf[:], off); err == nil && binary.NativeEndian.Uint32(buf[boltPageHeader:]) == boltMagic {
			return true
		}
	}
	return false
}

// openRegular opens the index file for reading without blocking, and only
// if it is (still) a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
		return nil, damaged(path, "it is not a regular file (%s)", st.Mode().Type())
	}
	return f, nil
}

// errLocked is checkFile's answer when another process holds the file.
var errLocked = errors.New("index file locked")

// checkLayout is checkFile's reading part.
func checkLayout(path string, r io.ReaderAt, size int64) error {
	if size == 0 {
		return damaged(path, "the file is empty")
	}
	m0, p0 := readMeta(r, 0)
	pageSize := int64(os.Getpagesize()) // where bbolt looks for meta 1 when meta 0 is bad
	if p0 == "" {
		pageSize = int64(m0.pageSize)
	}
	if size < 2*pageSize {
		return damaged(path, "the file is %d bytes, shorter than its two meta pages (%d bytes)", size, 2*pageSize)
	}
	m1, p1 := readMeta(r, pageSize)
	switch {
	case p0 != "":
		return damaged(path, "meta page 0: %s", p0)
	case p1 != "":
		return damaged(path, "meta page 1: %s", p1)
	case m1.pageSize != m0.pageSize:
		return damaged(path, "the meta pages disagree on the page size (%d and %d)", m0.pageSize, m1.pageSize)
	}
	cur := m0
	if m1.txid > m0.txid {
		cur = m1
	}
	if need := int64(cur.pgid) * pageSize; size < need {
		return damaged(path, "the file is %d bytes, its header says %d (%d pages of %d): it was cut short", size, need, cur.pgid, pageSize)
	}
	return nil
}

// bbolt's page flags and the size of a branch page's element header
// (pos, ksize uint32; the child's pgid uint64).
const (
	boltBranchFlag    = 0x01
	boltLeafFlag      = 0x02
	boltBranchElement = 16
)

// pageWalk checks the page tree of buckets by reading each page's header
// (and a branch page's child ids) with pread: what bbolt asserts of every
// page as it reads one, for pages no run may read (see checkOutside).
type pageWalk struct {
	path     string
	f        io.ReaderAt
	pageSize int64
	hwm      uint64   // pages 0..hwm-1 exist
	seen     []uint64 // a bit per page reached
}

// tree checks the pages of the tree rooted at root: each is the page its
// parent names, a branch or a leaf page, within the high-water mark, and
// reached once.
func (w *pageWalk) tree(name string, root uint64) error {
	var hdr [boltPageHeader]byte
	var elems []byte
	stack := []uint64{root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id < 2 || id >= w.hwm {
			return damaged(w.path, "bucket %q: page %d is not a data page below the high-water mark %d", name, id, w.hwm)
		}
		if w.seen[id/64]&(1<<(id%64)) != 0 {
			return damaged(w.path, "bucket %q: page %d is reached twice", name, id)
		}
		w.seen[id/64] |= 1 << (id % 64)
		if _, err := w.f.ReadAt(hdr[:], int64(id)*w.pageSize); err != nil {
			return damaged(w.path, "bucket %q: page %d: %v", name, id, err)
		}
		ne := binary.NativeEndian
		self, flags, count, overflow := ne.Uint64(hdr[0:]), ne.Uint16(hdr[8:]), int64(ne.Uint16(hdr[10:])), uint64(ne.Uint32(hdr[12:]))
		switch {
		case self != id:
			return damaged(w.path, "bucket %q: page %d says it is page %d", name, id, self)
		case id+overflow >= w.hwm:
			return damaged(w.path, "bucket %q: page %d and its %d overflow pages run past the high-water mark %d", name, id, overflow, w.hwm)
		case flags == boltLeafFlag:
			continue
		case flags != boltBranchFlag:
			return damaged(w.path, "bucket %q: page %d has flags %#x, not a branch or leaf page's", name, id, flags)
		case count == 0 || boltPageHeader+count*boltBranchElement > int64(overflow+1)*w.pageSize:
			return damaged(w.path, "bucket %q: branch page %d holds %d children, which do not fit it", name, id, count)
		}
		elems = slices.Grow(elems[:0], int(count*boltBranchElement))[:count*boltBranchElement]
		if _, err := w.f.ReadAt(elems, int64(id)*w.pageSize+boltPageHeader); err != nil {
			return damaged(w.path, "bucket %q: page %d: %v", name, id, err)
		}
		for e := range count {
			stack = append(stack, ne.Uint64(elems[e*boltBranchElement+8:]))
		}
	}
	return nil
}
