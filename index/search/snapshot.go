package search

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/dossierhq/dossier/store"
)

// snapVersion is the layout version of the snapshot's tables. A snapshot
// of another version is not read (queries fall back to the per-file
// records) and the next index run rebuilds it (see SnapshotCurrent).
// 4: the path table is NUL-separated (a file name may hold a newline).
// 5: chunk metadata holds the content hash and near-duplicate signature.
// 6: the vector table (vectable.go).
// 7: each chunk metadata entry ends with its own CRC-32C, so a query checks
// the entries it reads, not the whole segments they lie in.
// 8: the document table has a CRC-32C per block of docBlock entries, and
// each posting holds its document's length: a query checks and reads what
// it uses, not every table whole.
// 9: the chunk metadata is one value (metas), not segments of 512: a query
// looks one value up, not one per segment its candidates lie in.
// 10: the vector table by column, so a query reads its components only.
// 11: a metadata entry's CRC-32C covers its document's number too, so an
// intact entry reached through another document's offsets is damage.
// 12: the vector table's residuals by row after the columns, so a scan
// reads components only and a rescore its document's row.
// 13: the symbol names (keyNames), so a fuzzy symbol search reads one
// value, not every key of the symbol map.
const snapVersion = 13

// pathSep separates the path table's entries: the one byte a Unix path
// cannot hold.
const pathSep = "\x00"

// snapMeta is the snapshot's header.
type snapMeta struct {
	Version  int       `json:"version"`
	Docs     int       `json:"docs"`
	Paths    int       `json:"paths"`
	TotalLen int64     `json:"total_len"`
	Kinds    []string  `json:"kinds"`
	SrcTypes []string  `json:"src_types"`
	Built    time.Time `json:"built"`
	Vectors  *vecTable `json:"vectors,omitempty"`
}

// Snapshot keys inside the store's snapshot namespace.
var (
	keyMeta     = []byte("meta")
	keyDocs     = []byte("docs")
	keyPaths    = []byte("paths")
	keyPathInfo = []byte("pathinfo")
	keyDocSums  = []byte("docsums")
	keyMetas    = []byte("metas")
	// keyNames holds every distinct lower-cased symbol name of the index
	// when the snapshot was built, in order, each followed by a NUL byte.
	keyNames = []byte("names")
)

// docBlock is how many document entries one checksum of the document
// table covers (4 KB, a page): a query checks the blocks it reads.
const docBlock = 256

// docSums returns the CRC-32C of each block of the document table.
func docSums(docs []byte) []byte {
	sums := []byte{}
	for at := 0; at < len(docs); at += docBlock * docSize {
		sums = binary.LittleEndian.AppendUint32(sums, crc32.Checksum(docs[at:min(at+docBlock*docSize, len(docs))], castagnoli))
	}
	return sums
}

// docSize is the size of one document entry: path number, ordinal and
// length (uint32 each), kind and source type codes (uint8 each), flags,
// padding.
const docSize = 16

// docTest flags a document that is test code.
const docTest = 1

type doc struct {
	path, ordinal, length uint32
	kind, src, flags      uint8
}

func putDoc(b []byte, d doc) {
	binary.LittleEndian.PutUint32(b, d.path)
	binary.LittleEndian.PutUint32(b[4:], d.ordinal)
	binary.LittleEndian.PutUint32(b[8:], d.length)
	b[12], b[13], b[14] = d.kind, d.src, d.flags
}

func getDoc(docs []byte, i int) doc {
	b := docs[i*docSize : (i+1)*docSize]
	return doc{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:]), b[12], b[13], b[14]}
}

// pathInfoSize is the size of one path entry: first document, number of
// documents (uint32 each) and modification time (int64, Unix ns).
const pathInfoSize = 16

type pathInfo struct {
	first, n uint32
	mtime    int64
}

func getPathInfo(b []byte, i int) pathInfo {
	e := b[i*pathInfoSize:]
	return pathInfo{binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:]), int64(binary.LittleEndian.Uint64(e[8:]))}
}

// Builder accumulates files' search records into a snapshot.
type Builder struct {
	postings map[string]*plist
	lists    []termList // the postings finished (finishPostings); postings is nil then
	docs     []byte
	sums     []byte // the document table's block checksums; Write computes them when nil
	// The chunk metadata table: each document's entry (appendMeta, then
	// its CRC-32C) in metaData, where it starts in metaOffs (uint32s).
	metaOffs, metaData []byte
	paths              []string
	pathInfo           []byte
	totalLen           int64
	files, ndocs       uint32 // added so far (a builder of postings alone has no tables to count them)
	kinds              codes
	srcs               codes
	raw                []byte // decompression buffer, reused from record to record
	// The vector table (see addVectors); vecTable is nil without one.
	vecs     []byte
	vecPaths []byte
	vecTable *vecTable
	// The symbol names (keyNames); nil when not collected (a builder fed
	// by AddFile has no index to read them from), and then not written.
	names []byte
}

// The chunk metadata table (keyMetas) is a uint32 offset per document and
// one past the last, then the entries: a query reads the two offsets and
// the entry of each document it looks at, by copy (see docMeta).

// metaSum is the checksum of document d's metadata entry: the CRC-32C of
// d (4 bytes, little-endian) then the entry, so that an entry is valid only
// for its own document.
func metaSum(d int, entry []byte) uint32 {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(d))
	return crc32.Update(crc32.Checksum(n[:], castagnoli), castagnoli, entry)
}

// plist is one term's postings being built: room for the document
// frequency's uvarint, then (doc delta, tf, document length) uvarint
// triples: BM25 needs the length of every document it scores, and a
// length read from the document table would touch all of it.
type plist struct {
	buf  []byte
	last uint32
	df   uint32
}

// dfRoom is the space kept at the head of a postings list for its
// document frequency, so the finished list is written without a copy.
const dfRoom = binary.MaxVarintLen32

// codes numbers a small set of strings (kinds, source types).
type codes struct {
	names []string
	num   map[string]uint8
}

func (c *codes) code(s string) uint8 {
	if n, ok := c.num[s]; ok {
		return n
	}
	if c.num == nil {
		c.num = map[string]uint8{}
	}
	if len(c.names) == 255 {
		return 255 // "other"; never more than a few dozen in practice
	}
	n := uint8(len(c.names))
	c.names = append(c.names, s)
	c.num[s] = n
	return n
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{postings: make(map[string]*plist, 1<<16)} }

// AddFile adds one file's search record. Files may come in any order.
func (b *Builder) AddFile(path string, rec []byte) error { return b.add(path, rec, true, true) }

// add adds what one file's search record gives the tables (documents,
// chunk metadata, paths) when tables is set and the postings when postings
// is: a builder of the postings alone numbers documents as one of both
// does, so two builders fed the same records in the same order, one of
// each, hold a snapshot between them (see build).
func (b *Builder) add(path string, rec []byte, tables, postings bool) error {
	if strings.Contains(path, pathSep) {
		return fmt.Errorf("search record of %q: a path cannot hold a NUL byte", path)
	}
	pathNum := uint32(b.files)
	first := b.ndocs
	if n, err := s2.DecodedLen(rec); err == nil && n > cap(b.raw) {
		b.raw = make([]byte, n+n/2)
	}
	var docLen uint64 // of the chunk whose terms come next
	chunk := func(ord, length int, m *Meta) {
		docLen = uint64(length)
		b.ndocs++
		if !tables {
			return
		}
		flags := uint8(0)
		if m.IsTest() {
			flags |= docTest
		}
		var e [docSize]byte
		putDoc(e[:], doc{path: pathNum, ordinal: uint32(ord), length: uint32(length),
			kind: b.kinds.code(m.Kind), src: b.srcs.code(m.SrcType), flags: flags})
		b.docs = append(b.docs, e[:]...)
		b.totalLen += int64(length)
		start, d := len(b.metaData), len(b.metaOffs)/4
		b.metaOffs = binary.LittleEndian.AppendUint32(b.metaOffs, uint32(start))
		b.metaData = appendMeta(b.metaData, m)
		b.metaData = binary.LittleEndian.AppendUint32(b.metaData, metaSum(d, b.metaData[start:]))
	}
	var term func(ord int, term []byte, tf int)
	if postings {
		term = func(ord int, term []byte, tf int) {
			d := first + uint32(ord)
			p := b.postings[string(term)]
			if p == nil {
				p = &plist{buf: make([]byte, dfRoom, dfRoom+8)}
				b.postings[string(term)] = p
			}
			p.buf = binary.AppendUvarint(p.buf, uint64(d-p.last))
			p.buf = binary.AppendUvarint(p.buf, uint64(tf))
			p.buf = binary.AppendUvarint(p.buf, docLen)
			p.last = d
			p.df++
		}
	}
	mtime, err := decodeTerms(b.raw, rec, tables, chunk, term)
	if err != nil {
		// The builder is now inconsistent; the caller abandons it.
		return fmt.Errorf("search record of %s: %w", path, err)
	}
	b.files++
	if !tables {
		return nil
	}
	b.paths = append(b.paths, path)
	b.pathInfo = binary.LittleEndian.AppendUint32(b.pathInfo, first)
	b.pathInfo = binary.LittleEndian.AppendUint32(b.pathInfo, b.ndocs-first)
	b.pathInfo = binary.LittleEndian.AppendUint64(b.pathInfo, uint64(mtime))
	return nil
}

// Docs is the number of documents added so far.
func (b *Builder) Docs() int { return int(b.ndocs) }

// txBytes bounds what one staging transaction writes, so the index file
// is never held for long (see Write).
const txBytes = 16 << 20

// txTerms bounds the postings lists one staging transaction writes: a
// large tree has a million terms, and their keys, not their bytes, cost
// most (all of Go's source tree in one transaction held the file for 9 s).
const txTerms = 50_000

// Write stages the snapshot b holds and switches the index to it, in
// short transactions each run by update (which opens the index for that
// transaction alone, so readers get in between): the tables, the postings
// a slice at a time, then the switch, then freeing the old snapshot. The
// caller holds the workspace's writer lock throughout, so no file changes
// between the read b was built from and the switch. b is spent afterwards.
func (b *Builder) Write(update func(func(*store.Tx) error) error) error {
	ctx := context.Background()
	if err := b.writeTables(ctx, update); err != nil {
		return err
	}
	return b.writePostings(ctx, update)
}

// writeTables stages the snapshot's tables, the first part of Write, and
// lets them go as they are committed; a cancelled ctx stops it between
// transactions (the staging slot is cleared by the next rebuild).
func (b *Builder) writeTables(ctx context.Context, update func(func(*store.Tx) error) error) error {
	meta, err := json.Marshal(snapMeta{Version: snapVersion, Docs: b.Docs(), Paths: len(b.paths), TotalLen: b.totalLen,
		Kinds: b.kinds.names, SrcTypes: b.srcs.names, Built: time.Now().UTC(), Vectors: b.vecTable})
	if b.sums == nil {
		b.sums = docSums(b.docs)
	}
	if err != nil {
		return err
	}
	// The metadata table is assembled only when it is staged, and the
	// vector table, the largest, goes last: a transaction allocates as
	// much again as it writes, and each of the builder's copies goes as
	// soon as it is staged, so the largest is staged beside the least.
	var tables []table
	for _, kv := range []struct{ k, v []byte }{
		{keyMeta, meta}, {keyDocs, nonNil(b.docs)}, {keyDocSums, b.sums},
		{keyPaths, []byte(strings.Join(b.paths, pathSep))}, {keyPathInfo, nonNil(b.pathInfo)},
	} {
		tables = append(tables, fixedTable(kv.k, kv.v))
	}
	offs, data := b.metaOffs, b.metaData
	tables = append(tables, table{keyMetas, len(offs) + 4 + len(data), func() []byte {
		t := metaTable(offs, data)
		offs, data = nil, nil
		return t
	}})
	if b.names != nil {
		tables = append(tables, fixedTable(keyNames, b.names))
	}
	tables = append(tables, b.vecTables()...)
	b.names, b.docs, b.metaOffs, b.metaData, b.pathInfo, b.vecs, b.vecPaths = nil, nil, nil, nil, nil, nil, nil
	first := true
	for len(tables) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, size := 0, 0
		for n < len(tables) && (n == 0 || size+tables[n].size <= txBytes) {
			size += tables[n].size
			n++
		}
		part := tables[:n]
		err := update(func(tx *store.Tx) error {
			if first {
				// An interrupted rebuild may have left a half-staged snapshot.
				if err := tx.ClearStaging(); err != nil {
					return err
				}
			}
			return tx.StageSnapshot(func(put func(k, v []byte) error) error {
				for _, t := range part {
					if err := put(t.k, t.v()); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		// Committed: the values are in the file, their memory can go.
		clear(part)
		first, tables = false, tables[n:]
	}
	return nil
}

// table is one value of the snapshot to stage: its key, its size and
// the value, made when it is staged.
type table struct {
	k    []byte
	size int
	v    func() []byte
}

func fixedTable(k, v []byte) table { return table{k, len(v), func() []byte { return v }} }

// writePostings stages the postings lists, the second part of Write,
// then switches the index to the staged snapshot; a cancelled ctx stops it
// before the switch, as it does writeTables.
func (b *Builder) writePostings(ctx context.Context, update func(func(*store.Tx) error) error) error {
	if b.lists == nil {
		b.finishPostings()
	}
	lists := b.lists
	b.lists = nil
	for len(lists) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, size := 0, 0
		for n < len(lists) && (n == 0 || size <= txBytes && n < txTerms) {
			size += len(lists[n].list)
			n++
		}
		part := lists[:n]
		err := update(func(tx *store.Tx) error {
			return tx.StagePostings(func(put func(string, []byte) error) error {
				for _, l := range part {
					if err := put(l.term, l.list); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		// Committed: the lists are on disk, their memory can go.
		clear(part)
		lists = lists[n:]
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := update(func(tx *store.Tx) error { return tx.SwitchSnapshot() }); err != nil {
		return err
	}
	// The old snapshot, now in the staging slot, is freed on its own.
	return update(func(tx *store.Tx) error { return tx.ClearStaging() })
}

// termList is one term's finished postings list.
type termList struct {
	term string
	list []byte // the document frequency, then the postings
}

// finishPostings turns the postings into finished lists in term order,
// the order they are staged in, and lets the map go. Rebuild calls it on
// the goroutine that built them, off the serial end of the rebuild.
func (b *Builder) finishPostings() {
	lists := make([]termList, 0, len(b.postings))
	var df [dfRoom]byte
	for k, p := range b.postings {
		// The document frequency goes right-aligned into the room at the
		// head; each list is its own slice.
		n := binary.PutUvarint(df[:], uint64(p.df))
		start := dfRoom - n
		copy(p.buf[start:], df[:n])
		lists = append(lists, termList{k, p.buf[start:]})
	}
	slices.SortFunc(lists, func(x, y termList) int { return strings.Compare(x.term, y.term) })
	b.lists, b.postings = lists, nil
}

// metaTable returns the chunk metadata table of the entries' offsets offs
// and the entries data, with room for its checksum.
func metaTable(offs, data []byte) []byte {
	t := make([]byte, 0, len(offs)+4+len(data)+4)
	t = append(t, offs...)
	t = binary.LittleEndian.AppendUint32(t, uint32(len(data)))
	return append(t, data...)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// SnapshotCurrent reports whether tx holds a snapshot this version of
// dossier reads; an index run rebuilds any other.
func SnapshotCurrent(tx *store.Tx) bool {
	raw, err := tx.SnapshotValue(keyMeta)
	if err != nil || raw == nil {
		return false
	}
	var m snapMeta
	return json.Unmarshal(raw, &m) == nil && m.Version == snapVersion
}

// RebuildThreshold is the number of files changed since the snapshot past
// which an index run rebuilds it; below it, queries read those files'
// records directly, which costs a little per file.
func RebuildThreshold(files int) int { return max(64, files/50) }
