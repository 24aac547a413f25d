package search

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/store"
)

// view is one query's view of the index: the snapshot for files unchanged
// since it was built, and the per-file records of the rest (dirty files).
type view struct {
	tx       *store.Tx
	e        *Engine
	docs     []byte
	pathInfo []byte
	hasSnap  bool
	dirty    map[string]bool
	dirtyNum map[uint32]bool
	recs     map[string]*FileRecord // decoded records of dirty files
	metas    map[int]*Meta          // decoded snapshot metadata, by document
	segs     map[int][]byte         // metadata segments read (and checked) so far
	notes    []string               // for the response's debug notes
	// recordScans counts the files whose vector records the vector scan
	// read, not their entries in the snapshot's table.
	recordScans int
	vecIn       []byte // which paths the vector table holds
	// The query's terms and their figures (see queryTerms).
	qtext string
	qt    map[string]int
	qst   stats
}

// snapshotState is what an Engine keeps of one snapshot between queries.
type snapshotState struct {
	key      string // the snapshot's header bytes: new with every rebuild
	meta     snapMeta
	paths    []string
	pathNums map[string]uint32 // nil when paths are sorted (see num)
	checked  bool              // its tables were found consistent (see consistent)
}

// num is the number of path p in the snapshot's path table: found by
// binary search, as the table is in path order (a map of 10k paths was a
// tenth of a one-shot query's time), or in pathNums when it is not.
func (s *snapshotState) num(p string) (uint32, bool) {
	if s.pathNums != nil {
		n, ok := s.pathNums[p]
		return n, ok
	}
	i, ok := slices.BinarySearch(s.paths, p)
	return uint32(i), ok
}

// consistent checks, once per snapshot, that every number the tables hold
// points inside them, so a damaged index gives an error, not a panic.
func (v *view) consistent() bool {
	docs, paths := v.e.snap.meta.Docs, v.e.snap.meta.Paths
	for d := range docs {
		if int(getDoc(v.docs, d).path) >= paths {
			return false
		}
	}
	for p := range paths {
		pi := getPathInfo(v.pathInfo, p)
		if int64(pi.first)+int64(pi.n) > int64(docs) {
			return false
		}
	}
	return true
}

func (e *Engine) open(tx *store.Tx) (*view, error) {
	v := &view{tx: tx, e: e, dirty: map[string]bool{}, dirtyNum: map[uint32]bool{},
		recs: map[string]*FileRecord{}, metas: map[int]*Meta{}, segs: map[int][]byte{}}
	raw, err := tx.SnapshotValue(keyMeta)
	if err != nil {
		return nil, err
	}
	if raw != nil && string(raw) != e.snap.key {
		var m snapMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("search snapshot: unreadable header (run `dossier index` to rebuild it)")
		}
		if m.Version != snapVersion {
			// Another layout: the records hold everything it did.
			v.notes = append(v.notes, fmt.Sprintf("the search snapshot has layout %d, this dossier reads %d: every file is read from its own record until `dossier index` rebuilds it", m.Version, snapVersion))
			raw = nil
		}
	}
	if raw == nil {
		e.snap = snapshotState{}
		// No snapshot (yet): every file is read from its own record.
		err := tx.SearchRecords(func(p string, _ []byte) error { v.dirty[p] = true; return nil })
		return v, err
	}
	if string(raw) != e.snap.key {
		var m snapMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("search snapshot: unreadable header (run `dossier index` to rebuild it)")
		}
		table, err := tx.SnapshotValue(keyPaths)
		if err != nil {
			return nil, err
		}
		paths := strings.Split(string(table), pathSep)
		if m.Paths == 0 {
			paths = nil
		}
		if len(paths) != m.Paths {
			return nil, fmt.Errorf("search snapshot: path table damaged (run `dossier index` to rebuild it)")
		}
		e.snap = snapshotState{key: string(raw), meta: m, paths: paths}
		if !slices.IsSorted(paths) {
			// A snapshot Rebuild wrote is in path order; another gets a map.
			e.snap.pathNums = make(map[string]uint32, len(paths))
			for i, p := range paths {
				e.snap.pathNums[p] = uint32(i)
			}
		}
	}
	if v.docs, err = tx.SnapshotValue(keyDocs); err != nil {
		return nil, err
	}
	if v.pathInfo, err = tx.SnapshotValue(keyPathInfo); err != nil {
		return nil, err
	}
	if len(v.docs) != e.snap.meta.Docs*docSize || len(v.pathInfo) != e.snap.meta.Paths*pathInfoSize || !e.snap.checked && !v.consistent() {
		e.snap = snapshotState{}
		return nil, fmt.Errorf("search snapshot: document table damaged (run `dossier index` to rebuild it)")
	}
	e.snap.checked = true
	v.hasSnap = true
	for _, p := range tx.Dirty() {
		v.dirty[p] = true
		if n, ok := e.snap.num(p); ok {
			v.dirtyNum[n] = true
		}
	}
	return v, nil
}

// record decodes (once per query) the search record of a dirty file; nil
// when the file is gone.
func (v *view) record(p string) (*FileRecord, error) {
	if r, ok := v.recs[p]; ok {
		return r, nil
	}
	var r *FileRecord
	if rec := v.tx.SearchRecord(p); rec != nil {
		var err error
		if r, err = DecodeRecord(rec); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	v.recs[p] = r
	return r, nil
}

// snapDoc returns the snapshot document of chunk k of a clean file.
func (v *view) snapDoc(k key) (int, pathInfo, bool) {
	n, ok := v.e.snap.num(k.path)
	if !ok || v.dirtyNum[n] {
		return 0, pathInfo{}, false
	}
	pi := getPathInfo(v.pathInfo, int(n))
	if k.ord < 0 || k.ord >= int(pi.n) {
		return 0, pathInfo{}, false
	}
	return int(pi.first) + k.ord, pi, true
}

// docMeta decodes the metadata of snapshot document d.
func (v *view) docMeta(d int) (*Meta, error) {
	if m, ok := v.metas[d]; ok {
		return m, nil
	}
	// A segment is checked whole when read: once per query, not per
	// document of it the query looks at.
	seg, ok := v.segs[d/segDocs]
	if !ok {
		var err error
		if seg, err = v.tx.SnapshotValue(metaKey(d / segDocs)); err != nil {
			return nil, err
		}
		v.segs[d/segDocs] = seg
	}
	entry, ok := segEntry(seg, d%segDocs)
	if !ok {
		return nil, fmt.Errorf("search snapshot: chunk metadata damaged (run `dossier index` to rebuild it)")
	}
	r := reader{b: entry}
	m := &Meta{}
	r.meta(m)
	if r.err != nil {
		return nil, r.err
	}
	v.metas[d] = m
	return m, nil
}

// meta returns chunk k's metadata and its file's modification time; false
// when the chunk is not in the index.
func (v *view) meta(k key) (*Meta, int64, bool, error) {
	if v.dirty[k.path] {
		r, err := v.record(k.path)
		if err != nil || r == nil || k.ord < 0 || k.ord >= len(r.Metas) {
			return nil, 0, false, err
		}
		return &r.Metas[k.ord], r.ModTime, true, nil
	}
	d, pi, ok := v.snapDoc(k)
	if !ok {
		return nil, 0, false, nil
	}
	m, err := v.docMeta(d)
	if err != nil {
		return nil, 0, false, err
	}
	return m, pi.mtime, true, nil
}

// fileMetas returns the metadata of every chunk of path, in order.
func (v *view) fileMetas(p string) ([]*Meta, error) {
	var out []*Meta
	if v.dirty[p] {
		r, err := v.record(p)
		if err != nil || r == nil {
			return nil, err
		}
		for i := range r.Metas {
			out = append(out, &r.Metas[i])
		}
		return out, nil
	}
	for ord := 0; ; ord++ {
		d, _, ok := v.snapDoc(key{p, ord})
		if !ok {
			return out, nil
		}
		m, err := v.docMeta(d)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
}

// kindFilter returns, for a query with a type filter, a test of whether
// chunk ord of path may be returned; nil means every chunk may.
func (v *view) kindFilter(p string, f filter) (func(ord int) bool, error) {
	if f.types == nil {
		return nil, nil
	}
	if v.dirty[p] {
		r, err := v.record(p)
		if err != nil || r == nil {
			return func(int) bool { return false }, err
		}
		return func(ord int) bool {
			return ord < len(r.Metas) && f.kind(r.Metas[ord].Kind, r.Metas[ord].SrcType)
		}, nil
	}
	n, ok := v.e.snap.num(p)
	if !ok {
		return func(int) bool { return false }, nil
	}
	pi := getPathInfo(v.pathInfo, int(n))
	kinds, srcs := v.e.snap.meta.Kinds, v.e.snap.meta.SrcTypes
	return func(ord int) bool {
		if ord >= int(pi.n) {
			return false
		}
		d := getDoc(v.docs, int(pi.first)+ord)
		return f.kind(name(kinds, d.kind), name(srcs, d.src))
	}, nil
}

// dirtyCount is the number of files read from their own records.
func (v *view) dirtyCount() int {
	n := len(v.dirtyNum)
	for p := range v.dirty {
		if _, ok := v.e.snap.num(p); !ok {
			n++
		}
	}
	return n
}
