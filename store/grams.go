package store

import (
	"encoding/binary"
	"slices"
)

// A regular expression search reads every file's text: on a local index a
// pass over the file's memory map, on a shared snapshot the whole
// corpus sent over the network. So the shared store also indexes each
// file by the trigrams of its (masked) text, and a search asks it first
// which files hold the trigrams of the literals every match must contain
// (the prefilter of index/search/literal.go): only those texts are sent,
// and the regular expression itself still runs here, on them, so the
// answer is the local one. The trigrams are bytes with ASCII letters
// lower-cased, which a case-sensitive literal satisfies too; Postgres
// keeps them in an int4[] column under a GIN index (store/pg migration
// 0003), which needs no extension.

// Trigrams returns the distinct trigrams of text (see gram), sorted.
func Trigrams(text []byte) []int32 {
	if len(text) < 3 {
		return []int32{}
	}
	seen := make(map[int32]struct{}, min(len(text), 1<<14))
	for i := 0; i+3 <= len(text); i++ {
		seen[gram(text[i:])] = struct{}{}
	}
	out := make([]int32, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// gram is the trigram at the start of b: its three bytes, ASCII letters
// lower-cased.
func gram(b []byte) int32 {
	return int32(lower(b[0]))<<16 | int32(lower(b[1]))<<8 | int32(lower(b[2]))
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// GramClauses turns a prefilter's clauses (all must hold; a clause holds
// when one of its literals occurs) into trigram clauses (a literal holds
// when a text has all its trigrams). A clause with a literal of fewer than
// three bytes filters nothing by trigram and is left out.
func GramClauses(clauses [][][]byte) [][][]int32 {
	var out [][][]int32
next:
	for _, c := range clauses {
		var gc [][]int32
		for _, lit := range c {
			if len(lit) < 3 {
				continue next
			}
			gc = append(gc, Trigrams(lit))
		}
		if len(gc) > 0 {
			out = append(out, gc)
		}
	}
	return out
}

// RawBlobsFor is RawBlobs for a search whose every match holds clauses (a
// prefilter's, see GramClauses): a shared snapshot that indexes its texts
// by trigram gives only the texts of the files that may match, with the
// overlay's from the local index, in path order; anything else gives
// every text.
func (t *Tx) RawBlobsFor(clauses [][][]byte, fn func(path string, raw []byte) error) error {
	grams := GramClauses(clauses)
	if t.shared == nil || len(grams) == 0 {
		return t.RawBlobs(fn)
	}
	paths, ok := t.shared.grep(grams)
	if t.shared.failed() {
		return nil // the transaction ends with the remote's error
	}
	if !ok {
		return t.RawBlobs(fn)
	}
	var remote []string
	for _, p := range paths {
		if !t.shared.inOverlay([]byte(p)) {
			remote = append(remote, p)
		}
	}
	for part := range slices.Chunk(remote, 512) {
		b := t.Batch()
		b.Blobs(part)
		b.Fetch()
	}
	all := append(remote, t.shared.overlay...)
	slices.Sort(all)
	for _, p := range all {
		k := []byte(p)
		v := t.r(bucketBlobs).Get(k)
		if v == nil {
			continue // an overlay file deleted
		}
		body, err := t.unseal(bucketBlobs, k, v)
		if err != nil {
			return err
		}
		if err := fn(p, body); err != nil {
			return err
		}
	}
	return nil
}

// grep asks the remote for the files that may hold clauses, once per
// snapshot (kept in its cache); ok is false when the snapshot's texts are
// not indexed by trigram.
func (v *sharedView) grep(clauses [][][]int32) (paths []string, ok bool) {
	var key []byte
	for _, c := range clauses {
		key = binary.AppendUvarint(key, uint64(len(c)))
		for _, lit := range c {
			key = binary.AppendUvarint(key, uint64(len(lit)))
			for _, g := range lit {
				key = binary.AppendUvarint(key, uint64(g))
			}
		}
	}
	ck := "grep\x00" + string(key)
	if raw, hit := v.cache.get(ck); hit {
		if raw == nil {
			return nil, false
		}
		for _, kv := range decodePairs(nil, raw) {
			paths = append(paths, string(kv[0]))
		}
		return paths, true
	}
	paths, ok, err := v.remote.Grep(v.ctx, clauses)
	if err != nil {
		v.fail(err)
		return nil, false
	}
	if !ok {
		v.cache.put(ck, nil)
		return nil, false
	}
	ps := make([][2][]byte, len(paths))
	for i, p := range paths {
		ps[i] = [2][]byte{[]byte(p), nil}
	}
	v.cache.put(ck, EncodePairs(ps))
	return paths, true
}
