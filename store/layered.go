package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// A workspace linked to a shared snapshot reads it through the buckets of
// the local file (see shared.go), layered: the files of the overlay (those
// changed, added or deleted since the snapshot's commit) are read from the
// local index.db, every other file from the snapshot. The dirty bucket is
// the overlay itself, which is how the search engine already reads files
// changed since its snapshot was built: from their own records.

// sharedView is one transaction's view of a linked workspace.
type sharedView struct {
	ctx     context.Context
	remote  Remote
	cache   *remoteCache
	local   *bolt.Tx // the overlay's transaction; nil without a local index
	overlay []string // sorted
	// err is the first error of the remote: a read that failed reads as
	// absent, and the transaction then ends with this error (see
	// DB.View), so no answer is built on a failed read.
	err   error
	errMu sync.Mutex
}

// failed reports whether a read failed already: the others are not
// tried (a dead server would make each wait out its timeout).
func (v *sharedView) failed() bool {
	v.errMu.Lock()
	defer v.errMu.Unlock()
	return v.err != nil
}

func (v *sharedView) fail(err error) {
	v.errMu.Lock()
	defer v.errMu.Unlock()
	if v.err == nil {
		v.err = err
	}
}

func (v *sharedView) inOverlay(path []byte) bool {
	_, ok := slices.BinarySearch(v.overlay, string(path))
	return ok
}

// bucket returns the layered reader of bucket name.
func (v *sharedView) bucket(name string) reader {
	remote := remoteReader{v: v, name: name}
	local := v.localReader(name)
	switch name {
	case BucketSymbols:
		return layered{remote: remote, local: local, mine: func(k []byte) bool {
			_, rest, _ := bytes.Cut(k, []byte{0})
			path, _, _ := bytes.Cut(rest, []byte{0})
			return v.inOverlay(path)
		}}
	case BucketDirty:
		return overlayReader{v: v}
	case BucketEmbedCache:
		return local
	case BucketMeta:
		return metaReader{remoteReader: remote, v: v}
	case BucketPathIDs:
		return pathIDReader{remoteReader: remote, local: local}
	}
	if slices.Contains(FileBuckets, name) {
		return layered{remote: remote, local: local, mine: v.inOverlay}
	}
	return remote
}

func (v *sharedView) localReader(name string) reader {
	if v.local != nil {
		if b := v.local.Bucket([]byte(name)); b != nil {
			return boltReader{b}
		}
	}
	return emptyReader{where: v.remote.Describe()}
}

// remoteReader reads one bucket of the snapshot.
type remoteReader struct {
	v    *sharedView
	name string
}

func (r remoteReader) Get(k []byte) []byte {
	if r.v.failed() {
		return nil // the transaction ends with the first error
	}
	ck := wholeKey(r.name, k)
	if val, ok := r.v.cache.get(ck); ok {
		return val
	}
	val, err := r.v.remote.Get(r.v.ctx, r.name, k)
	if err != nil {
		r.v.fail(err)
		return nil
	}
	r.v.cache.put(ck, val)
	return val
}

func (r remoteReader) ForEach(fn func(k, v []byte) error) error {
	var ferr error
	err := r.v.remote.Scan(r.v.ctx, r.name, nil, 0, func(k, val []byte) bool {
		ferr = fn(k, val)
		return ferr == nil
	})
	if err != nil {
		r.v.fail(err)
		return err
	}
	return ferr
}

func (r remoteReader) Cursor() cursor { return &remoteCursor{r: r} }

func (r remoteReader) KeyN() int {
	n, err := r.v.remote.Count(r.v.ctx, r.name)
	if err != nil {
		r.v.fail(err)
	}
	return n
}

func (r remoteReader) Where() string { return r.v.remote.Describe() }

// remoteCursor walks a remote bucket in batches of Scan: small at a
// Seek (most are lookups of a name, which hold a few keys), growing as
// the walk goes on.
type remoteCursor struct {
	r     remoteReader
	batch [][2][]byte
	i     int
	size  int  // of the next batch
	done  bool // the last batch reached the bucket's end
}

const (
	firstBatch  = 16
	cursorBatch = 512
)

func (c *remoteCursor) load(from []byte) (k, v []byte) {
	c.batch, c.i, c.done = c.batch[:0], 0, false
	if c.r.v.failed() {
		c.done = true
		return nil, nil
	}
	size := c.size
	ck := scanKey(c.r.name, size, from)
	var err error
	if raw, ok := c.r.v.cache.get(ck); ok {
		c.batch = decodePairs(c.batch, raw)
	} else {
		err = c.r.v.remote.Scan(c.r.v.ctx, c.r.name, from, size, func(k, v []byte) bool {
			c.batch = append(c.batch, [2][]byte{k, v})
			return len(c.batch) < size
		})
		if err != nil {
			c.r.v.fail(err)
		} else {
			c.r.v.cache.put(ck, EncodePairs(c.batch))
		}
	}
	c.done = err != nil || len(c.batch) < size
	c.size = min(4*size, cursorBatch)
	return c.cur()
}

func scanKey(bucket string, size int, from []byte) string {
	return fmt.Sprintf("scan\x00%s\x00%d\x00%s", bucket, size, from)
}

func (c *remoteCursor) cur() (k, v []byte) {
	if c.i >= len(c.batch) {
		return nil, nil
	}
	return c.batch[c.i][0], c.batch[c.i][1]
}

func (c *remoteCursor) First() (k, v []byte) { c.size = cursorBatch; return c.load(nil) }

func (c *remoteCursor) Seek(from []byte) (k, v []byte) { c.size = firstBatch; return c.load(from) }

func (c *remoteCursor) Next() (k, v []byte) {
	if c.i >= len(c.batch) {
		return nil, nil
	}
	c.i++
	if c.i < len(c.batch) || c.done {
		return c.cur()
	}
	// The key right after the last one: the last one and a NUL byte.
	last := c.batch[len(c.batch)-1][0]
	return c.load(append(slices.Clip(last), 0))
}

// layered reads the overlay's keys (mine) from local, every other key from
// remote.
type layered struct {
	remote, local reader
	mine          func(k []byte) bool
}

func (l layered) Get(k []byte) []byte {
	if l.mine(k) {
		return l.local.Get(k)
	}
	return l.remote.Get(k)
}

func (l layered) ForEach(fn func(k, v []byte) error) error {
	c := l.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (l layered) Cursor() cursor {
	return &mergeCursor{a: l.remote.Cursor(), b: l.local.Cursor(), mine: l.mine}
}

func (l layered) KeyN() int {
	n := 0
	c := l.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

func (l layered) Where() string { return l.remote.Where() }

// mergeCursor merges a (remote, the keys not mine) and b (local, the keys
// mine) in key order.
type mergeCursor struct {
	a, b         cursor
	mine         func(k []byte) bool
	ak, av       []byte
	bk, bv       []byte
	lastFromA    bool
	started, end bool
}

func (m *mergeCursor) skipA(k, v []byte) {
	for k != nil && m.mine(k) {
		k, v = m.a.Next()
	}
	m.ak, m.av = k, v
}

func (m *mergeCursor) skipB(k, v []byte) {
	for k != nil && !m.mine(k) {
		k, v = m.b.Next()
	}
	m.bk, m.bv = k, v
}

func (m *mergeCursor) pick() (k, v []byte) {
	switch {
	case m.ak == nil && m.bk == nil:
		return nil, nil
	case m.bk == nil || (m.ak != nil && bytes.Compare(m.ak, m.bk) < 0):
		m.lastFromA = true
		return m.ak, m.av
	default:
		m.lastFromA = false
		return m.bk, m.bv
	}
}

func (m *mergeCursor) First() (k, v []byte) {
	m.skipA(m.a.First())
	m.skipB(m.b.First())
	return m.pick()
}

func (m *mergeCursor) Seek(from []byte) (k, v []byte) {
	m.skipA(m.a.Seek(from))
	m.skipB(m.b.Seek(from))
	return m.pick()
}

func (m *mergeCursor) Next() (k, v []byte) {
	if m.lastFromA {
		if m.ak == nil {
			return nil, nil
		}
		m.skipA(m.a.Next())
	} else {
		if m.bk == nil {
			return nil, nil
		}
		m.skipB(m.b.Next())
	}
	return m.pick()
}

// overlayReader is the dirty bucket of a linked workspace: its overlay.
type overlayReader struct{ v *sharedView }

func (o overlayReader) Get(k []byte) []byte {
	if o.v.inOverlay(k) {
		return []byte{}
	}
	return nil
}

func (o overlayReader) ForEach(fn func(k, v []byte) error) error {
	for _, p := range o.v.overlay {
		if err := fn([]byte(p), []byte{}); err != nil {
			return err
		}
	}
	return nil
}

func (o overlayReader) Cursor() cursor { return &sliceCursor{keys: o.v.overlay} }
func (o overlayReader) KeyN() int      { return len(o.v.overlay) }
func (o overlayReader) Where() string  { return o.v.remote.Describe() }

// sliceCursor walks sorted keys with empty values.
type sliceCursor struct {
	keys []string
	i    int
}

func (s *sliceCursor) at() (k, v []byte) {
	if s.i >= len(s.keys) {
		return nil, nil
	}
	return []byte(s.keys[s.i]), []byte{}
}

func (s *sliceCursor) First() (k, v []byte) { s.i = 0; return s.at() }
func (s *sliceCursor) Next() (k, v []byte) {
	if s.i < len(s.keys) {
		s.i++
	}
	return s.at()
}

func (s *sliceCursor) Seek(from []byte) (k, v []byte) {
	s.i, _ = slices.BinarySearch(s.keys, string(from))
	return s.at()
}

// emptyReader is a bucket with no keys: the overlay's, without a local
// index.
type emptyReader struct{ where string }

func (emptyReader) Get([]byte) []byte                     { return nil }
func (emptyReader) ForEach(func(k, v []byte) error) error { return nil }
func (emptyReader) Cursor() cursor                        { return &sliceCursor{} }
func (emptyReader) KeyN() int                             { return 0 }
func (e emptyReader) Where() string                       { return e.where }

// metaReader is the snapshot's meta bucket, but for the generation, which
// changes with the snapshot and with the overlay.
type metaReader struct {
	remoteReader
	v *sharedView
}

func (m metaReader) Get(k []byte) []byte {
	if !bytes.Equal(k, metaGeneration) {
		return m.remoteReader.Get(k)
	}
	g := m.v.remote.Generation()
	if m.v.local != nil {
		if b := m.v.local.Bucket(bucketMeta); b != nil {
			if lv := b.Get(metaGeneration); len(lv) == 8 {
				g = g*1_000_003 ^ binary.BigEndian.Uint64(lv)
			}
		}
	}
	return binary.BigEndian.AppendUint64(nil, g)
}

// pathIDReader gives the paths of a path hash in the snapshot and in the
// overlay (a file added since).
type pathIDReader struct {
	remoteReader
	local reader
}

func (p pathIDReader) Get(k []byte) []byte {
	paths := splitPaths(p.remoteReader.Get(k))
	for _, q := range splitPaths(p.local.Get(k)) {
		if !slices.Contains(paths, q) {
			paths = append(paths, q)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	return bytes.Join(func() [][]byte {
		out := make([][]byte, len(paths))
		for i, q := range paths {
			out[i] = []byte(q)
		}
		return out
	}(), []byte{0})
}

// sharedDB is the shared half of a DB opened on a linked workspace.
type sharedDB struct {
	ctx    context.Context
	remote Remote
	link   Link
	cache  *remoteCache
	// linkStat is the link file as it was opened: a new `index --store`
	// rewrites it, and a long-lived reader then opens again (Current).
	linkStat os.FileInfo
	root     string
}

// openShared opens the snapshot l names, layered under the workspace's
// local index when it has one (the overlay).
func openShared(ctx context.Context, path string, l Link, opts Options) (*DB, error) {
	root := filepath.Dir(filepath.Dir(path))
	st, err := os.Stat(LinkPath(root))
	if err != nil {
		return nil, err
	}
	var remote Remote
	if l.Snapshot != 0 {
		remote = &lazyRemote{ctx: context.WithoutCancel(ctx), link: l}
	} else if remote, err = OpenRemote(ctx, l); err != nil {
		return nil, err
	}
	cache := newRemoteCache(filepath.Join(Dir(root), "shared-cache", cacheName(l, remote.Generation())))
	if z, ok := remote.(*lazyRemote); ok {
		z.cache = cache
	}
	db := &DB{path: path, shared: &sharedDB{ctx: context.WithoutCancel(ctx), remote: remote, link: l, linkStat: st, root: root, cache: cache}}
	if len(l.Overlay) > 0 {
		local, err := openLocal(ctx, path, opts)
		if err != nil && !errors.Is(err, ErrNoIndex) {
			remote.Close()
			return nil, fmt.Errorf("the local overlay of %s: %w", remote.Describe(), err)
		}
		if local != nil {
			db.bolt, db.file, db.gen = local.bolt, local.file, local.gen
		}
	}
	return db, nil
}

func (s *sharedDB) current() bool {
	st, err := os.Stat(LinkPath(s.root))
	return err == nil && os.SameFile(st, s.linkStat) && st.ModTime().Equal(s.linkStat.ModTime())
}

// view runs fn on the layered view; a failed read of the remote ends it
// with the remote's error, whatever fn made of the missing value.
func (s *sharedDB) view(db *DB, fn func(*Tx) error) error {
	run := func(local *bolt.Tx) error {
		v := &sharedView{ctx: s.ctx, remote: s.remote, cache: s.cache, local: local, overlay: s.link.Overlay}
		t := &Tx{tx: local, f: db.file, shared: v}
		err := guard(s.remote.Describe(), func() error { return fn(t) })
		if v.err != nil {
			return v.err
		}
		return err
	}
	if db.bolt == nil {
		return run(nil)
	}
	return db.bolt.View(run)
}

// EncodePairs is a batch of pairs as the cache keeps it, and as
// Remote.Fetch answers a scan: each key and value preceded by its length.
func EncodePairs(ps [][2][]byte) []byte {
	out := []byte{}
	for _, p := range ps {
		out = binary.AppendUvarint(out, uint64(len(p[0])))
		out = append(out, p[0]...)
		out = binary.AppendUvarint(out, uint64(len(p[1])))
		out = append(out, p[1]...)
	}
	return out
}

func decodePairs(dst [][2][]byte, raw []byte) [][2][]byte {
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(raw)
		if k <= 0 || uint64(len(raw)-k) < n {
			return nil, false
		}
		v := raw[k : k+int(n)]
		raw = raw[k+int(n):]
		return v, true
	}
	for len(raw) > 0 {
		k, ok := next()
		if !ok {
			break
		}
		v, ok := next()
		if !ok {
			break
		}
		dst = append(dst, [2][]byte{k, v})
	}
	return dst
}
