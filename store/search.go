package store

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// Search data has two layers. Per file, written with the file and deleted
// with it: a search record (terms per chunk) and a vector record (one
// vector per chunk). Per workspace, rebuilt from the per-file layer: a
// snapshot (the postings of every term, the document table and the path
// table). Every file written or deleted since the snapshot was built is in
// the dirty set, so a reader uses the snapshot for clean files and the
// per-file records for dirty ones, and never sees stale results.
//
// The record formats belong to the search package; the store keeps bytes.

// SearchRecord returns path's search record; valid until the transaction
// ends. A damaged record ends the transaction with an error wrapping
// ErrDamaged.
func (t *Tx) SearchRecord(path string) []byte {
	k := []byte(path)
	return t.mustUnseal(bucketSearch, k, t.b(bucketSearch).Get(k))
}

// VectorRecord returns path's vector record; valid until the transaction
// ends. A damaged record ends the transaction as SearchRecord's does.
func (t *Tx) VectorRecord(path string) []byte {
	k := []byte(path)
	return t.mustUnseal(bucketVectors, k, t.b(bucketVectors).Get(k))
}

// eachSealed calls fn with every value of bucket, checked and without its
// checksum.
func (t *Tx) eachSealed(bucket []byte, fn func(path string, v []byte) error) error {
	return t.b(bucket).ForEach(func(k, v []byte) error {
		body, err := t.unseal(bucket, k, v)
		if err != nil {
			return err
		}
		return fn(string(k), body)
	})
}

// SearchRecords calls fn with every search record in path order. rec is
// valid until the transaction ends.
func (t *Tx) SearchRecords(fn func(path string, rec []byte) error) error {
	return t.eachSealed(bucketSearch, fn)
}

// VectorRecords calls fn with every vector record in path order. rec is
// valid until the transaction ends, so callers may keep it to scan in
// parallel before they return.
func (t *Tx) VectorRecords(fn func(path string, rec []byte) error) error {
	return t.eachSealed(bucketVectors, fn)
}

// Dirty returns the paths written or deleted since the snapshot was built.
func (t *Tx) Dirty() []string {
	var out []string
	c := t.b(bucketDirty).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		out = append(out, string(k))
	}
	return out
}

// DirtyCount is len(Dirty()) without building the list.
func (t *Tx) DirtyCount() int { return t.b(bucketDirty).Stats().KeyN }

func (t *Tx) markDirty(path string) error { return t.b(bucketDirty).Put([]byte(path), nil) }

// HasSnapshot reports whether a search snapshot was built.
func (t *Tx) HasSnapshot() bool { return t.b(bucketSnapshot).Get(snapMeta) != nil }

// SnapshotValue returns one value of the search snapshot (nil if none);
// valid until the transaction ends.
func (t *Tx) SnapshotValue(key []byte) []byte { return t.b(bucketSnapshot).Get(key) }

// Postings returns the postings of term in the snapshot (nil if none);
// valid until the transaction ends.
func (t *Tx) Postings(term string) []byte { return t.b(bucketPostings).Get([]byte(term)) }

// ReplaceSnapshot writes a new snapshot and clears the dirty set. entries
// puts the snapshot's values (its header under the key "meta"); postings
// must call put once per term in ascending byte order: the bucket is
// bulk-loaded, which is fast only in key order. Values are kept until the
// transaction commits, so each must be a slice of its own.
func (t *Tx) ReplaceSnapshot(entries func(put func(k, v []byte) error) error, postings func(put func(term string, plist []byte) error) error) error {
	for _, name := range [][]byte{bucketPostings, bucketSnapshot, bucketDirty} {
		if err := t.tx.DeleteBucket(name); err != nil {
			return fmt.Errorf("clear %s: %w", name, err)
		}
		if _, err := t.tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	pb := t.b(bucketPostings)
	pb.FillPercent = 1 // appended in order: full pages, no splits
	var last []byte
	err := postings(func(term string, plist []byte) error {
		k := []byte(term)
		if last != nil && bytes.Compare(k, last) <= 0 {
			return fmt.Errorf("postings out of order: %q after %q", term, last)
		}
		last = k
		return pb.Put(k, plist)
	})
	if err != nil {
		return err
	}
	sb := t.b(bucketSnapshot)
	return entries(func(k, v []byte) error { return sb.Put(k, v) })
}

// SymbolNames calls fn with every distinct lower-cased symbol name, in
// order, decoding nothing.
func (t *Tx) SymbolNames(fn func(name string)) {
	c := t.b(bucketSymbols).Cursor()
	var last []byte
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		name, _, _ := bytes.Cut(k, []byte{0})
		if !bytes.Equal(name, last) {
			fn(string(name))
			last = name
		}
	}
}

// RawBlobs calls fn with every file's compressed text (see DecodeBlob); raw
// is valid until the transaction ends, so callers may decode in parallel.
func (t *Tx) RawBlobs(fn func(path string, raw []byte) error) error {
	return t.eachSealed(bucketBlobs, fn)
}

// DecodeBlob decompresses a value RawBlobs handed out.
func DecodeBlob(raw []byte) ([]byte, error) { return decompress(raw) }

// DecodeBlobInto decompresses a value RawBlobs handed out into buf when it
// is large enough (a scan over many files reuses one buffer).
func DecodeBlobInto(buf, raw []byte) ([]byte, error) {
	out, err := s2.Decode(buf[:cap(buf)], raw)
	if err != nil {
		return nil, fmt.Errorf("decompress: %w (the index is damaged: delete .dossier/index.db and run `dossier index`)", err)
	}
	return out, nil
}
