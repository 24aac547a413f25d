package search

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// The snapshot's vector table holds every document's int8 entry (the
// stored form of vecindex, without the residuals) in document order,
// contiguous, in one value: a checksum per run of segVecs entries, then the
// entries. A query reads it by copy (see store/readat.go), a run at a time
// into a buffer it reuses, checking each run as it goes, and scans it: the
// per-file vector records are each a separate run of pages, with a header
// and the residuals between one file's entries and the next, and mapping
// them put all of them in the process's memory (on Go's source tree that
// was most of a one-shot hybrid query's time and memory). The residuals
// are a second value, in document order, each document's followed by a
// checksum of its entry and residuals, so the few hundred candidates a
// query rescores are read and checked alone. One value each, as every
// value looked up maps the pages around its start.
//
// A file whose vector record is missing, holds another model or another
// number of vectors than it has documents is left out of the table
// (keyVecPaths says which files are in) and read from its own record, as a
// dirty file is.

// segVecs is how many entries one checksum covers (about 1 MB at 256
// dimensions): the unit a query reads, checks and scans at a time.
const segVecs = 4096

// vecTable is the vector table's header, in the snapshot's.
type vecTable struct {
	Model string `json:"model"`
	Dims  int    `json:"dims"`
	// Extra are files with vectors but no search record, so not in the
	// snapshot's path table: read from their records.
	Extra []string `json:"extra,omitempty"`
}

// keyVecPaths is the table of which paths the vector table holds: one byte
// per path of the path table, 1 when it holds the path's entries.
var keyVecPaths = []byte("vpaths")

// Keys of the vector table's values.
var (
	keyVecs  = []byte("vecs")
	keyResid = []byte("resid")
)

// residSize is the size of one document's residuals and their checksum.
func residSize(dims int) int { return dims + 4 }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// residSum is the checksum of a document's entry and residuals.
func residSum(entry, resid []byte) uint32 {
	return crc32.Update(crc32.Checksum(entry, castagnoli), castagnoli, resid)
}

// tableModel is the model and length of most of the index's vectors: the
// ones the vector table holds. The index's own record of its model is no
// guide, as an index run records it only once it has finished, after it
// rebuilt the snapshot. False when no file has vectors.
func tableModel(tx *store.Tx) (store.VectorModel, bool, error) {
	type model struct {
		name string
		dims int
	}
	count := map[model]int{}
	err := tx.VectorRecords(func(p string, rec []byte) error {
		set, err := DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", p, err)
		}
		count[model{set.Model, set.Dims}] += set.n
		return nil
	})
	var best model
	for m, n := range count {
		if n > count[best] || n == count[best] && (m.name < best.name || m.name == best.name && m.dims < best.dims) {
			best = m
		}
	}
	return store.VectorModel{Model: best.name, Dims: best.dims}, best.dims > 0, err
}

// addVectors fills the vector table from every file's vector record; it
// runs after AddFile has seen every search record. m is the model the
// table holds (see tableModel): records of another are left out.
func (b *Builder) addVectors(m store.VectorModel, records func(fn func(path string, rec []byte) error) error) error {
	nums := make(map[string]int, len(b.paths))
	for i, p := range b.paths {
		nums[p] = i
	}
	size := vecindex.EntrySize(m.Dims)
	t := &vecTable{Model: m.Model, Dims: m.Dims}
	// Each segment is a slice of its own, with room for the checksum the
	// store appends in place.
	rsize := residSize(m.Dims)
	nseg := (b.Docs() + segVecs - 1) / segVecs
	head := 4 * nseg
	// Each value is a slice of its own, with room for the checksum the
	// store appends in place.
	vecs := make([]byte, head+b.Docs()*size, head+b.Docs()*size+4)
	resid := make([]byte, b.Docs()*rsize, b.Docs()*rsize+4)
	in := make([]byte, len(b.paths))
	err := records(func(p string, rec []byte) error {
		n, ok := nums[p]
		if !ok {
			t.Extra = append(t.Extra, p)
			return nil
		}
		set, err := DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", p, err)
		}
		pi := getPathInfo(b.pathInfo, n)
		if set.Model != m.Model || set.Dims != m.Dims || set.n != int(pi.n) {
			return nil
		}
		for j := range set.n {
			d := int(pi.first) + j
			e := vecs[head+d*size:][:size]
			r := resid[d*rsize:][:rsize]
			copy(e, set.Entry(j))
			copy(r, set.Resid(j))
			binary.LittleEndian.PutUint32(r[m.Dims:], residSum(e, r[:m.Dims]))
		}
		in[n] = 1
		return nil
	})
	if err != nil {
		return err
	}
	for i := range nseg {
		run := vecs[head+i*segVecs*size : head+min(b.Docs(), (i+1)*segVecs)*size]
		binary.LittleEndian.PutUint32(vecs[4*i:], crc32.Checksum(run, castagnoli))
	}
	b.vecs, b.resid, b.vecPaths, b.vecTable = vecs, resid, in, t
	return nil
}

// vecTables returns the vector table's values for Write.
func (b *Builder) vecTables() []struct{ k, v []byte } {
	if b.vecTable == nil {
		return nil
	}
	return []struct{ k, v []byte }{{keyVecPaths, nonNil(b.vecPaths)}, {keyVecs, b.vecs}, {keyResid, b.resid}}
}

// vectorFile is a run of vector entries a query scans: one file's, from
// its record (path set), or a run of segVecs entries of the snapshot's
// table (path empty), whose entry j is document first+j.
type vectorFile struct {
	path    string
	first   int
	model   string
	dims    int
	n       int
	entries []byte // n entries of vecindex.EntrySize(dims) bytes
	// A run of the table not read yet: where, and its checksum.
	table *store.SealedValue
	off   int
	sum   uint32
}

// read returns the entries of a run of the table, read by copy into buf
// (reused when large enough) and checked; a file's or a copied run's, as
// they are.
func (vf *vectorFile) read(buf []byte) ([]byte, error) {
	if vf.table == nil {
		return vf.entries, nil
	}
	n := vf.n * vecindex.EntrySize(vf.dims)
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if err := vf.table.ReadAt(buf, vf.off); err != nil {
		return nil, err
	}
	if crc32.Checksum(buf, castagnoli) != vf.sum {
		return nil, vf.table.Damaged(fmt.Sprintf("the vectors of documents %d-%d fail their checksum", vf.first, vf.first+vf.n-1))
	}
	return buf, nil
}

// tableVector reads snapshot document d's entry and residuals from the
// vector table, by copy, and checks them; false when the table does not
// hold the document's file or the file is dirty.
func (v *view) tableVector(k key) (entry, resid []byte, ok bool, err error) {
	t, in, err := v.vecTable()
	if t == nil || err != nil {
		return nil, nil, false, err
	}
	d, _, ok := v.snapDoc(k)
	if n, _ := v.e.snap.num(k.path); !ok || in[n] == 0 {
		return nil, nil, false, nil
	}
	size, rsize := vecindex.EntrySize(t.Dims), residSize(t.Dims)
	buf := make([]byte, size+rsize)
	entry, resid = buf[:size], buf[size:]
	if v.vecVals == nil {
		v.vecVals = &[2]store.SealedValue{v.tx.SnapshotSealed(keyVecs), v.tx.SnapshotSealed(keyResid)}
	}
	head := 4 * ((v.e.snap.meta.Docs + segVecs - 1) / segVecs)
	if err := v.vecVals[0].ReadAt(entry, head+d*size); err != nil {
		return nil, nil, false, err
	}
	rs := v.vecVals[1]
	if err := rs.ReadAt(resid, d*rsize); err != nil {
		return nil, nil, false, err
	}
	if residSum(entry, resid[:t.Dims]) != binary.LittleEndian.Uint32(resid[t.Dims:]) {
		return nil, nil, false, rs.Damaged(fmt.Sprintf("the vector of %s chunk %d fails its checksum", k.path, k.ord))
	}
	return entry, resid[:t.Dims], true, nil
}

// vectorSources returns what the vector leg scans: the snapshot's vector
// segments (unchecked until opened), and the records of every file they do
// not hold (dirty ones, ones left out of the table, or every file without
// a table). Entries are slices of the index file's memory map, valid until
// tx ends.
func (v *view) vectorSources() ([]vectorFile, error) {
	t, in, err := v.vecTable()
	if err != nil {
		return nil, err
	}
	if t == nil {
		var files []vectorFile
		err := v.tx.VectorRecords(func(p string, rec []byte) error {
			vf, err := recordSource(p, rec)
			files = append(files, vf)
			return err
		})
		v.recordScans += len(files)
		return files, err
	}
	docs := v.e.snap.meta.Docs
	nseg := (docs + segVecs - 1) / segVecs
	table := v.tx.SnapshotSealed(keyVecs)
	head := make([]byte, 4*nseg)
	if table.Len() != len(head)+docs*vecindex.EntrySize(t.Dims) {
		return nil, table.Damaged(fmt.Sprintf("%d bytes, not the %d its %d documents take", table.Len(), len(head)+docs*vecindex.EntrySize(t.Dims), docs))
	}
	if err := table.ReadAt(head, 0); err != nil {
		return nil, err
	}
	size := vecindex.EntrySize(t.Dims)
	var files []vectorFile
	for i := range nseg {
		files = append(files, vectorFile{first: i * segVecs, model: t.Model, dims: t.Dims, n: min(segVecs, docs-i*segVecs),
			table: &table, off: len(head) + i*segVecs*size, sum: binary.LittleEndian.Uint32(head[4*i:])})
	}
	var read []string
	for p := range v.dirty {
		read = append(read, p)
	}
	for n := range v.e.snap.paths.len() {
		if in[n] == 0 && !v.dirtyNum[uint32(n)] {
			read = append(read, v.e.snap.paths.path(n))
		}
	}
	for _, p := range t.Extra {
		if !v.dirty[p] {
			read = append(read, p)
		}
	}
	for _, p := range read {
		if rec := v.tx.VectorRecord(p); rec != nil {
			vf, err := recordSource(p, rec)
			if err != nil {
				return nil, err
			}
			files = append(files, vf)
		}
	}
	v.recordScans += len(read)
	return files, nil
}

func recordSource(p string, rec []byte) (vectorFile, error) {
	set, err := DecodeVectors(rec)
	if err != nil {
		return vectorFile{}, fmt.Errorf("vectors of %s: %w", p, err)
	}
	return vectorFile{path: p, model: set.Model, dims: set.Dims, n: set.n, entries: set.entries}, nil
}

// vecTable returns the snapshot's vector table header and which paths it
// holds; nil without a snapshot or a table.
func (v *view) vecTable() (*vecTable, []byte, error) {
	t := v.e.snap.meta.Vectors
	if !v.hasSnap || t == nil {
		return nil, nil, nil
	}
	if v.vecIn == nil {
		in, err := v.tx.SnapshotValue(keyVecPaths)
		if err != nil {
			return nil, nil, err
		}
		if len(in) != v.e.snap.paths.len() || t.Dims <= 0 {
			return nil, nil, fmt.Errorf("search snapshot: vector table damaged (run `dossier index` to rebuild it)")
		}
		v.vecIn = nonNil(in)
	}
	return t, v.vecIn, nil
}

// skipPaths returns, per path of the snapshot, whether its documents in
// the vector table are left out of this query: dirty, outside the path
// filter or not in the table.
func (v *view) skipPaths(f filter) ([]bool, error) {
	_, in, err := v.vecTable()
	if err != nil {
		return nil, err
	}
	skip := make([]bool, v.e.snap.paths.len())
	for n := range skip {
		skip[n] = in[n] == 0 || v.dirtyNum[uint32(n)] || !v.e.snap.paths.hasPrefix(n, f.prefix)
	}
	return skip, nil
}

// tableFiles is the number of files the vector table holds.
func (v *view) tableFiles() int {
	_, in, _ := v.vecTable() // read before, by skipPaths or vectorSources
	n := 0
	for _, b := range in {
		n += int(b)
	}
	return n
}
