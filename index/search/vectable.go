package search

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// The snapshot's vector table holds every document's stored vector (the
// int8 entry and residuals of vecindex) in document order. The entries are
// laid out by column in blocks of colBlock documents: a block holds its
// documents' scales, then component 0 of each, then component 1 of each,
// and so on; the table starts with a checksum of each of those pieces.
// The residuals follow, by row: each document's residuals, then a
// CRC-32C of its number and them. A query reads, by copy (see
// store/readat.go), the scales and only the columns of its own non-zero
// components (vecindex.ColumnQuery), a block at a time into a buffer it
// reuses, checking each piece as it goes: the builtin embedder puts a
// query's few words in a fifth of the components or fewer, so a query
// reads a tenth of the table and scores exactly as a scan of every entry
// would. The scan keeps the components of the few hundred documents it
// may rescore, and rescoring reads the residuals of those it rescores,
// one row each. (Residuals by column, beside their components, were half
// of what a query read, for the 600 documents it rescores out of 137k on
// Go's tree.) (The per-file
// vector records are each a separate run of pages, with a header and the
// residuals between one file's entries and the next, and mapping them put
// all of them in the process's memory: on Go's source tree that was most
// of a one-shot hybrid query's time and memory.) One value, as every
// value looked up maps the pages around its start.
//
// A file whose vector record is missing, holds another model or another
// number of vectors than it has documents is left out of the table
// (keyVecPaths says which files are in) and read from its own record, as a
// dirty file is.

// colBlock is how many documents one block of the table holds (about
// 4 MB at 256 dimensions): the unit a query reads, checks and scans at a
// time.
const colBlock = 8192

// mergeGap is the most pieces a read of a block skips over rather than
// split into two reads: a read costs as much as copying a few pieces.
const mergeGap = 2

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

// keyVecs is the vector table's value.
var keyVecs = []byte("vecs")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// colLayout is where the pieces of the column table lie.
type colLayout struct {
	docs, dims int
}

func (l colLayout) blocks() int { return (l.docs + colBlock - 1) / colBlock }

// head is the size of the checksums before the first block: one per
// piece, the scales and dims columns of each block.
func (l colLayout) head() int { return 4 * l.blocks() * (l.dims + 1) }

func (l colLayout) size() int { return l.head() + l.docs*(4+l.dims) + l.docs*l.rowSize() }

// rowSize is the size of a document's row of residuals: dims of them and
// the row's checksum.
func (l colLayout) rowSize() int { return l.dims + 4 }

// row is the offset in the table of document d's row of residuals.
func (l colLayout) row(d int) int { return l.head() + l.docs*(4+l.dims) + d*l.rowSize() }

// rowSum is the checksum of document d's row of residuals resid: of its
// number too, so an intact row reached at another document's offset is
// damage.
func rowSum(d int, resid []byte) uint32 {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(d))
	return crc32.Update(crc32.Checksum(n[:], castagnoli), castagnoli, resid)
}

// block returns the first document of block b and how many it holds.
func (l colLayout) block(b int) (first, n int) {
	first = b * colBlock
	return first, min(colBlock, l.docs-first)
}

// piece returns the offset and length in the table of piece p of block b:
// p 0 is the scales, p 1+j component j.
func (l colLayout) piece(b, p int) (off, n int) {
	first, m := l.block(b)
	off = l.head() + first*(4+l.dims)
	if p == 0 {
		return off, 4 * m
	}
	return off + 4*m + (p-1)*m, m
}

// sum is the index of the checksum of piece p of block b.
func (l colLayout) sum(b, p int) int { return b*(l.dims+1) + p }

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
	t := &vecTable{Model: m.Model, Dims: m.Dims}
	l := colLayout{docs: b.Docs(), dims: m.Dims}
	// The value is a slice of its own, with room for the checksum the
	// store appends in place.
	vecs := make([]byte, l.size(), l.size()+4)
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
			blk, i := d/colBlock, d%colBlock
			scale, comps := vecindex.ColumnEntry(set.Entry(j))
			resid := set.Resid(j)
			off, size := l.piece(blk, 0)
			binary.LittleEndian.PutUint32(vecs[off+4*i:], math.Float32bits(scale))
			// Component c is at piece 1+c: the block's components follow
			// its scales, a column of size/4 bytes each.
			col, n := vecs[off+size+i:], size/4
			for c, x := range comps {
				col[c*n] = x
			}
			copy(vecs[l.row(d):], resid[:m.Dims])
		}
		in[n] = 1
		return nil
	})
	if err != nil {
		return err
	}
	for blk := range l.blocks() {
		for p := range m.Dims + 1 {
			off, n := l.piece(blk, p)
			binary.LittleEndian.PutUint32(vecs[4*l.sum(blk, p):], crc32.Checksum(vecs[off:off+n], castagnoli))
		}
	}
	// Every row, a document's the table does not hold too (zeros).
	for d := range l.docs {
		row := vecs[l.row(d) : l.row(d)+l.rowSize()]
		binary.LittleEndian.PutUint32(row[m.Dims:], rowSum(d, row[:m.Dims]))
	}
	b.vecs, b.vecPaths, b.vecTable = vecs, in, t
	return nil
}

// vecTables returns the vector table's values for Write.
func (b *Builder) vecTables() []table {
	if b.vecTable == nil {
		return nil
	}
	return []table{fixedTable(keyVecPaths, nonNil(b.vecPaths)), fixedTable(keyVecs, b.vecs)}
}

// vectorFile is a run of vector entries a query scans: one file's, from
// its record (path set), or a block of the snapshot's table (table set),
// whose documents are first to first+n-1.
type vectorFile struct {
	path    string
	first   int
	model   string
	dims    int
	n       int
	entries []byte // a file's n entries of vecindex.EntrySize(dims) bytes
	table   *colTable
	block   int
}

// colTable is the snapshot's vector table as a query reads it, by copy
// from the index file.
type colTable struct {
	colLayout
	val  store.SealedValue
	sums []byte // the checksum of every piece
}

// openColTable reads the vector table's checksums, for a query to read
// its blocks.
func (v *view) openColTable(t *vecTable) (*colTable, error) {
	l := colLayout{docs: v.e.snap.meta.Docs, dims: t.Dims}
	ct := &colTable{colLayout: l, val: v.tx.SnapshotSealed(keyVecs)}
	if ct.val.Len() != l.size() {
		return nil, ct.val.Damaged(fmt.Sprintf("%d bytes, not the %d its %d documents take", ct.val.Len(), l.size(), l.docs))
	}
	ct.sums = make([]byte, l.head())
	if err := ct.val.ReadAt(ct.sums, 0); err != nil {
		return nil, err
	}
	return ct, nil
}

func (ct *colTable) check(b, p int, piece []byte) error {
	if crc32.Checksum(piece, castagnoli) == binary.LittleEndian.Uint32(ct.sums[4*ct.sum(b, p):]) {
		return nil
	}
	first, n := ct.block(b)
	what := "scales"
	if p > 0 {
		what = fmt.Sprintf("component %d", p-1)
	}
	return ct.val.Damaged(fmt.Sprintf("the %s of documents %d-%d fail their checksum", what, first, first+n-1))
}

// read returns the scales of block b's documents and the columns of
// their components dims (ascending), checked; read by copy into buf
// (reused when large enough, and returned for the next block), in runs of
// pieces mergeGap apart at most. pieces is reused too.
func (ct *colTable) read(b int, dims []int, buf []byte, pieces [][]byte) (scales []byte, _ [][]byte, _ []byte, err error) {
	pieces = pieces[:0]
	// Pieces 0 (scales) and 1+dims[i].
	piece := func(i int) int {
		if i == 0 {
			return 0
		}
		return 1 + dims[i-1]
	}
	// runs calls fn with each run of pieces i..j-1 read at once.
	runs := func(fn func(i, j, off, end int) error) error {
		for i := 0; i <= len(dims); {
			j := i + 1
			for j <= len(dims) && piece(j) <= piece(j-1)+1+mergeGap {
				j++
			}
			off, _ := ct.piece(b, piece(i))
			last, n := ct.piece(b, piece(j-1))
			if err := fn(i, j, off, last+n); err != nil {
				return err
			}
			i = j
		}
		return nil
	}
	total := 0
	runs(func(_, _, off, end int) error { total += end - off; return nil })
	if cap(buf) < total {
		buf = make([]byte, total)
	}
	buf = buf[:total]
	at := 0
	err = runs(func(i, j, off, end int) error {
		run := buf[at : at+end-off]
		at += len(run)
		if err := ct.val.ReadAt(run, off); err != nil {
			return err
		}
		for k := i; k < j; k++ {
			o, n := ct.piece(b, piece(k))
			p := run[o-off : o-off+n]
			if err := ct.check(b, piece(k), p); err != nil {
				return err
			}
			if k == 0 {
				scales = p
			} else {
				pieces = append(pieces, p)
			}
		}
		return nil
	})
	return scales, pieces, buf, err
}

// resid gathers the residuals at dims of document d into out (len(dims)
// bytes), from its row, read by copy into buf (rowSize bytes) and checked.
func (ct *colTable) resid(d int, dims []int, buf, out []byte) error {
	if d < 0 || d >= ct.docs {
		return fmt.Errorf("search snapshot: document %d is not in the vector table (run `dossier index` to rebuild it)", d)
	}
	if err := ct.val.ReadAt(buf, ct.row(d)); err != nil {
		return err
	}
	if rowSum(d, buf[:ct.dims]) != binary.LittleEndian.Uint32(buf[ct.dims:]) {
		return ct.val.Damaged(fmt.Sprintf("the residuals of document %d fail their checksum", d))
	}
	for i, j := range dims {
		out[i] = buf[j]
	}
	return nil
}

// tableDoc returns the document number of k in the snapshot's vector
// table; false when the table does not hold k's file or the file is dirty.
func (v *view) tableDoc(k key) (int, bool, error) {
	_, in, err := v.vecTable()
	if in == nil || err != nil {
		return 0, false, err
	}
	d, _, ok := v.snapDoc(k)
	if n, _ := v.e.snap.num(k.path); !ok || in[n] == 0 {
		return 0, false, nil
	}
	return d, true, nil
}

// tableBlocks returns the blocks of the snapshot's vector table; none
// without a table.
func (v *view) tableBlocks() ([]vectorFile, error) {
	t, _, err := v.vecTable()
	if t == nil || err != nil {
		return nil, err
	}
	ct, err := v.openColTable(t)
	if err != nil {
		return nil, err
	}
	var files []vectorFile
	for b := range ct.blocks() {
		first, n := ct.block(b)
		files = append(files, vectorFile{first: first, model: t.Model, dims: t.Dims, n: n, table: ct, block: b})
	}
	return files, nil
}

// vectorSources returns what the vector leg scans: the blocks of the
// snapshot's vector table (unchecked until read), and the records of
// every file they do not hold (dirty ones, ones left out of the table, or
// every file without a table). Entries are slices of the index file's
// memory map, valid until tx ends.
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
	files, err := v.tableBlocks()
	if err != nil {
		return nil, err
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
