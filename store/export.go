package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
)

// ExportFile returns path's values as the local file holds them, for a
// shared store (see Publisher): the per-file buckets and the file's pairs
// of the symbols bucket, byte for byte. Blobs hold the raw text: a caller
// publishing a file with secrets masks them first (MaskRows).
func (t *Tx) ExportFile(f File) (FileRows, error) {
	rows := FileRows{RecordKey: RecordKey{Path: f.Path, Hash: f.Hash}, Values: map[string][]byte{}}
	p := []byte(f.Path)
	for _, name := range FileBuckets {
		if v := t.r([]byte(name)).Get(p); v != nil {
			rows.Values[name] = bytes.Clone(v)
		}
	}
	names, err := t.FileSymbolNames(f.Path)
	if err != nil {
		return rows, err
	}
	slices.Sort(names)
	c := t.r(bucketSymbols).Cursor()
	for _, name := range slices.Compact(names) {
		prefix := key(name, f.Path, "")
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			rows.Symbols = append(rows.Symbols, KV{Bucket: BucketSymbols, Key: bytes.Clone(k), Value: bytes.Clone(v)})
		}
	}
	return rows, nil
}

// MaskRows replaces the text and chunks of rows with text and chunks, the
// file's with its secrets masked by the caller (the same length, so every
// byte offset and line number of the chunks still holds).
func MaskRows(rows *FileRows, text []byte, chunks []Chunk) error {
	if old, ok := rows.Values[BucketBlobs]; ok {
		n, err := BlobLen(old)
		if err != nil {
			return err
		}
		if n != len(text) {
			return fmt.Errorf("mask %s: masked text is %d bytes, the stored one %d", rows.Path, len(text), n)
		}
		rows.Values[BucketBlobs] = encodeBlob(text)
	}
	raw, err := json.Marshal(chunks)
	if err != nil {
		return err
	}
	rows.Values[BucketChunks] = compressSealed(raw)
	return nil
}

// ExportSnapshot calls put with the pairs of the per-snapshot buckets
// (SnapshotBuckets), the active search slot published as slot a. Of the
// meta bucket only what readers use is published: the workspace's own
// (its walk tree, generation, unfinished run) stays local.
func (t *Tx) ExportSnapshot(put func(KV) error) error {
	metaKeys := [][]byte{metaSchema, metaSummary, metaRepo, metaVectors}
	for _, k := range metaKeys {
		if v := t.r(bucketMeta).Get(k); v != nil {
			if bytes.Equal(k, metaSummary) || bytes.Equal(k, metaRepo) {
				v = withoutRoot(v)
			}
			if err := put(KV{Bucket: BucketMeta, Key: k, Value: bytes.Clone(v)}); err != nil {
				return err
			}
		}
	}
	if !t.HasSnapshot() {
		return fmt.Errorf("the local index has no search snapshot: run `dossier index` to finish it first")
	}
	if err := put(KV{Bucket: BucketMeta, Key: metaSnapSlot, Value: []byte("a")}); err != nil {
		return err
	}
	pb, sb := t.snapshotSlots(true)
	for _, b := range []struct {
		from []byte
		to   string
	}{{sb, BucketSnapshot}, {pb, BucketPostings}, {bucketTestLinks, BucketTestLinks}, {bucketPathIDs, BucketPathIDs}} {
		err := t.r(b.from).ForEach(func(k, v []byte) error {
			return put(KV{Bucket: b.to, Key: k, Value: v})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// OpenLocal opens the workspace's own index file at path, never the shared
// store it may be linked to: for what publishes it or writes it.
func OpenLocal(path string, opts Options) (*DB, error) {
	return openLocal(context.Background(), path, opts)
}

// withoutRoot drops what is the publishing machine's own from a JSON
// record, at any depth: where the clone lies ("root", "damaged_file"),
// and the credentials a remote URL may carry (https://user:token@host/...,
// as CI clones): nobody else's business, and no reader of a shared
// snapshot may take them for its own.
func withoutRoot(v []byte) []byte {
	var m any
	if json.Unmarshal(v, &m) != nil {
		return v
	}
	out, err := json.Marshal(scrub(m))
	if err != nil {
		return v
	}
	return out
}

func scrub(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "root")
		delete(v, "damaged_file")
		for k, x := range v {
			if s, ok := x.(string); ok && k == "remote" {
				v[k] = withoutUserinfo(s)
				continue
			}
			v[k] = scrub(x)
		}
		return v
	case []any:
		for i := range v {
			v[i] = scrub(v[i])
		}
	}
	return v
}

// withoutUserinfo is a URL without its user and password.
func withoutUserinfo(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// Readable is a value of bucket in the form a person reads it: a blob's
// text and a chunk list's JSON decompressed; other values as they are.
// For a dump of what a shared store holds (its secrets test, `doctor`).
func Readable(bucket string, v []byte) ([]byte, error) {
	switch bucket {
	case BucketBlobs:
		return DecodeBlob(v)
	case BucketChunks:
		if len(v) < sumSize {
			return nil, fmt.Errorf("a chunk list of %d bytes", len(v))
		}
		return decompress(v[:len(v)-sumSize])
	}
	return v, nil
}

// MaskFileHash gives rows the content hash hash (that of the masked
// text, see index.Publish): the hash of a text that holds a secret, with
// the rest of the text known, would let a short secret be guessed and
// checked offline.
func MaskFileHash(rows *FileRows, hash string) error {
	rows.Hash = hash
	if v, ok := rows.Values[BucketFiles]; ok {
		var f File
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("file record of %s: %w", rows.Path, err)
		}
		f.Hash = hash
		raw, err := json.Marshal(f)
		if err != nil {
			return err
		}
		rows.Values[BucketFiles] = raw
	}
	if v, ok := rows.Values[BucketFileStat]; ok && len(v) >= fileStatSize {
		rows.Values[BucketFileStat] = append(bytes.Clone(v[:fileStatSize]), hash...)
	}
	return nil
}

// MaskSymbols applies redact to the signatures of rows' symbols (a
// constant's signature holds its value, which may be a secret).
func MaskSymbols(rows *FileRows, redact func(string) string) error {
	for i, kv := range rows.Symbols {
		var sv symbolValue
		if err := json.Unmarshal(kv.Value, &sv); err != nil {
			return fmt.Errorf("symbol %q of %s: %w", kv.Key, rows.Path, err)
		}
		if r := redact(sv.Signature); r != sv.Signature {
			sv.Signature = r
			v, err := json.Marshal(sv)
			if err != nil {
				return err
			}
			rows.Symbols[i].Value = v
		}
	}
	return nil
}
