package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Tx is a transaction on the index. Records are handed out decoded or
// copied, except the raw values of the search and vector layers
// (SearchRecord, VectorRecord, SnapshotValue, Postings, RawBlob(s),
// Embedding), which point into the index file and are valid only until the
// transaction ends: callers copy what they keep.
type Tx struct {
	tx *bolt.Tx
	f  *os.File // the file bbolt maps (see readat.go)
	// unfinished: this transaction has set metaUnfinished.
	unfinished bool
	// shared: the workspace reads a shared store's snapshot, layered
	// under tx (see layered.go); tx is then nil without a local index.
	shared *sharedView
}

func (t *Tx) b(name []byte) *bolt.Bucket { return t.tx.Bucket(name) }

// File returns the record of path.
func (t *Tx) File(path string) (File, bool, error) {
	var f File
	ok, err := getJSON(t.r(bucketFiles), []byte(path), &f)
	return f, ok, err
}

// Files calls fn for every file record in path order.
func (t *Tx) Files(fn func(File) error) error {
	return t.r(bucketFiles).ForEach(func(k, v []byte) error {
		var f File
		if err := json.Unmarshal(v, &f); err != nil {
			return undecodable(t.r(bucketFiles), k, err)
		}
		return fn(f)
	})
}

// Chunk returns the chunk with id.
func (t *Tx) Chunk(id string) (Chunk, bool, error) {
	if len(id) < 11 {
		return Chunk{}, false, nil
	}
	for _, path := range splitPaths(t.r(bucketPathIDs).Get([]byte(id[1:11]))) {
		chunks, err := t.FileChunks(path)
		if err != nil {
			return Chunk{}, false, err
		}
		for _, c := range chunks {
			if c.ID == id {
				return c, true, nil
			}
		}
	}
	return Chunk{}, false, nil
}

// FileChunks returns the chunks of one file in source order.
func (t *Tx) FileChunks(path string) ([]Chunk, error) {
	v := t.r(bucketChunks).Get([]byte(path))
	if v == nil {
		return nil, nil
	}
	return t.decodeChunks([]byte(path), v)
}

func (t *Tx) decodeChunks(k, v []byte) ([]Chunk, error) {
	path := string(k)
	v, err := t.unseal(bucketChunks, k, v)
	if err != nil {
		return nil, err
	}
	data, err := decompress(v)
	if err != nil {
		return nil, fmt.Errorf("chunks of %s: %w", path, err)
	}
	var cs []Chunk
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, fmt.Errorf("decode chunks of %s: %w", path, err)
	}
	return cs, nil
}

// Chunks calls fn for every chunk, file by file in path order.
func (t *Tx) Chunks(fn func(Chunk) error) error {
	return t.r(bucketChunks).ForEach(func(k, v []byte) error {
		cs, err := t.decodeChunks(k, v)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// Blob returns the text a file's chunks were cut from; false when the
// index has none. A text that does not decode is damage, raised as
// RawBlob raises a failed checksum (see mustUnseal): re-indexing would not
// rewrite an unchanged file, a writer that finds the note does.
func (t *Tx) Blob(path string) ([]byte, bool) {
	v := t.RawBlob(path)
	if v == nil {
		return nil, false
	}
	data, err := DecodeBlob(v)
	if err != nil {
		panic(damaged(t.where(), "text of %s: %v", path, err))
	}
	return data, true
}

// Artifact returns the exact text of c as it goes into a prompt.
func (t *Tx) Artifact(c Chunk) (string, error) {
	if c.Outline != "" {
		return c.Outline, nil
	}
	v, ok := t.Blob(c.Path)
	if !ok || c.EndByte > len(v) || c.StartByte > c.EndByte {
		return "", fmt.Errorf("chunk %s: text of %s missing from the index: run `dossier index` again", c.ID, c.Path)
	}
	return string(v[c.StartByte:c.EndByte]), nil
}

// SymbolsWithPrefix calls fn for every symbol whose lower-cased name starts
// with prefix (lower-cased here), in name order. fn returns false to stop.
func (t *Tx) SymbolsWithPrefix(prefix string, fn func(Symbol) bool) error {
	return t.symbolsFrom(strings.ToLower(prefix), strings.ToLower(prefix), fn)
}

// SpanSymbols returns the symbols of path that the selector name sel names
// (see Symbol.Named) and that have spans of their own inside their chunks:
// the constants, fields and property functions a chunk does not name.
func (t *Tx) SpanSymbols(path, sel string) ([]Symbol, error) {
	name := sel[strings.LastIndexByte(sel, '.')+1:]
	var out []Symbol
	p := string(key(strings.ToLower(name), path, ""))
	err := t.symbolsFrom(p, p, func(s Symbol) bool {
		if s.HasSpan() && s.Named(sel) {
			out = append(out, s)
		}
		return true
	})
	return out, err
}

// FileSymbolNames returns the lower-cased names of path's symbols, as
// DeleteFile finds them: its chunks' and those with spans of their own
// (see bucketSymNames). A name may come more than once.
func (t *Tx) FileSymbolNames(path string) ([]string, error) {
	chunks, err := t.FileChunks(path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range chunks {
		if c.Symbol != "" {
			names = append(names, strings.ToLower(c.Symbol))
		}
	}
	if v := t.r(bucketSymNames).Get([]byte(path)); v != nil {
		names = append(names, strings.Split(string(v), "\x00")...)
	}
	return names, nil
}

// FileSymbols returns every symbol of path: those under each name
// FileSymbolNames gives, in name and chunk order.
func (t *Tx) FileSymbols(path string) ([]Symbol, error) {
	names, err := t.FileSymbolNames(path)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Symbol
	for _, name := range slices.Compact(names) {
		p := string(key(name, path, ""))
		err := t.symbolsFrom(p, p, func(s Symbol) bool {
			out = append(out, s)
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SymbolsLongerThan calls fn, as SymbolsWithPrefix, with the symbols whose
// name starts with prefix and is longer than it: the prefix matches that
// are not exact ones, without visiting those.
func (t *Tx) SymbolsLongerThan(prefix string, fn func(Symbol) bool) error {
	p := strings.ToLower(prefix)
	// Keys are name \x00 ...: every exact match sorts before p+"\x01".
	return t.symbolsFrom(p, p+"\x01", fn)
}

func (t *Tx) symbolsFrom(prefix, from string, fn func(Symbol) bool) error {
	p := []byte(prefix)
	c := t.r(bucketSymbols).Cursor()
	// An exact-name lookup passes "name\x00"; a prefix passes the prefix.
	for k, v := c.Seek([]byte(from)); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		s, err := decodeSymbol(k, v)
		if err != nil {
			return undecodable(t.r(bucketSymbols), k, err)
		}
		if !fn(s) {
			return nil
		}
	}
	return nil
}

// Imports returns the import specs of path as written in the source.
func (t *Tx) Imports(path string) ([]string, error) {
	var imps []string
	_, err := getJSON(t.r(bucketImports), []byte(path), &imps)
	return imps, err
}

// TestLinks returns the paths linked to path and their role relative to it:
// "test" for a test of path, "subject" for the file path tests.
func (t *Tx) TestLinks(path string) map[string]string {
	links := map[string]string{}
	prefix := key(path, "")
	c := t.r(bucketTestLinks).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		links[string(k[len(prefix):])] = string(v)
	}
	return links
}

// ReplaceTestLinks swaps the whole link table for links (path -> linked path -> role).
func (t *Tx) ReplaceTestLinks(links map[string]map[string]string) error {
	if err := t.tx.DeleteBucket(bucketTestLinks); err != nil {
		return err
	}
	b, err := t.tx.CreateBucket(bucketTestLinks)
	if err != nil {
		return err
	}
	for p, m := range links {
		for o, role := range m {
			if err := b.Put(key(p, o), []byte(role)); err != nil {
				return err
			}
		}
	}
	return nil
}

// TouchFile records a new size and modification time for path, whose
// content is unchanged: everything else of its record is kept. search
// rewrites the file's search record for the new time (it carries the time
// for recency); the file is then read from that record until the next
// snapshot. It returns the record before and after; ok is false when path
// is not indexed (nothing is written).
func (t *Tx) TouchFile(path string, size, mtime int64, search func(rec []byte) ([]byte, error)) (old, cur File, ok bool, err error) {
	if old, ok, err = t.File(path); err != nil || !ok {
		return old, cur, ok, err
	}
	cur = old
	cur.Size, cur.ModTime = size, mtime
	if rec := t.SearchRecord(path); rec != nil && search != nil {
		upd, err := search(rec)
		if err != nil {
			return old, cur, ok, fmt.Errorf("search record of %s: %w", path, err)
		}
		if err := t.b(bucketSearch).Put([]byte(path), seal(upd)); err != nil {
			return old, cur, ok, err
		}
		if err := t.markDirty(path); err != nil {
			return old, cur, ok, err
		}
	}
	if err := t.putFileStat(cur); err != nil {
		return old, cur, ok, err
	}
	return old, cur, ok, putJSON(t.b(bucketFiles), []byte(path), cur)
}

// DeleteFile removes path and every record derived from it: chunks, their
// ids and symbols, its text, imports, search and vector records.
func (t *Tx) DeleteFile(path string) error {
	p := []byte(path)
	if t.b(bucketFiles).Get(p) == nil {
		return nil
	}
	chunks, err := t.FileChunks(path)
	if err != nil {
		return err
	}
	if err := t.removePathID(path); err != nil {
		return err
	}
	syms := t.b(bucketSymbols)
	for _, c := range chunks {
		if c.Symbol != "" {
			if err := syms.Delete(symbolKey(c.Symbol, c.Path, c.ID)); err != nil {
				return err
			}
		}
	}
	if names := t.b(bucketSymNames).Get(p); names != nil {
		for _, name := range strings.Split(string(names), "\x00") {
			if err := t.deleteSymbols(name, path); err != nil {
				return err
			}
		}
	}
	for _, b := range [][]byte{bucketChunks, bucketBlobs, bucketImports, bucketSymNames, bucketSearch, bucketVectors, bucketFramework, bucketFiles, bucketFileStat} {
		if err := t.b(b).Delete(p); err != nil {
			return err
		}
	}
	return t.markDirty(path)
}

// SetRepo records the workspace's git facts.
func (t *Tx) SetRepo(r Repo) error { return putJSON(t.b(bucketMeta), metaRepo, r) }

// Repo returns the workspace's git facts.
func (t *Tx) Repo() (Repo, error) {
	var r Repo
	_, err := getJSON(t.r(bucketMeta), metaRepo, &r)
	return r, err
}

// WalkTree returns a copy of the stored walk tree (see metaWalk), or nil.
func (t *Tx) WalkTree() []byte {
	v := t.r(bucketMeta).Get(metaWalk)
	if v == nil {
		return nil
	}
	return append([]byte(nil), v...)
}

// SetWalkTree replaces the stored walk tree; nil removes it.
func (t *Tx) SetWalkTree(tree []byte) error {
	if tree == nil {
		return t.b(bucketMeta).Delete(metaWalk)
	}
	return t.b(bucketMeta).Put(metaWalk, tree)
}

// SetSummary stores the summary of the last index run (any JSON value),
// which accounts for every file record written before it.
func (t *Tx) SetSummary(v any) error {
	if err := t.b(bucketMeta).Delete(metaUnfinished); err != nil {
		return err
	}
	t.unfinished = false
	return putJSON(t.b(bucketMeta), metaSummary, v)
}

// Unfinished reports whether file records were written since the last
// summary was stored (see metaUnfinished): an index run was interrupted,
// or is under way, and the next one completes it.
func (t *Tx) Unfinished() bool { return t.r(bucketMeta).Get(metaUnfinished) != nil }

// Summary decodes the summary of the last index run into v; false if none.
func (t *Tx) Summary(v any) (bool, error) { return getJSON(t.r(bucketMeta), metaSummary, v) }

// Counts returns the number of records per bucket, for stats and tests.
func (t *Tx) Counts() map[string]int {
	out := map[string]int{}
	for _, name := range allBuckets {
		out[string(name)] = t.r(name).KeyN()
	}
	return out
}

// Paths lists every indexed path in order, without decoding records.
func (t *Tx) Paths() []string {
	var out []string
	c := t.r(bucketFileStat).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		out = append(out, string(k))
	}
	return out
}

// FileStats calls fn with the path, size, modification time and hash of
// every indexed file, in path order, from the compact stat table: what a
// re-index compares the walk with, without decoding the file records.
func (t *Tx) FileStats(fn func(File)) error {
	return t.r(bucketFileStat).ForEach(func(k, v []byte) error {
		if len(v) < fileStatSize {
			return undecodable(t.r(bucketFileStat), k, fmt.Errorf("%d bytes, want at least %d", len(v), fileStatSize))
		}
		fn(File{Path: string(k), Size: int64(binary.LittleEndian.Uint64(v)), ModTime: int64(binary.LittleEndian.Uint64(v[8:])), Hash: string(v[fileStatSize:])})
		return nil
	})
}

// fileStatSize is the fixed part of a filestat value: size and mtime.
const fileStatSize = 16

// putFileStat writes f's entry in the stat table.
func (t *Tx) putFileStat(f File) error {
	v := make([]byte, fileStatSize, fileStatSize+len(f.Hash))
	binary.LittleEndian.PutUint64(v, uint64(f.Size))
	binary.LittleEndian.PutUint64(v[8:], uint64(f.ModTime))
	return t.b(bucketFileStat).Put([]byte(f.Path), append(v, f.Hash...))
}
