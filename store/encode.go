package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/s2"
)

// Encoded is a FileUpdate turned into the bytes the store writes. Encoding
// is the expensive part of a write, so indexers do it in parallel and hand
// the writer only Puts.
type Encoded struct {
	path    string
	file    []byte
	stat    File // path, size, mtime and hash, for the stat table
	chunks  []byte
	blob    []byte
	imports []byte
	// symNames lists the names of the symbols with spans of their own
	// (bucketSymNames); nil when there are none.
	symNames []byte
	syms     [][2][]byte
	search   []byte
	vectors  []byte
	// framework is FileUpdate.Framework (bucketFramework).
	framework []byte
}

// Path is the file the encoding is for.
func (e *Encoded) Path() string { return e.path }

// Encode prepares u for Tx.Put.
func Encode(u FileUpdate) (*Encoded, error) {
	e := &Encoded{path: u.File.Path, stat: File{Path: u.File.Path, Size: u.File.Size, ModTime: u.File.ModTime, Hash: u.File.Hash}}
	var err error
	if e.file, err = json.Marshal(u.File); err != nil {
		return nil, fmt.Errorf("encode file %s: %w", u.File.Path, err)
	}
	chunks, err := json.Marshal(u.Chunks)
	if err != nil {
		return nil, fmt.Errorf("encode chunks of %s: %w", u.File.Path, err)
	}
	// Chunk lists and texts are compressed: JSON repeats its keys and
	// source code is redundant, and smaller values are cheaper to write.
	e.chunks = compressSealed(chunks)
	e.blob = encodeBlob(u.Blob)
	if len(u.Imports) > 0 {
		if e.imports, err = json.Marshal(u.Imports); err != nil {
			return nil, err
		}
	}
	if u.Search != nil {
		e.search = seal(u.Search)
	}
	if u.Vectors != nil {
		e.vectors = seal(u.Vectors)
	}
	e.framework = u.Framework
	var names []string
	for _, s := range u.Symbols {
		v, err := json.Marshal(symbolValue{Name: s.Name, Kind: s.Kind, Signature: s.Signature, Parent: s.Parent, Line: s.Line,
			Ordinal: s.Ordinal, EndLine: s.EndLine, StartByte: s.StartByte, EndByte: s.EndByte})
		if err != nil {
			return nil, err
		}
		k := symbolKey(s.Name, s.Path, s.ChunkID)
		if s.HasSpan() {
			// Names that differ only in case may share a declaration
			// (`var x, X int`), so the exact name joins the start byte.
			k = append(append(append(append(k, 0), strconv.Itoa(s.StartByte)...), ' '), s.Name...)
			names = append(names, strings.ToLower(s.Name))
		}
		e.syms = append(e.syms, [2][]byte{k, v})
	}
	if len(names) > 0 {
		slices.Sort(names)
		e.symNames = []byte(strings.Join(slices.Compact(names), "\x00"))
	}
	return e, nil
}

// scratch holds compression buffers: s2 needs room for its worst case
// (more than the input), and an encoded file waits in its batch until the
// commit, so compressing into a buffer of that size and keeping it held a
// full index's batches at three times their size, and cleared it first.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// compressSealed is src compressed and sealed, in a slice of its own
// length.
func compressSealed(src []byte) []byte {
	buf := scratch.Get().(*[]byte)
	defer scratch.Put(buf)
	if n := s2.MaxEncodedLen(len(src)); cap(*buf) < n {
		*buf = make([]byte, n)
	}
	enc := s2.Encode((*buf)[:cap(*buf)], src)
	return sealed(append(make([]byte, 0, len(enc)+sumSize), enc...))
}

func symbolKey(name, path, id string) []byte { return key(strings.ToLower(name), path, id) }

// deleteSymbols removes the symbols of path named name (lower-cased),
// whatever their chunk: the keys that start with name \x00 path \x00.
func (t *Tx) deleteSymbols(name, path string) error {
	b := t.b(bucketSymbols)
	p := key(name, path, "")
	c := b.Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Seek(p) {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// symbolValue is a Symbol less what its key already holds (path, chunk id).
type symbolValue struct {
	Name      string `json:"n"`
	Kind      string `json:"k"`
	Signature string `json:"s,omitempty"`
	Parent    string `json:"p,omitempty"`
	Line      int    `json:"l"`
	Ordinal   int    `json:"o"`
	EndLine   int    `json:"e,omitempty"`
	StartByte int    `json:"sb,omitempty"`
	EndByte   int    `json:"eb,omitempty"`
}

// decodeSymbol rebuilds a Symbol from a key and value of bucketSymbols.
func decodeSymbol(k, v []byte) (Symbol, error) {
	var sv symbolValue
	if err := json.Unmarshal(v, &sv); err != nil {
		return Symbol{}, fmt.Errorf("decode symbol %q: %w", k, err)
	}
	parts := bytes.SplitN(k, []byte{0}, 4)
	if len(parts) < 3 {
		return Symbol{}, fmt.Errorf("decode symbol: malformed key %q", k)
	}
	return Symbol{Name: sv.Name, Kind: sv.Kind, Signature: sv.Signature, Parent: sv.Parent, Line: sv.Line,
		Ordinal: sv.Ordinal, Path: string(parts[1]), ChunkID: string(parts[2]),
		EndLine: sv.EndLine, StartByte: sv.StartByte, EndByte: sv.EndByte}, nil
}

// decompress reads a compressed value; the result is a fresh slice.
func decompress(v []byte) ([]byte, error) {
	out, err := s2.Decode(nil, v)
	if err != nil {
		return nil, fmt.Errorf("decompress: %w (the index is damaged: delete .dossier/index.db and run `dossier index`)", err)
	}
	return out, nil
}

// Put replaces whatever was derived from e's file with e.
func (t *Tx) Put(e *Encoded) error {
	if err := t.DeleteFile(e.path); err != nil {
		return err
	}
	p := []byte(e.path)
	if err := t.b(bucketChunks).Put(p, e.chunks); err != nil {
		return err
	}
	if err := t.b(bucketBlobs).Put(p, e.blob); err != nil {
		return err
	}
	if err := t.addPathID(e.path); err != nil {
		return err
	}
	syms := t.b(bucketSymbols)
	for _, kv := range e.syms {
		if err := syms.Put(kv[0], kv[1]); err != nil {
			return err
		}
	}
	for _, r := range []struct {
		bucket []byte
		v      []byte
	}{{bucketImports, e.imports}, {bucketSymNames, e.symNames}, {bucketSearch, e.search}, {bucketVectors, e.vectors}, {bucketFramework, e.framework}} {
		if r.v != nil {
			if err := t.b(r.bucket).Put(p, r.v); err != nil {
				return err
			}
		}
	}
	if err := t.markDirty(e.path); err != nil {
		return err
	}
	if err := t.putFileStat(e.stat); err != nil {
		return err
	}
	return t.b(bucketFiles).Put(p, e.file)
}

// ReplaceFile encodes and writes u in one step (for callers that write few files).
func (t *Tx) ReplaceFile(u FileUpdate) error {
	e, err := Encode(u)
	if err != nil {
		return err
	}
	return t.Put(e)
}

// PathHash is the first 40 bits of sha256(path) in hex: the prefix of every
// chunk id of that file.
func PathHash(path string) string {
	h := sha256.Sum256([]byte(path))
	return hex.EncodeToString(h[:5])
}

func (t *Tx) addPathID(path string) error {
	b := t.b(bucketPathIDs)
	k := []byte(PathHash(path))
	paths := splitPaths(b.Get(k))
	for _, p := range paths {
		if p == path {
			return nil
		}
	}
	return b.Put(k, []byte(strings.Join(append(paths, path), "\x00")))
}

func (t *Tx) removePathID(path string) error {
	b := t.b(bucketPathIDs)
	k := []byte(PathHash(path))
	var keep []string
	for _, p := range splitPaths(b.Get(k)) {
		if p != path {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return b.Delete(k)
	}
	return b.Put(k, []byte(strings.Join(keep, "\x00")))
}

func splitPaths(v []byte) []string {
	if len(v) == 0 {
		return nil
	}
	return strings.Split(string(v), "\x00")
}
