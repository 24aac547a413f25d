package search

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/dossierhq/dossier/store"
)

// view is one query's view of the index: the snapshot for files unchanged
// since it was built, and the per-file records of the rest (dirty files).
type view struct {
	tx *store.Tx
	e  *Engine
	// nameTerms is nameCover's buffer for a name's terms.
	nameTerms []string
	// docs is the document table, unchecked: each block of docBlock
	// entries is checked against docSums when first read (see docsIn).
	docs     []byte
	docSums  []byte
	docsOK   []bool // per block: checked
	pathInfo []byte
	hasSnap  bool
	// otherLayout: there is a snapshot, of a layout this dossier does not
	// read (the notes say so).
	otherLayout bool
	dirty       map[string]bool
	dirtyNum    map[uint32]bool
	recs        map[string]*FileRecord // decoded records of dirty files
	metas       map[int]*Meta          // decoded snapshot metadata, by document
	metaTable   *store.SealedValue     // the chunk metadata table, once looked up (see docMeta)
	entry       []byte                 // a metadata entry read by copy, reused
	notes       []string               // for the response's debug notes
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
	key     string // the snapshot's header bytes: new with every rebuild
	meta    snapMeta
	paths   pathTable
	checked bool // its tables were found consistent (see consistent)
	// names is the symbol name table, kept once a query has read it
	// (not by a one-shot Engine): see namesHolding.
	names    string
	hasNames bool
}

// num is the number of path p in the snapshot's path table.
func (s *snapshotState) num(p string) (uint32, bool) { return s.paths.num(p) }

// consistent checks, once per snapshot, that the path table's runs of
// documents tile the document table in order, so a damaged index gives an
// error, not a panic, and a path's documents are a run (see blockedDocs).
func (v *view) consistent() bool {
	next := uint32(0)
	for p := range v.e.snap.meta.Paths {
		pi := getPathInfo(v.pathInfo, p)
		if pi.first != next || int64(pi.first)+int64(pi.n) > int64(v.e.snap.meta.Docs) {
			return false
		}
		next += pi.n
	}
	return int(next) == v.e.snap.meta.Docs
}

// docsIn checks the blocks of the document table that hold documents
// [from, from+n): each against its checksum, once per query, and that
// every entry's path is in the path table.
func (v *view) docsIn(from, n int) error {
	for b := from / docBlock; b < len(v.docsOK) && b*docBlock < from+n; b++ {
		if v.docsOK[b] {
			continue
		}
		block := v.docs[b*docBlock*docSize : min((b+1)*docBlock, v.e.snap.meta.Docs)*docSize]
		ok := crc32.Checksum(block, castagnoli) == binary.LittleEndian.Uint32(v.docSums[4*b:])
		for i := 0; ok && i < len(block)/docSize; i++ {
			ok = int(getDoc(block, i).path) < v.e.snap.meta.Paths
		}
		if !ok {
			return v.tx.SnapshotSealed(keyDocs).Damaged(fmt.Sprintf("block %d of the document table fails its checksum", b))
		}
		v.docsOK[b] = true
	}
	return nil
}

// doc returns snapshot document d, checked (see docsIn).
func (v *view) doc(d int) (doc, error) {
	if b := d / docBlock; !v.docsOK[b] {
		if err := v.docsIn(d, 1); err != nil {
			return doc{}, err
		}
	}
	return getDoc(v.docs, d), nil
}

func (e *Engine) open(tx *store.Tx) (*view, error) {
	v := &view{tx: tx, e: e, dirty: map[string]bool{}, dirtyNum: map[uint32]bool{},
		recs: map[string]*FileRecord{}, metas: map[int]*Meta{}}
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
			v.otherLayout = true
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
		if !e.oneShot {
			// Kept for the next query, past this transaction.
			table = bytes.Clone(table)
		}
		paths, ok := newPathTable(table, m.Paths)
		if !ok {
			return nil, fmt.Errorf("search snapshot: path table damaged (run `dossier index` to rebuild it)")
		}
		e.snap = snapshotState{key: string(raw), meta: m, paths: paths}
	}
	v.docs = tx.SnapshotSealed(keyDocs).Unchecked()
	if v.docSums, err = tx.SnapshotValue(keyDocSums); err != nil {
		return nil, err
	}
	if v.pathInfo, err = tx.SnapshotValue(keyPathInfo); err != nil {
		return nil, err
	}
	blocks := (e.snap.meta.Docs + docBlock - 1) / docBlock
	v.docsOK = make([]bool, blocks)
	if len(v.docs) != e.snap.meta.Docs*docSize || len(v.docSums) != 4*blocks || len(v.pathInfo) != e.snap.meta.Paths*pathInfoSize ||
		!e.snap.checked && !v.consistent() {
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
	// Only the entry is read, by copy, and checked against its own
	// checksum: each page of the index's memory map a query touches costs
	// a page fault, and a query's candidates are spread all over.
	if v.metaTable == nil {
		t := v.tx.SnapshotSealed(keyMetas)
		v.metaTable = &t
	}
	entry, err := v.metaEntry(d)
	if err != nil {
		return nil, err
	}
	if entry == nil {
		return nil, v.metaTable.Damaged(fmt.Sprintf("the metadata of chunk %d fails its checksum", d))
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

// prefetch reads ahead, from a shared snapshot, what finish will read
// of the candidates (see store.Batch): the offsets of their metadata
// entries (the whole offset table, once), then the entries with the texts
// of the first 2k candidates' files (bestLines reads those of the
// results, which reranking picks among them), in one round trip rather
// than two for each candidate and one for each text.
func (v *view) prefetch(cands []fused, k int) {
	b := v.tx.Batch()
	if !b.Shared() {
		return
	}
	var docs []int
	var paths []string
	for i, c := range cands {
		if d, _, ok := v.snapDoc(c.key); ok {
			if _, done := v.metas[d]; !done {
				docs = append(docs, d)
			}
		}
		if i < 2*k && !slices.Contains(paths, c.key.path) {
			paths = append(paths, c.key.path)
		}
	}
	if v.metaTable == nil {
		t := v.tx.SnapshotSealed(keyMetas)
		v.metaTable = &t
	}
	t := v.metaTable
	base := 4 * (v.e.snap.meta.Docs + 1)
	if len(docs) > 0 {
		// The whole offset table (4 bytes a chunk), kept in the cache: the
		// next queries' candidates are anywhere in it.
		b.Head(*t, base)
		b.Fetch()
	}
	var offs [8]byte
	for _, d := range docs {
		if t.ReadAt(offs[:], 4*d) != nil {
			break // the reads that follow report it
		}
		start, end := binary.LittleEndian.Uint32(offs[:]), binary.LittleEndian.Uint32(offs[4:])
		if start < end {
			b.Spans(*t, [][2]int{{base + int(start), int(end - start)}})
		}
	}
	b.Blobs(paths)
	b.Fetch()
}

// metaEntry reads the metadata entry of document d by copy (see
// Builder.metaTable) and returns it checked against its CRC-32C and
// without it; nil when it is damaged. The bytes are valid until the next
// call.
func (v *view) metaEntry(d int) ([]byte, error) {
	t := v.metaTable
	base := 4 * (v.e.snap.meta.Docs + 1)
	if t.Len() < base {
		return nil, nil
	}
	var offs [8]byte
	if err := t.ReadAt(offs[:], 4*d); err != nil {
		return nil, err
	}
	start, end := binary.LittleEndian.Uint32(offs[:]), binary.LittleEndian.Uint32(offs[4:])
	if start > end || end-start < 4 || int64(end) > int64(t.Len()-base) {
		return nil, nil
	}
	if int(end-start) > cap(v.entry) {
		v.entry = make([]byte, end-start, max(end-start, 4096))
	}
	e := v.entry[:end-start]
	if err := t.ReadAt(e, base+int(start)); err != nil {
		return nil, err
	}
	body := e[:len(e)-4]
	if metaSum(d, body) != binary.LittleEndian.Uint32(e[len(body):]) {
		return nil, nil
	}
	return body, nil
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
	if err := v.docsIn(int(pi.first), int(pi.n)); err != nil {
		return nil, err
	}
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
