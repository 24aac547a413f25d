// Package sharedtest is a shared store kept in memory: the reference the
// conformance tests hold every shared store to (a Postgres store must
// answer every bucket read as this one does), and a store for the tests of
// the layers above that do not need a server.
package sharedtest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dossierhq/dossier/store"
)

// Mem is a shared store in memory. Its URL scheme is "mem" (register it
// with Register); every Mem of one process is one store per URL.
type Mem struct {
	mu      sync.Mutex
	name    string
	records map[recKey]store.FileRows
	snaps   map[store.SnapshotKey]*snap
	gen     uint64
	// trips counts the reads its snapshots answered, each as one round
	// trip of a server would (see RoundTrips).
	trips atomic.Int64
	// blobs counts the texts its snapshots sent (see BlobsSent).
	blobs atomic.Int64
}

// BlobsSent is how many file texts (the blobs bucket's values) the
// store's snapshots have sent.
func (m *Mem) BlobsSent() int64 { return m.blobs.Load() }

// RoundTrips is how many requests the store's snapshots have answered: a
// server would have taken one round trip for each.
func (m *Mem) RoundTrips() int64 { return m.trips.Load() }

type recKey struct {
	store.RecordKey
	recipe string
}

type snap struct {
	gen    uint64
	ready  bool
	files  map[string]recKey
	values map[string]map[string][]byte
}

var (
	regMu sync.Mutex
	mems  = map[string]*Mem{}
	once  sync.Once
)

// New returns the store of url ("mem://NAME"), registering the scheme
// with store.RegisterRemote the first time.
func New(url string) *Mem {
	once.Do(func() {
		store.RegisterRemote("mem", func(_ context.Context, l store.Link) (store.Remote, error) {
			regMu.Lock()
			m := mems[l.URL]
			regMu.Unlock()
			if m == nil {
				return nil, fmt.Errorf("no store at %s", l.URL)
			}
			return m.Open(l.SnapshotKey)
		})
	})
	regMu.Lock()
	defer regMu.Unlock()
	if m := mems[url]; m != nil {
		return m
	}
	m := &Mem{name: url, records: map[recKey]store.FileRows{}, snaps: map[store.SnapshotKey]*snap{}}
	mems[url] = m
	return m
}

// Describe names the store.
func (m *Mem) Describe() string { return m.name }

// Close does nothing: the store lives as long as the process.
func (m *Mem) Close() error { return nil }

// Begin starts the upload of key (store.Publisher).
func (m *Mem) Begin(_ context.Context, key store.SnapshotKey, _ string) (store.Upload, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.snaps[key]; s != nil && s.ready {
		return upload{m: m, key: key}, true, nil
	}
	return upload{m: m, key: key}, false, nil
}

type upload struct {
	m   *Mem
	key store.SnapshotKey
}

func (u upload) Missing(_ context.Context, keys []store.RecordKey) ([]store.RecordKey, error) {
	u.m.mu.Lock()
	defer u.m.mu.Unlock()
	var out []store.RecordKey
	for _, k := range keys {
		if _, ok := u.m.records[recKey{k, u.key.Recipe}]; !ok {
			out = append(out, k)
		}
	}
	return out, nil
}

func (u upload) PutRecords(_ context.Context, rows []store.FileRows) error {
	u.m.mu.Lock()
	defer u.m.mu.Unlock()
	for _, r := range rows {
		u.m.records[recKey{r.RecordKey, u.key.Recipe}] = r
	}
	return nil
}

func (u upload) Finish(_ context.Context, files []store.RecordKey, pairs func(put func(store.KV) error) error) error {
	s := &snap{files: map[string]recKey{}, values: map[string]map[string][]byte{}}
	err := pairs(func(kv store.KV) error {
		if s.values[kv.Bucket] == nil {
			s.values[kv.Bucket] = map[string][]byte{}
		}
		s.values[kv.Bucket][string(kv.Key)] = bytes.Clone(kv.Value)
		return nil
	})
	if err != nil {
		return err
	}
	u.m.mu.Lock()
	defer u.m.mu.Unlock()
	for _, f := range files {
		k := recKey{f, u.key.Recipe}
		if _, ok := u.m.records[k]; !ok {
			return fmt.Errorf("finish %s: the record of %s was never sent", u.key, f.Path)
		}
		s.files[f.Path] = k
	}
	u.m.gen++
	s.gen, s.ready = u.m.gen, true
	u.m.snaps[u.key] = s
	return nil
}

func (upload) Close() error { return nil }

// Open opens the ready snapshot key.
func (m *Mem) Open(key store.SnapshotKey) (store.Remote, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.snaps[key]
	if s == nil || !s.ready {
		return nil, fmt.Errorf("%s holds no snapshot %s: %w", m.name, key, store.ErrNotFound)
	}
	return &remote{m: m, s: s, key: key}, nil
}

// Records is how many file records the store holds.
func (m *Mem) Records() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}

type remote struct {
	m   *Mem
	s   *snap
	key store.SnapshotKey
}

func (r *remote) pairs(bucket string) [][2][]byte {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	var out [][2][]byte
	switch {
	case bucket == store.BucketSymbols:
		for _, k := range r.s.files {
			for _, kv := range r.m.records[k].Symbols {
				out = append(out, [2][]byte{kv.Key, kv.Value})
			}
		}
	case slices.Contains(store.FileBuckets, bucket):
		for p, k := range r.s.files {
			if v, ok := r.m.records[k].Values[bucket]; ok {
				out = append(out, [2][]byte{[]byte(p), v})
			}
		}
	default:
		for k, v := range r.s.values[bucket] {
			out = append(out, [2][]byte{[]byte(k), v})
		}
	}
	slices.SortFunc(out, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	return out
}

func (r *remote) Get(_ context.Context, bucket string, key []byte) ([]byte, error) {
	r.m.trips.Add(1)
	return r.get(bucket, key), nil
}

// Fetch answers every read in one request.
func (r *remote) Fetch(_ context.Context, reads []store.Read) ([][]byte, error) {
	r.m.trips.Add(1)
	vals := make([][]byte, len(reads))
	for i, rd := range reads {
		if rd.Scan > 0 {
			var ps [][2][]byte
			for _, kv := range r.pairs(rd.Bucket) {
				if len(ps) < rd.Scan && bytes.Compare(kv[0], rd.Key) >= 0 {
					ps = append(ps, kv)
				}
			}
			vals[i] = store.EncodePairs(ps)
			continue
		}
		v := r.get(rd.Bucket, rd.Key)
		if rd.N > 0 {
			v = rangeOf(v, rd.Off, rd.N)
		}
		vals[i] = v
	}
	return vals, nil
}

func rangeOf(v []byte, off, n int) []byte {
	if off >= len(v) {
		return nil
	}
	return v[off:min(off+n, len(v))]
}

func (r *remote) get(bucket string, key []byte) []byte {
	if bucket == store.BucketBlobs {
		r.m.blobs.Add(1)
	}
	if slices.Contains(store.FileBuckets, bucket) {
		r.m.mu.Lock()
		defer r.m.mu.Unlock()
		k, ok := r.s.files[string(key)]
		if !ok {
			return nil
		}
		return r.m.records[k].Values[bucket]
	}
	for _, kv := range r.pairs(bucket) {
		if bytes.Equal(kv[0], key) {
			return kv[1]
		}
	}
	return nil
}

// Grep answers from the records' Grams; not ok when one of the
// snapshot's records has none.
func (r *remote) Grep(_ context.Context, clauses [][][]int64) ([]string, bool, error) {
	r.m.trips.Add(1)
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	var out []string
	for p, k := range r.s.files {
		grams := r.m.records[k].Grams
		if grams == nil {
			return nil, false, nil
		}
		if holds(grams, clauses) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, true, nil
}

func holds(bits []byte, clauses [][][]int64) bool {
	for _, c := range clauses {
		if !slices.ContainsFunc(c, func(lit []int64) bool { return store.BitsHold(bits, lit) }) {
			return false
		}
	}
	return true
}

func (r *remote) Scan(_ context.Context, bucket string, from []byte, _ int, fn func(k, v []byte) bool) error {
	r.m.trips.Add(1)
	for _, kv := range r.pairs(bucket) {
		if from != nil && bytes.Compare(kv[0], from) < 0 {
			continue
		}
		if bucket == store.BucketBlobs {
			r.m.blobs.Add(1)
		}
		if !fn(kv[0], kv[1]) {
			return nil
		}
	}
	return nil
}

func (r *remote) Count(_ context.Context, bucket string) (int, error) {
	r.m.trips.Add(1)
	return len(r.pairs(bucket)), nil
}
func (r *remote) Generation() uint64 { return r.s.gen }

// Nearest answers exactly, by inner product with every vector of the
// snapshot.
func (r *remote) Nearest(_ context.Context, _ string, q []float32, k int, prefix string) ([]store.VectorHit, bool, error) {
	r.m.trips.Add(1)
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	var hits []store.VectorHit
	for p, key := range r.s.files {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		for _, v := range r.m.records[key].Vectors {
			hits = append(hits, store.VectorHit{Path: p, ChunkID: v.ChunkID, Ord: v.Ord, Score: dot(q, v.Vector)})
		}
	}
	slices.SortFunc(hits, func(a, b store.VectorHit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ChunkID, b.ChunkID)
	})
	return hits[:min(k, len(hits))], true, nil
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func (r *remote) Describe() string { return r.m.name + " " + r.key.String() }
func (r *remote) Close() error     { return nil }

// Dump calls fn with every key and value the store holds, values in
// readable form (store.Readable), each named by where it is.
func (m *Mem) Dump(fn func(what string, b []byte)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, r := range m.records {
		fn("record key "+k.Path, []byte(k.Path))
		for b, v := range r.Values {
			if rv, err := store.Readable(b, v); err == nil {
				v = rv
			}
			fn(b+" of "+k.Path, v)
		}
		for _, kv := range r.Symbols {
			fn("symbol of "+k.Path, append(append([]byte{}, kv.Key...), kv.Value...))
		}
	}
	for key, s := range m.snaps {
		for b, vals := range s.values {
			for k, v := range vals {
				fn(b+" "+k+" of "+key.String(), append([]byte(k+"\x00"), v...))
			}
		}
	}
}

func (r *remote) Size(_ context.Context, bucket string, key []byte) (int, error) {
	r.m.trips.Add(1)
	v := r.get(bucket, key)
	if v == nil {
		return -1, nil
	}
	return len(v), nil
}

func (r *remote) GetRange(_ context.Context, bucket string, key []byte, off, n int) ([]byte, error) {
	r.m.trips.Add(1)
	return rangeOf(r.get(bucket, key), off, n), nil
}
