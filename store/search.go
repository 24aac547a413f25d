package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
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
	return t.mustUnseal(bucketSearch, k, t.r(bucketSearch).Get(k))
}

// VectorRecord returns path's vector record; valid until the transaction
// ends. A damaged record ends the transaction as SearchRecord's does.
func (t *Tx) VectorRecord(path string) []byte {
	k := []byte(path)
	return t.mustUnseal(bucketVectors, k, t.r(bucketVectors).Get(k))
}

// eachSealed calls fn with every value of bucket, checked and without its
// checksum.
func (t *Tx) eachSealed(bucket []byte, fn func(path string, v []byte) error) error {
	return t.r(bucket).ForEach(func(k, v []byte) error {
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
	c := t.r(bucketDirty).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		out = append(out, string(k))
	}
	return out
}

// DirtyCount is len(Dirty()) without building the list.
func (t *Tx) DirtyCount() int { return t.r(bucketDirty).KeyN() }

// markDirty records that path's records changed: the search snapshot no
// longer holds them, and no summary accounts for them yet (see
// metaUnfinished).
func (t *Tx) markDirty(path string) error {
	if !t.unfinished {
		if err := t.b(bucketMeta).Put(metaUnfinished, []byte("1")); err != nil {
			return err
		}
		t.unfinished = true
	}
	return t.b(bucketDirty).Put([]byte(path), nil)
}

// The search snapshot lives in one of two slots. Readers use the active
// one; a rebuild fills the other in short transactions (ClearStaging,
// StageSnapshot, StagePostings) and activates it in one small transaction
// (SwitchSnapshot), so an indexer never holds the file for the length of a
// whole rebuild, and a reader sees either the old snapshot with its dirty
// set or the new one with an empty set, never a mix. A run interrupted
// while staging leaves the active slot as it was; the next rebuild clears
// the staging slot first.

// snapshotSlots returns the postings and snapshot buckets of the active
// slot (active true) or the staging one.
func (t *Tx) snapshotSlots(active bool) (postings, snapshot []byte) {
	// Without a snapshot yet, slot a stages the first.
	onA := string(t.r(bucketMeta).Get(metaSnapSlot)) == "a"
	if onA == active {
		return bucketPostingsA, bucketSnapshotA
	}
	return bucketPostingsB, bucketSnapshotB
}

// unsealSnapshot checks a snapshot value's CRC-32C (see sealed) and returns
// the value without it.
func (t *Tx) unsealSnapshot(what string, key, v []byte) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	n := len(v) - sumSize
	if n < 0 || crc32.Checksum(v[:n], castagnoli) != binary.BigEndian.Uint32(v[n:]) {
		return nil, damaged(t.where(), "search snapshot %s %q fails its checksum", what, key)
	}
	return v[:n:n], nil
}

// HasSnapshot reports whether a search snapshot is active.
func (t *Tx) HasSnapshot() bool { return t.r(bucketMeta).Get(metaSnapSlot) != nil }

// SnapshotValue returns one value of the active search snapshot (nil if
// none), checked against its checksum; valid until the transaction ends.
func (t *Tx) SnapshotValue(key []byte) ([]byte, error) {
	if !t.HasSnapshot() {
		return nil, nil
	}
	_, sb := t.snapshotSlots(true)
	return t.unsealSnapshot("value", key, t.r(sb).Get(key))
}

// SealedValue is a value of the active search snapshot whose checksum is
// not checked yet: a query that scans several large values checks each in
// the goroutine that scans it, right before, so the bytes are read while
// they are in the cache. Open may be called from several goroutines.
type SealedValue struct {
	t      *Tx
	db     string
	key, v []byte
	// remote: the value lies in a shared snapshot and is read by range
	// (v is nil until a caller wants it whole).
	remote *remoteValue
}

// SnapshotSealed returns one value of the active search snapshot (a zero
// SealedValue, whose Open gives nil, if none), unchecked; valid until the
// transaction ends.
func (t *Tx) SnapshotSealed(key []byte) SealedValue {
	if !t.HasSnapshot() {
		return SealedValue{}
	}
	_, sb := t.snapshotSlots(true)
	if t.shared != nil {
		return t.shared.sealed(t, string(sb), key)
	}
	return SealedValue{t: t, db: t.where(), key: key, v: t.r(sb).Get(key)}
}

// Open checks the value against its checksum and returns it without the
// checksum (nil for a missing value).
func (s SealedValue) Open() ([]byte, error) {
	if s.remote != nil {
		s.v = s.remote.whole()
	}
	if s.v == nil {
		return nil, nil
	}
	n := len(s.v) - sumSize
	if n < 0 || crc32.Checksum(s.v[:n], castagnoli) != binary.BigEndian.Uint32(s.v[n:]) {
		return nil, damaged(s.db, "search snapshot value %q fails its checksum", s.key)
	}
	return s.v[:n:n], nil
}

// Postings returns the postings of term in the active snapshot (nil if
// none), checked against its checksum; valid until the transaction ends.
func (t *Tx) Postings(term string) ([]byte, error) {
	if !t.HasSnapshot() {
		return nil, nil
	}
	pb, _ := t.snapshotSlots(true)
	return t.unsealSnapshot("postings of", []byte(term), t.r(pb).Get([]byte(term)))
}

// ClearStaging empties the staging slot: before a rebuild stages into it
// (it may hold an interrupted one), and after a switch, to free the
// snapshot it replaced.
func (t *Tx) ClearStaging() error {
	for _, name := range t.stagingBuckets() {
		if err := t.tx.DeleteBucket(name); err != nil {
			return fmt.Errorf("clear %s: %w", name, err)
		}
		if _, err := t.tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	return nil
}

func (t *Tx) stagingBuckets() [][]byte {
	pb, sb := t.snapshotSlots(false)
	return [][]byte{pb, sb}
}

// StageSnapshot puts values of the snapshot being staged (its header
// under the key "meta"). Values are kept until the transaction commits and
// get their checksum appended, in place when they have the room: each must
// be a slice of its own that the caller does not touch until then.
func (t *Tx) StageSnapshot(entries func(put func(k, v []byte) error) error) error {
	_, name := t.snapshotSlots(false)
	sb := t.b(name)
	return entries(func(k, v []byte) error { return sb.Put(k, sealed(v)) })
}

// StagePostings adds postings lists to the snapshot being staged. Terms
// must come in ascending byte order, within a call and from one call to
// the next: the bucket is bulk-loaded, which is fast only in key order.
// Lists are kept as StageSnapshot's values are.
func (t *Tx) StagePostings(postings func(put func(term string, plist []byte) error) error) error {
	name, _ := t.snapshotSlots(false)
	pb := t.b(name)
	pb.FillPercent = 1 // appended in order: full pages, no splits
	c := pb.Cursor()
	last, _ := c.Last()
	return postings(func(term string, plist []byte) error {
		k := []byte(term)
		if last != nil && bytes.Compare(k, last) <= 0 {
			return fmt.Errorf("postings out of order: %q after %q", term, last)
		}
		last = k
		return pb.Put(k, sealed(plist))
	})
}

// SwitchSnapshot makes the staged snapshot the active one and empties the
// dirty set, which the staged snapshot covers. The caller holds the
// workspace's writer lock from the read the snapshot was built from to
// this switch, so no file changed in between.
func (t *Tx) SwitchSnapshot() error {
	_, sb := t.snapshotSlots(false)
	if t.b(sb).Get(snapMeta) == nil {
		return fmt.Errorf("switch search snapshot: the staging slot holds no snapshot")
	}
	slot := []byte("a")
	if bytes.Equal(sb, bucketSnapshotB) {
		slot = []byte("b")
	}
	if err := t.tx.DeleteBucket(bucketDirty); err != nil {
		return fmt.Errorf("clear %s: %w", bucketDirty, err)
	}
	if _, err := t.tx.CreateBucket(bucketDirty); err != nil {
		return fmt.Errorf("create %s: %w", bucketDirty, err)
	}
	return t.b(bucketMeta).Put(metaSnapSlot, slot)
}

// AppendSymbolNames appends every distinct lower-cased symbol name to dst,
// each followed by a NUL byte (no name holds one), in order.
func (t *Tx) AppendSymbolNames(dst []byte) []byte {
	c := t.r(bucketSymbols).Cursor()
	last := -1 // where the last name appended starts in dst
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		name, _, _ := bytes.Cut(k, []byte{0})
		if last < 0 || !bytes.Equal(name, dst[last:len(dst)-1]) {
			last = len(dst)
			dst = append(append(dst, name...), 0)
		}
	}
	return dst
}

// RawBlobs calls fn with every file's compressed text (see DecodeBlob); raw
// is valid until the transaction ends, so callers may decode in parallel.
func (t *Tx) RawBlobs(fn func(path string, raw []byte) error) error {
	return t.eachSealed(bucketBlobs, fn)
}

// CheckSnapshot verifies the checksum of every value and posting list of
// the active search snapshot (a full read, for `dossier doctor`).
func (t *Tx) CheckSnapshot() error {
	if !t.HasSnapshot() {
		return nil
	}
	pb, sb := t.snapshotSlots(true)
	for _, b := range []struct {
		name []byte
		what string
	}{{sb, "value"}, {pb, "postings of"}} {
		err := t.r(b.name).ForEach(func(k, v []byte) error {
			_, err := t.unsealSnapshot(b.what, k, v)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
