package store

import (
	"crypto/sha256"
	"encoding/hex"
)

// What the repo map (index/repomap) reads: every file's map record, and a
// digest that changes exactly when one of them does.

// EachMapRefs calls fn with every file's repo map record, in path order.
// rec is valid only during the call; fn copies what it keeps.
func (t *Tx) EachMapRefs(fn func(path string, rec []byte) error) error {
	b := t.r(bucketMapRefs)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error { return fn(string(k), v) })
}

// MapDigest identifies the repo map records the index holds: equal
// digests mean equal records (a graph built from either ranks alike). ok
// is false for a workspace linked to a shared store, whose overlay the
// digest does not cover: the caller then reads the records.
func (t *Tx) MapDigest() (digest string, ok bool) {
	if t.shared != nil {
		return "", false
	}
	d := t.r(bucketMeta).Get(metaMapDigest)
	if d == nil {
		d = make([]byte, sha256.Size)
	}
	return hex.EncodeToString(d), true
}

// putMapRefs replaces path's repo map record with rec (nil: none),
// keeping metaMapDigest: the old record's hash is XORed out and the new
// one's in, so the digest is the same whatever order files were written.
func (t *Tx) putMapRefs(path, rec []byte) error {
	b := t.b(bucketMapRefs)
	d := make([]byte, sha256.Size)
	copy(d, t.b(bucketMeta).Get(metaMapDigest))
	old := b.Get(path)
	if old == nil && rec == nil {
		return nil
	}
	if old != nil {
		xorRecord(d, path, old)
		if err := b.Delete(path); err != nil {
			return err
		}
	}
	if rec != nil {
		xorRecord(d, path, rec)
		if err := b.Put(path, rec); err != nil {
			return err
		}
	}
	return t.b(bucketMeta).Put(metaMapDigest, d)
}

func xorRecord(d, path, rec []byte) {
	h := sha256.New()
	h.Write(path)
	h.Write([]byte{0})
	h.Write(rec)
	for i, c := range h.Sum(nil) {
		d[i] ^= c
	}
}
