package store

import (
	"strconv"
	"strings"
)

// A query of a shared snapshot knows most of what it will read before it
// reads it: the postings of its terms, the metadata entries of its
// candidates, the texts of its results. Each read one at a time was a
// round trip to the server, and the round trips were most of a one-shot
// search's time; a Batch sends them together (Remote.Fetch) and puts the
// answers in the snapshot's cache, where the reads that
// follow find them (see Batch).

// Warm starts connecting to the shared store in the background, for a
// query that will read what the snapshot's cache lacks: the connection is
// made while the query reads its cached tables (a new connection is a
// quarter of a one-shot search of the server). Nothing for a local index,
// or a store already connected.
func (t *Tx) Warm() {
	if t.shared == nil {
		return
	}
	if z, ok := t.shared.remote.(*lazyRemote); ok {
		z.start()
	}
}

// PostingsCached reports whether the postings of every term are in the
// shared snapshot's cache (true for a local index): a query that reads
// nothing else need not connect.
func (t *Tx) PostingsCached(terms []string) bool {
	if t.shared == nil || !t.HasSnapshot() {
		return true
	}
	pb, _ := t.snapshotSlots(true)
	for _, term := range terms {
		if _, ok := t.shared.cache.get(wholeKey(string(pb), []byte(term))); !ok {
			return false
		}
	}
	return true
}

// A Batch gathers reads for one round trip of a shared store's server.
// On a local index it holds nothing and Fetch does nothing: its reads cost
// no round trip.
type Batch struct {
	t     *Tx
	reads []batchRead
}

// batchRead is a read of a batch with where its answer is kept: under
// key in the snapshot's cache, on disk too when disk is set. The small
// ranges of a query (a candidate's metadata entry) stay in memory: a
// file for each was most of a one-shot search's time.
type batchRead struct {
	Read
	key  string
	disk bool
}

// Batch starts a batch of reads ahead.
func (t *Tx) Batch() *Batch { return &Batch{t: t} }

// Shared reports whether the batch reads a shared store (a caller may
// skip working out what to read ahead when it does not).
func (b *Batch) Shared() bool { return b.t.shared != nil }

func (b *Batch) add(rd Read, key string, disk bool) {
	b.reads = append(b.reads, batchRead{Read: rd, key: key, disk: disk})
}

// Postings adds the postings of terms (see Tx.Postings).
func (b *Batch) Postings(terms []string) {
	if !b.Shared() || !b.t.HasSnapshot() {
		return
	}
	pb, _ := b.t.snapshotSlots(true)
	for _, term := range terms {
		rd := Read{Bucket: string(pb), Key: []byte(term)}
		b.add(rd, wholeKey(rd.Bucket, rd.Key), true)
	}
}

// Blobs adds the texts of paths (see Tx.RawBlob). The files of the
// overlay are read from the local index, as RawBlob reads them.
func (b *Batch) Blobs(paths []string) {
	if !b.Shared() {
		return
	}
	for _, p := range paths {
		if !b.t.shared.inOverlay([]byte(p)) {
			rd := Read{Bucket: BucketBlobs, Key: []byte(p)}
			b.add(rd, wholeKey(rd.Bucket, rd.Key), true)
		}
	}
}

// Head adds the first n bytes of s, kept whole on disk, from which
// s.ReadAt then reads (a table's offsets, which every query reads a few
// of, anywhere).
func (b *Batch) Head(s SealedValue, n int) {
	r := s.remote
	if r == nil || n <= 0 {
		return
	}
	r.mu.Lock()
	r.headN = min(n, r.size)
	rd, key := Read{Bucket: r.bucket, Key: []byte(r.key), Off: 0, N: r.headN}, r.headKey()
	r.mu.Unlock()
	b.add(rd, key, true)
}

// Spans adds the bytes [off, off+n) of each span of s, for s.ReadAt of
// exactly that span; kept in memory only.
func (b *Batch) Spans(s SealedValue, spans [][2]int) {
	r := s.remote
	if r == nil {
		return
	}
	for _, sp := range spans {
		if off, n := sp[0], sp[1]; off >= 0 && n > 0 && off+n <= r.size {
			b.add(Read{Bucket: r.bucket, Key: []byte(r.key), Off: off, N: n}, r.spanKey(off, n), false)
		}
	}
}

// SymbolSeeks adds the first symbols from each of froms on, as a lookup
// of a name reads them (see Tx.SymbolsWithPrefix): the first batch of
// its cursor.
func (b *Batch) SymbolSeeks(froms []string) {
	if !b.Shared() {
		return
	}
	for _, from := range froms {
		from = strings.ToLower(from)
		rd := Read{Bucket: BucketSymbols, Key: []byte(from), Scan: firstBatch}
		b.add(rd, scanKey(rd.Bucket, rd.Scan, rd.Key), true)
	}
}

// Fetch reads what the snapshot's cache lacks of the batch, in one round
// trip, and empties the batch. A failed fetch ends the transaction's
// reads, as a failed read does.
func (b *Batch) Fetch() {
	if b.Shared() {
		b.t.shared.prefetch(b.reads)
	}
	b.reads = b.reads[:0]
}

func wholeKey(bucket string, key []byte) string { return bucket + "\x00" + string(key) }

func blockKey(bucket, key string, b int) string {
	return "block\x00" + bucket + "\x00" + key + "\x00" + strconv.Itoa(b)
}

// prefetch fetches the reads the cache lacks in one round trip and keeps
// their answers.
func (v *sharedView) prefetch(reads []batchRead) {
	if v.failed() || len(reads) == 0 {
		return
	}
	var want []batchRead
	seen := map[string]bool{}
	for _, rd := range reads {
		if seen[rd.key] {
			continue
		}
		seen[rd.key] = true
		if _, ok := v.cache.lookup(rd.key, rd.disk); !ok {
			want = append(want, rd)
		}
	}
	if len(want) == 0 {
		return
	}
	rds := make([]Read, len(want))
	for i, rd := range want {
		rds[i] = rd.Read
	}
	vals, err := v.remote.Fetch(v.ctx, rds)
	if err != nil {
		v.fail(err)
		return
	}
	for i, rd := range want {
		if rd.disk {
			v.cache.put(rd.key, vals[i])
		} else if vals[i] != nil {
			v.cache.keep(rd.key, vals[i])
		}
	}
}
