package store

import (
	"encoding/binary"
	"slices"
)

// A regular expression search reads every file's text: on a local index a
// pass over the file's memory map, on a shared snapshot the whole
// corpus sent over the network. So the shared store also keeps, for each
// file, a Bloom filter of the trigrams of its (masked) text, and a search
// asks it first which files may hold the trigrams of the literals every
// match must contain (the prefilter of index/search/literal.go): only
// those texts are sent, and the regular expression itself still runs
// here, on them, so the answer is the local one (a false positive costs a
// text sent, never a result). Trigrams are bytes with ASCII letters
// lower-cased, which a case-sensitive literal satisfies too. A filter is
// a power of two bits, about eight a distinct trigram (a probe of an
// absent trigram is then a false positive about one time in nine, and a
// literal of several trigrams almost never), from 512 bits to 512 Kbits:
// a few percent of the text, stored once per record, tested by the server
// with get_bit (no index to maintain, so an upload stays as fast).

const (
	minGramBits = 1 << 9
	maxGramBits = 1 << 19
)

// GramBits returns the Bloom filter of text's trigrams (see gram and
// gramHash): bit i is bit i%8 of byte i/8, as Postgres' get_bit counts.
func GramBits(text []byte) []byte {
	seen := make(map[int32]struct{}, min(len(text), 1<<14))
	for i := 0; i+3 <= len(text); i++ {
		seen[gram(text[i:])] = struct{}{}
	}
	m := minGramBits
	for m < 8*len(seen) && m < maxGramBits {
		m *= 2
	}
	bits := make([]byte, m/8)
	for g := range seen {
		i := gramHash(g) & int64(m-1)
		bits[i/8] |= 1 << (i % 8)
	}
	return bits
}

// BitsHold reports whether the filter bits may hold every trigram of
// hashes (GramHashes' literals).
func BitsHold(bits []byte, hashes []int64) bool {
	m := int64(len(bits)) * 8
	if m == 0 {
		return false
	}
	for _, h := range hashes {
		i := h & (m - 1)
		if bits[i/8]&(1<<(i%8)) == 0 {
			return false
		}
	}
	return true
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

// gramHash spreads a trigram over 43 bits (positive in an int8), of
// which a filter takes the low ones.
func gramHash(g int32) int64 {
	return int64(uint64(g) * 0x9E3779B97F4A7C15 >> 21)
}

// GramHashes turns a prefilter's clauses (all must hold; a clause holds
// when one of its literals occurs) into the trigram hashes of each
// literal (it may occur where a filter holds them all). A clause with a
// literal of fewer than three bytes filters nothing and is left out.
func GramHashes(clauses [][][]byte) [][][]int64 {
	var out [][][]int64
next:
	for _, c := range clauses {
		var hc [][]int64
		for _, lit := range c {
			if len(lit) < 3 {
				continue next
			}
			seen := map[int32]bool{}
			var hs []int64
			for i := 0; i+3 <= len(lit); i++ {
				if g := gram(lit[i:]); !seen[g] {
					seen[g] = true
					hs = append(hs, gramHash(g))
				}
			}
			hc = append(hc, hs)
		}
		if len(hc) > 0 {
			out = append(out, hc)
		}
	}
	return out
}

// maxGrepHashes bounds the trigrams of a pattern sent to the server (a
// long alternation has thousands): a statement holds at most 65,535
// parameters. A pattern with more reads every text.
const maxGrepHashes = 4096

func hashCount(clauses [][][]int64) int {
	n := 0
	for _, c := range clauses {
		for _, lit := range c {
			n += len(lit)
		}
	}
	return n
}

// RawBlobsFor is RawBlobs for a search whose every match holds clauses (a
// prefilter's, see GramHashes) in a file keep keeps: a shared snapshot
// that filters its texts by trigram sends only the texts of those files
// that may match, with the overlay's from the local index, in path order;
// anything else gives every text (fn still tells).
func (t *Tx) RawBlobsFor(clauses [][][]byte, keep func(path string) bool, fn func(path string, raw []byte) error) error {
	grams := GramHashes(clauses)
	if t.shared == nil || len(grams) == 0 || hashCount(grams) > maxGrepHashes {
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
		if !t.shared.inOverlay([]byte(p)) && keep(p) {
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
func (v *sharedView) grep(clauses [][][]int64) (paths []string, ok bool) {
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
