package store

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// A one-shot search reads its snapshot's tables (megabytes) from the
// cache's files: read into fresh memory, each page of it is a page fault
// of the new process and the whole copied (15 ms for the 2.4 MB document
// table of Go's source tree), while mapped, the file's pages are the page
// cache's own (1 ms, checksum included). A large cache file is therefore
// mapped, once per process (the files never change: a new one is a new
// inode, renamed in place), and stays mapped while the process lives, as
// a value handed out of the cache may be kept.

// mapMin is the size from which a cache file is mapped.
const mapMin = 64 << 10

var mapped struct {
	sync.Mutex
	files map[string][]byte // by path and size
}

// readCacheFile returns the contents of the cache file at path: mapped
// when it is large, read when small.
func readCacheFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < mapMin {
		return os.ReadFile(path)
	}
	mapped.Lock()
	defer mapped.Unlock()
	key := path + "\x00" + st.ModTime().String()
	if b, ok := mapped.files[key]; ok && int64(len(b)) == st.Size() {
		return b, nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return os.ReadFile(path)
	}
	if mapped.files == nil {
		mapped.files = map[string][]byte{}
	}
	mapped.files[key] = b
	return b, nil
}
