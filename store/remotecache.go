package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
)

// remoteCache keeps what a shared snapshot handed out, which never
// changes (a snapshot is immutable): in memory for a workbench or MCP
// server, which asks for the same search tables at every query, and in
// files under the workspace's .dossier/shared-cache/<snapshot>, so that
// a one-shot search reads the tables the previous ones fetched from disk
// instead of the server (a search of Go's source tree reads about 3 MB
// of them). Absent keys are kept too. Both layers are bounded.
type remoteCache struct {
	mu    sync.Mutex
	vals  map[string][]byte
	order []string
	bytes int
	dir   string // "" when the files are off (a directory that cannot be written)
}

const (
	remoteCacheBytes = 256 << 20
	// diskCacheFiles bounds a snapshot's files: past it the directory is
	// emptied and filled again.
	diskCacheFiles = 20000
	// absent marks a key the snapshot does not hold, in memory.
	absentMark = "\x00absent"
)

// cacheName names the files of snapshot gen of l's store.
func cacheName(l Link, gen uint64) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s\x00%d", l.URL, l.Repo, l.Commit, l.Recipe, gen))
	return hex.EncodeToString(h[:12])
}

func newRemoteCache(dir string) *remoteCache {
	c := &remoteCache{dir: dir}
	parent := filepath.Dir(dir)
	// Other snapshots' files go: a workspace reads one snapshot at a time.
	if ents, err := os.ReadDir(parent); err == nil {
		for _, e := range ents {
			if e.Name() != filepath.Base(dir) {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	// Bounded by count, read without a stat of each file (a search of
	// Go's source tree leaves some 60 files of 20 KB on average).
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > diskCacheFiles {
		os.RemoveAll(dir)
	}
	if os.MkdirAll(dir, 0o700) != nil {
		c.dir = ""
	}
	return c
}

func (c *remoteCache) file(k string) string {
	h := sha256.Sum256([]byte(k))
	return filepath.Join(c.dir, hex.EncodeToString(h[:16]))
}

// get returns k's value; ok is false when it is not kept. A kept absent
// key gives nil and true.
func (c *remoteCache) get(k string) ([]byte, bool) { return c.lookup(k, true) }

// lookup is get, in memory only unless disk is set (a key never written
// to disk is not looked for there: a failed open is a system call).
func (c *remoteCache) lookup(k string, disk bool) ([]byte, bool) {
	c.mu.Lock()
	v, ok := c.vals[k]
	c.mu.Unlock()
	if ok {
		if string(v) == absentMark {
			return nil, true
		}
		return v, true
	}
	if c.dir == "" || !disk {
		return nil, false
	}
	raw, err := readCacheFile(c.file(k))
	if err != nil || len(raw) < 5 || crc32.ChecksumIEEE(raw[4:]) != binary.LittleEndian.Uint32(raw) {
		return nil, false // none, or not whole: fetched again
	}
	raw = raw[4:]
	if raw[0] == 0 {
		c.keep(k, []byte(absentMark))
		return nil, true
	}
	c.keep(k, raw[1:])
	return raw[1:], true
}

// put keeps k's value (nil: k is absent).
func (c *remoteCache) put(k string, v []byte) {
	if c.dir != "" {
		rec := append([]byte{1}, v...)
		if v == nil {
			rec = []byte{0}
		}
		c.write(c.file(k), rec)
	}
	if v == nil {
		v = []byte(absentMark)
	}
	c.keep(k, v)
}

func (c *remoteCache) keep(k string, v []byte) {
	if len(v) > remoteCacheBytes/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vals == nil {
		c.vals = map[string][]byte{}
	}
	if _, ok := c.vals[k]; ok {
		return
	}
	for c.bytes+len(v) > remoteCacheBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.vals[old])
		delete(c.vals, old)
	}
	c.vals[k] = v
	c.order = append(c.order, k)
	c.bytes += len(v)
}

// write puts rec in the file at path, after its CRC-32, through a
// temporary file of its own: processes filling one cache (parallel
// searches of an agent) never see each other's half-written files.
func (c *remoteCache) write(path string, rec []byte) {
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(rec)))
	if werr == nil {
		_, werr = f.Write(rec)
	}
	if cerr := f.Close(); werr == nil && cerr == nil {
		if os.Rename(f.Name(), path) == nil {
			return
		}
	}
	os.Remove(f.Name())
}
