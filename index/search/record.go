package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// Field weights: a term in the symbol's name counts three times, in its
// signature, enclosing symbols or section names twice, anywhere else once.
const (
	weightSymbol = 3
	weightHeader = 2
	weightBody   = 1
)

// finderWeights weighs the labelled lines of a chunk's finder header.
var finderWeights = map[string]int{
	"symbol": weightSymbol, "signature": weightHeader, "path": weightBody, "doc": weightBody,
	"kind": 0, "language": 0,
}

// Meta is what a search result shows of a chunk.
type Meta struct {
	ID                 string
	Kind               string
	SrcType            string
	Language           string
	Flavor             string
	Symbol             string // qualified with its parents: Type.Method
	StartLine, EndLine int
	StartByte, EndByte int
	Outline            bool   // the chunk's text is a synthesized outline, not a span
	Secrets            bool   // the chunk holds a secret: lines shown of it are masked
	Line               string // first non-blank line, clipped, secrets masked
	// Hash is the head of the content hash: chunks with equal ones hold
	// identical text. Sig is the min-hash signature of the text's
	// skeleton, for near-duplicates (see similar.go); nil for a chunk too
	// short to compare.
	Hash uint64
	Sig  []byte
}

// IsTest reports whether the chunk is test code.
func (m *Meta) IsTest() bool { return m.SrcType == "test" || m.Flavor == "test" }

// MetaOf derives a chunk's Meta; text is its artifact.
func MetaOf(c *store.Chunk, text string) Meta {
	symbol := qualifiedSymbol(c)
	if len(c.Secrets) > 0 {
		// Redacted, not masked: no character of a secret is kept in the
		// index's tables (a shared store would hold them).
		text = secrets.Redact(text, secrets.OfChunk(c))
		// A heading is a section's symbol (a commit's subject in a
		// history file): a secret in it is shown redacted too.
		symbol, _ = secrets.RedactString("", symbol)
	}
	return Meta{ID: c.ID, Kind: c.Kind, SrcType: c.SourceType, Language: c.Language, Flavor: c.Flavor,
		Symbol: symbol, StartLine: c.StartLine, EndLine: c.EndLine, StartByte: c.StartByte,
		EndByte: c.EndByte, Outline: c.Outline != "", Secrets: len(c.Secrets) > 0, Line: firstLine(text),
		Hash: contentHash(c.Hash), Sig: signature(text)}
}

func qualifiedSymbol(c *store.Chunk) string {
	if c.Symbol == "" {
		return ""
	}
	if len(c.Parents) == 0 {
		return c.Symbol
	}
	return strings.Join(c.Parents, ".") + "." + c.Symbol
}

// firstLine is the first non-blank line of text, clipped.
func firstLine(text string) string {
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if s := strings.TrimSpace(line); s != "" {
			return clip(s, 160)
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// ChunkTerms is one chunk's metadata, weighted term counts and their sum.
type ChunkTerms struct {
	Meta  Meta
	Len   int
	Terms map[string]int
}

// analyzeInto computes the weighted terms of a chunk whose artifact is
// text into ct, whose Terms map is cleared and reused.
func analyzeInto(ct *ChunkTerms, tok *terms.Tokenizer, c *store.Chunk, text string) {
	ct.Meta, ct.Len = MetaOf(c, text), 0
	clear(ct.Terms)
	add := func(s string, w int) {
		if w == 0 {
			return
		}
		tok.Each(s, func(term string) {
			ct.Terms[term] += w
			ct.Len += w
		})
	}
	finder := c.Finder
	if len(c.Secrets) > 0 {
		// A secret's text is never a term: the postings would hold it (and
		// a shared store would send them to its server). Its hash is, so
		// a search for a leaked key still finds it.
		found := secrets.OfChunk(c)
		for _, f := range found {
			if f.Start >= 0 && f.End <= len(text) && f.Start < f.End {
				ct.Terms[secrets.Term(text[f.Start:f.End])] += weightBody
				ct.Len += weightBody
			}
		}
		text = secrets.Redact(text, found)
	}
	// The finder holds more than the chunk (a section's finder quotes the
	// section before it), so its secrets are its own to find.
	finder, _ = secrets.RedactString("", finder)
	for line := range strings.SplitSeq(finder, "\n") {
		label, value, ok := strings.Cut(line, ": ")
		if !ok {
			add(line, weightBody)
			continue
		}
		w, known := finderWeights[label]
		if !known {
			w = weightHeader // section, key, tests, title ...
		}
		add(value, w)
	}
	add(text, weightBody)
}

// Record versions; a record of another version is read as damaged, and the
// schema version of the store changes with it, so an index of an older
// dossier is rebuilt before it is read.
const (
	searchMagic = 'S'
	vectorMagic = 'V'
	version     = 5 // 4: chunk metadata holds the content hash and the near-duplicate signature; 5: no term of a secret
)

// EncodeTerms encodes a file's chunks as a search record; mtime is the
// file's modification time (Unix nanoseconds), for recency.
func EncodeTerms(mtime int64, chunks []ChunkTerms) []byte {
	var w RecordWriter
	w.Begin(mtime, len(chunks))
	for i := range chunks {
		w.appendChunk(&chunks[i])
	}
	return w.Record()
}

// RecordWriter builds a file's search record chunk by chunk in buffers it
// keeps from file to file; use one per goroutine.
type RecordWriter struct {
	buf  []byte
	zbuf []byte // room to compress buf into
	keys []string
	ct   ChunkTerms
}

// Begin starts the record of a file of n chunks modified at mtime (Unix
// nanoseconds, for recency).
func (w *RecordWriter) Begin(mtime int64, n int) {
	w.buf = append(w.buf[:0], searchMagic, version)
	w.buf = binary.AppendVarint(w.buf, mtime)
	w.buf = binary.AppendUvarint(w.buf, uint64(n))
}

// Add analyses the next chunk, whose artifact is text, and appends it. The
// terms it returns are valid until the next Add.
func (w *RecordWriter) Add(tok *terms.Tokenizer, c *store.Chunk, text string) *ChunkTerms {
	if w.ct.Terms == nil {
		w.ct.Terms = make(map[string]int, 256)
	}
	analyzeInto(&w.ct, tok, c, text)
	w.appendChunk(&w.ct)
	return &w.ct
}

func (w *RecordWriter) appendChunk(c *ChunkTerms) {
	w.buf = appendMeta(w.buf, &c.Meta)
	w.buf = binary.AppendUvarint(w.buf, uint64(c.Len))
	w.buf = binary.AppendUvarint(w.buf, uint64(len(c.Terms)))
	w.keys = w.keys[:0]
	for k := range c.Terms {
		w.keys = append(w.keys, k)
	}
	slices.Sort(w.keys) // deterministic records
	for _, k := range w.keys {
		w.buf = appendString(w.buf, k)
		w.buf = binary.AppendUvarint(w.buf, uint64(c.Terms[k]))
	}
}

// Record returns the finished record, compressed, in a slice of its own
// length: it waits in a batch until the commit, and the room compression
// needs is more than the record.
func (w *RecordWriter) Record() []byte {
	if n := s2.MaxEncodedLen(len(w.buf)); cap(w.zbuf) < n {
		w.zbuf = make([]byte, n)
	}
	return slices.Clone(s2.Encode(w.zbuf[:cap(w.zbuf)], w.buf))
}

func appendMeta(b []byte, m *Meta) []byte {
	for _, s := range []string{m.ID, m.Kind, m.SrcType, m.Language, m.Flavor, m.Symbol, m.Line} {
		b = appendString(b, s)
	}
	for _, n := range []int{m.StartLine, m.EndLine, m.StartByte, m.EndByte} {
		b = binary.AppendUvarint(b, uint64(max(n, 0)))
	}
	flags := byte(0)
	if m.Outline {
		flags |= 1
	}
	if m.Secrets {
		flags |= 2
	}
	b = binary.BigEndian.AppendUint64(append(b, flags), m.Hash)
	return appendString(b, string(m.Sig))
}

func (r *reader) meta(m *Meta) {
	for _, s := range []*string{&m.ID, &m.Kind, &m.SrcType, &m.Language, &m.Flavor, &m.Symbol, &m.Line} {
		*s = string(r.bytes(r.uvarint()))
	}
	for _, n := range []*int{&m.StartLine, &m.EndLine, &m.StartByte, &m.EndByte} {
		*n = r.uvarint()
	}
	f := r.bytes(1)
	m.Outline = len(f) == 1 && f[0]&1 != 0
	m.Secrets = len(f) == 1 && f[0]&2 != 0
	if h := r.bytes(8); len(h) == 8 {
		m.Hash = binary.BigEndian.Uint64(h)
	}
	m.Sig = nil
	if sig := r.bytes(r.uvarint()); len(sig) > 0 {
		m.Sig = append([]byte(nil), sig...)
	}
}

// skipMeta reads past what meta decodes.
func (r *reader) skipMeta() {
	for range 7 { // the strings
		r.bytes(r.uvarint())
	}
	for range 4 { // the lines and bytes
		r.uvarint()
	}
	r.bytes(1 + 8) // the flags, the hash
	r.bytes(r.uvarint())
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errRecord = errors.New("damaged search record (run `dossier index` to rebuild it)")

// FileRecord is a decoded search record's header and chunk metadata.
type FileRecord struct {
	ModTime int64
	Metas   []Meta
	Lens    []int
}

// DecodeTerms reads a search record. chunk is called for every chunk in
// order with its metadata and length, then term for each of its terms (the
// term bytes are only valid during the call); either may be nil.
func DecodeTerms(rec []byte, chunk func(ord, length int, m *Meta), term func(ord int, term []byte, tf int)) (mtime int64, err error) {
	return decodeTerms(nil, rec, true, chunk, term)
}

// decodeTerms is DecodeTerms decompressing into buf when it is large
// enough; without meta, the metadata is skipped, not decoded, and chunk
// gets nil (the postings need the chunks' lengths only).
func decodeTerms(buf, rec []byte, meta bool, chunk func(ord, length int, m *Meta), term func(ord int, term []byte, tf int)) (mtime int64, err error) {
	raw, err := s2.Decode(buf[:cap(buf)], rec)
	if err != nil || len(raw) < 2 || raw[0] != searchMagic || raw[1] != version {
		return 0, errRecord
	}
	r := reader{b: raw[2:]}
	mtime = r.varint()
	n := r.uvarint()
	var m *Meta
	if meta {
		m = &Meta{}
	}
	for i := 0; i < n && r.err == nil; i++ {
		if m != nil {
			r.meta(m)
		} else {
			r.skipMeta()
		}
		length := r.uvarint()
		count := r.uvarint()
		if r.err != nil {
			break
		}
		if chunk != nil {
			chunk(i, length, m)
		}
		for j := 0; j < count && r.err == nil; j++ {
			t := r.bytes(r.uvarint())
			tf := r.uvarint()
			if r.err == nil && term != nil {
				term(i, t, tf)
			}
		}
	}
	return mtime, r.err
}

// WithModTime returns rec with its file's modification time replaced by
// mtime (a file touched without a change of content).
func WithModTime(rec []byte, mtime int64) ([]byte, error) {
	raw, err := s2.Decode(nil, rec)
	if err != nil || len(raw) < 2 || raw[0] != searchMagic || raw[1] != version {
		return nil, errRecord
	}
	r := reader{b: raw[2:]}
	r.varint()
	if r.err != nil {
		return nil, errRecord
	}
	out := append([]byte{searchMagic, version}, binary.AppendVarint(nil, mtime)...)
	return s2.Encode(nil, append(out, r.b[r.pos:]...)), nil
}

// DecodeRecord reads a search record's header and chunk metadata.
func DecodeRecord(rec []byte) (*FileRecord, error) {
	fr := &FileRecord{}
	mtime, err := DecodeTerms(rec, func(_, length int, m *Meta) {
		fr.Metas = append(fr.Metas, *m)
		fr.Lens = append(fr.Lens, length)
	}, nil)
	if err != nil {
		return nil, err
	}
	fr.ModTime = mtime
	return fr, nil
}

// reader decodes uvarints and byte strings, remembering the first error.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) uvarint() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 || v > math.MaxInt32 {
		r.err = errRecord
		return 0
	}
	r.pos += n
	return int(v)
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.pos:])
	if n <= 0 {
		r.err = errRecord
		return 0
	}
	r.pos += n
	return v
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if r.pos+n > len(r.b) {
		r.err = errRecord
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

// VectorSet is a file's vectors as the store keeps them (see
// vecindex.Encode): an entry per vector, then their residuals.
type VectorSet struct {
	Model   string
	Dims    int
	n       int
	entries []byte
	resid   []byte
}

// vectorHeader is magic, version, dims (uint16), model length, model, count (uint32).
func vectorHeader(model string, dims, n int) []byte {
	b := []byte{vectorMagic, version, 0, 0, byte(len(model))}
	binary.LittleEndian.PutUint16(b[2:], uint16(dims))
	b = append(b, model...)
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}

// VectorWriter builds a file's vector record vector by vector in buffers
// it keeps from file to file; use one per goroutine.
type VectorWriter struct {
	model          string
	dims, n        int
	entries, resid []byte
}

// Begin starts a record of dims-dimensional vectors from model.
func (w *VectorWriter) Begin(model string, dims int) error {
	if dims <= 0 || dims > math.MaxUint16 || len(model) > 255 {
		return fmt.Errorf("vectors: bad model %q or dims %d", model, dims)
	}
	w.model, w.dims, w.n = model, dims, 0
	w.entries, w.resid = w.entries[:0], w.resid[:0]
	return nil
}

// Add appends v (of the record's length), normalized.
func (w *VectorWriter) Add(v []float32) {
	w.entries, w.resid = vecindex.Encode(w.entries, w.resid, v)
	w.n++
}

// Record returns the finished record in a slice of its own.
func (w *VectorWriter) Record() []byte {
	h := vectorHeader(w.model, w.dims, w.n)
	b := make([]byte, 0, len(h)+len(w.entries)+len(w.resid))
	return append(append(append(b, h...), w.entries...), w.resid...)
}

// DecodeVectors reads a vector record without copying it.
func DecodeVectors(rec []byte) (VectorSet, error) {
	if len(rec) < 5 || rec[0] != vectorMagic || rec[1] != version {
		return VectorSet{}, errRecord
	}
	dims := int(binary.LittleEndian.Uint16(rec[2:]))
	ml := int(rec[4])
	if len(rec) < 5+ml+4 || dims == 0 {
		return VectorSet{}, errRecord
	}
	vs := VectorSet{Model: string(rec[5 : 5+ml]), Dims: dims}
	vs.n = int(binary.LittleEndian.Uint32(rec[5+ml:]))
	data := rec[5+ml+4:]
	size := vecindex.EntrySize(dims)
	if len(data) != vs.n*(size+dims) {
		return VectorSet{}, errRecord
	}
	vs.entries, vs.resid = data[:vs.n*size], data[vs.n*size:]
	return vs, nil
}

// Len is the number of vectors.
func (v VectorSet) Len() int { return v.n }

// Entry returns vector i's entry, for vecindex.Query.Estimate.
func (v VectorSet) Entry(i int) []byte {
	size := vecindex.EntrySize(v.Dims)
	return v.entries[i*size : (i+1)*size]
}

// Resid returns vector i's residuals, for vecindex.Query.Refine.
func (v VectorSet) Resid(i int) []byte { return v.resid[i*v.Dims : (i+1)*v.Dims] }

// EncodeStoredVectors assembles a vector record from vectors already in
// their stored form, each an entry followed by its residuals, as
// vecindex.Encode appends them (the form the embedding cache keeps).
func EncodeStoredVectors(model string, dims int, stored [][]byte) ([]byte, error) {
	if dims <= 0 || dims > math.MaxUint16 || len(model) > 255 {
		return nil, fmt.Errorf("vectors: bad model %q or dims %d", model, dims)
	}
	size := vecindex.EntrySize(dims)
	b := vectorHeader(model, dims, len(stored))
	for i, s := range stored {
		if len(s) != size+dims {
			return nil, fmt.Errorf("stored vector %d has %d bytes, want %d for %d dimensions", i, len(s), size+dims, dims)
		}
		b = append(b, s[:size]...)
	}
	for _, s := range stored {
		b = append(b, s[size:]...)
	}
	return b, nil
}
