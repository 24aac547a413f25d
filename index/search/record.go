// Package search finds chunks: BM25 over the chunks' finder snippets,
// exact vector scan over their embeddings, symbol lookup and regular
// expressions over the files' text, fused into one ranked list.
//
// Its data lives in the store in two layers (see store/search.go): per-file
// records written by the indexer's workers with each file, and a snapshot
// (postings, documents, paths) rebuilt from them. Queries read the snapshot
// for files unchanged since it was built and the per-file records for the
// rest, so results are always current.
package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/terms"
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

// ChunkTerms is the weighted term counts of one chunk, their sum, and the
// chunk's kind and source type (for filters).
type ChunkTerms struct {
	Len     int
	Kind    string
	SrcType string
	Terms   map[string]int
}

// Analyze computes the weighted terms of a chunk whose artifact is text.
func Analyze(tok *terms.Tokenizer, c *store.Chunk, text string) ChunkTerms {
	ct := ChunkTerms{Kind: c.Kind, SrcType: c.SourceType, Terms: make(map[string]int, 64)}
	add := func(s string, w int) {
		if w == 0 {
			return
		}
		tok.Each(s, func(term string) {
			ct.Terms[term] += w
			ct.Len += w
		})
	}
	for line := range strings.SplitSeq(c.Finder, "\n") {
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
	return ct
}

// Record versions; a record of another version is read as missing.
const (
	searchMagic = 'S'
	vectorMagic = 'V'
	version     = 1
)

// EncodeTerms encodes a file's chunk terms as a search record.
func EncodeTerms(chunks []ChunkTerms) []byte {
	b := []byte{searchMagic, version}
	b = binary.AppendUvarint(b, uint64(len(chunks)))
	var keys []string
	for _, c := range chunks {
		b = binary.AppendUvarint(b, uint64(c.Len))
		b = appendString(b, c.Kind)
		b = appendString(b, c.SrcType)
		b = binary.AppendUvarint(b, uint64(len(c.Terms)))
		keys = keys[:0]
		for k := range c.Terms {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = appendString(b, k)
			b = binary.AppendUvarint(b, uint64(c.Terms[k]))
		}
	}
	return s2.Encode(nil, b)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errRecord = errors.New("damaged search record (run `dossier index` to rebuild it)")

// DecodeTerms reads a search record: chunk is called for every chunk in
// order with its length, kind and source type, then term for each of its terms (term is only
// valid during the call). A record of another version reads as empty.
func DecodeTerms(rec []byte, chunk func(ordinal, length int, kind, srcType string), term func(ordinal int, term []byte, tf int)) error {
	raw, err := s2.Decode(nil, rec)
	if err != nil || len(raw) < 2 || raw[0] != searchMagic {
		return errRecord
	}
	if raw[1] != version {
		return nil
	}
	r := reader{b: raw[2:]}
	n := r.uvarint()
	for i := 0; i < n && r.err == nil; i++ {
		length := r.uvarint()
		kind := string(r.bytes(r.uvarint()))
		src := string(r.bytes(r.uvarint()))
		count := r.uvarint()
		if r.err != nil {
			break
		}
		chunk(i, length, kind, src)
		for j := 0; j < count && r.err == nil; j++ {
			t := r.bytes(r.uvarint())
			tf := r.uvarint()
			if r.err == nil {
				term(i, t, tf)
			}
		}
	}
	return r.err
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

// VectorSet is a file's vectors: int8 components with a scale each.
type VectorSet struct {
	Model string
	Dims  int
	rec   []byte // the whole record
	data  []byte // n × (4-byte scale + dims bytes)
}

// vectorHeader is magic, version, dims (uint16), model length, model, count (uint32).
func vectorHeader(model string, dims, n int) []byte {
	b := []byte{vectorMagic, version, 0, 0, byte(len(model))}
	binary.LittleEndian.PutUint16(b[2:], uint16(dims))
	b = append(b, model...)
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}

// EncodeVectors encodes unit vectors as a vector record.
func EncodeVectors(model string, dims int, vs [][]float32) ([]byte, error) {
	if dims <= 0 || dims > math.MaxUint16 || len(model) > 255 {
		return nil, fmt.Errorf("vectors: bad model %q or dims %d", model, dims)
	}
	b := vectorHeader(model, dims, len(vs))
	q := make([]int8, 0, dims)
	for i, v := range vs {
		if len(v) != dims {
			return nil, fmt.Errorf("vector %d has %d dimensions, want %d", i, len(v), dims)
		}
		var scale float32
		q, scale = embed.Quantize(q[:0], v)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scale))
		for _, x := range q {
			b = append(b, byte(x))
		}
	}
	return b, nil
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
	vs := VectorSet{Model: string(rec[5 : 5+ml]), Dims: dims, rec: rec}
	n := int(binary.LittleEndian.Uint32(rec[5+ml:]))
	vs.data = rec[5+ml+4:]
	if len(vs.data) != n*(4+dims) {
		return VectorSet{}, errRecord
	}
	return vs, nil
}

// Len is the number of vectors.
func (v VectorSet) Len() int { return len(v.data) / (4 + v.Dims) }

// At returns vector i's scale and components.
func (v VectorSet) At(i int) (float32, []byte) {
	off := i * (4 + v.Dims)
	scale := math.Float32frombits(binary.LittleEndian.Uint32(v.data[off:]))
	return scale, v.data[off+4 : off+4+v.Dims]
}
