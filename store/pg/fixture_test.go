package pg

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// fixture is a fake snapshot: every bucket kind as plain pairs, with the
// keys and value bytes a bbolt index would hold (values are opaque to
// the store, so any bytes do; they include 0 and 0xff bytes on purpose).
type fixture struct {
	key      store.SnapshotKey
	files    []store.FileRows
	pairs    []store.KV     // per snapshot
	versions map[string]int // of each file
}

// fileRows makes one file's rows, a function of path and version (its
// content): version changes its hash and values.
func fileRows(path string, version int) store.FileRows {
	symbols := 3 + (len(path)+version)%5
	r := store.FileRows{RecordKey: store.RecordKey{Path: path, Hash: fmt.Sprintf("%064x", len(path)*1000+version)}, Values: map[string][]byte{}}
	for i, b := range store.FileBuckets {
		if i%4 == 3 && version%2 == 1 {
			continue // some files lack some buckets
		}
		r.Values[b] = []byte(fmt.Sprintf("%s\x00%s v%d \xff\x00", b, path, version))
	}
	for i := range symbols {
		k := fmt.Sprintf("name%03d\x00%s\x00%d", i, path, version)
		r.Symbols = append(r.Symbols, store.KV{Bucket: store.BucketSymbols, Key: []byte(k), Value: []byte("sym " + k)})
	}
	r.Vectors = []store.ChunkVector{{ChunkID: path + "#1", Hash: fmt.Sprintf("c%d-%s", version, path)}}
	r.Grams = store.GramBits([]byte(fixtureText(path, version)))
	return r
}

// fixtureText is the text whose trigrams fileRows gives.
func fixtureText(path string, version int) string {
	return fmt.Sprintf("The text of %s, Version %d.", path, version)
}

// newFixture makes a snapshot of repo at commit with files (path ->
// version) and extra per-snapshot pairs.
func newFixture(repo, commit string, files map[string]int, postings int) fixture {
	fx := fixture{key: store.SnapshotKey{Repo: repo, Commit: commit, Recipe: "recipe-1"}, versions: maps.Clone(files)}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fx.files = append(fx.files, fileRows(p, files[p]))
	}
	fx.pairs = append(fx.pairs, store.KV{Bucket: store.BucketMeta, Key: []byte("schema"), Value: []byte(commit)})
	for i := range postings {
		fx.pairs = append(fx.pairs, store.KV{Bucket: store.BucketPostings, Key: []byte(fmt.Sprintf("term%05d", i)), Value: []byte{byte(i), 0, 0xff}})
	}
	// keys that order differently bytewise than by any collation
	for _, k := range []string{"a", "a\x00", "B", "\xc3\xa9", "\xff", "ab"} {
		fx.pairs = append(fx.pairs, store.KV{Bucket: store.BucketTestLinks, Key: []byte(k), Value: []byte("link " + k)})
	}
	return fx
}

func (fx fixture) keys() []store.RecordKey {
	var ks []store.RecordKey
	for _, f := range fx.files {
		ks = append(ks, f.RecordKey)
	}
	return ks
}

func (fx fixture) pairFunc() func(put func(store.KV) error) error {
	return func(put func(store.KV) error) error {
		for _, kv := range fx.pairs {
			if err := put(kv); err != nil {
				return err
			}
		}
		return nil
	}
}

// want returns what each bucket must hold, in key order.
func (fx fixture) want() map[string][]store.KV {
	w := map[string][]store.KV{}
	for _, f := range fx.files {
		for b, v := range f.Values {
			w[b] = append(w[b], store.KV{Bucket: b, Key: []byte(f.Path), Value: v})
		}
		w[store.BucketSymbols] = append(w[store.BucketSymbols], f.Symbols...)
	}
	for _, kv := range fx.pairs {
		w[kv.Bucket] = append(w[kv.Bucket], kv)
	}
	for _, kvs := range w {
		slices.SortFunc(kvs, func(a, b store.KV) int { return bytes.Compare(a.Key, b.Key) })
	}
	return w
}

// publish uploads fx as a writer would: Begin, Missing, PutRecords of
// the missing files, Finish. It returns how many files it sent.
func publish(t *testing.T, s *Store, fx fixture) int {
	t.Helper()
	ctx := context.Background()
	u, done, err := s.Begin(ctx, fx.key, "model/8")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if done {
		return 0
	}
	missing, err := u.Missing(ctx, fx.keys())
	if err != nil {
		t.Fatal(err)
	}
	var rows []store.FileRows
	for _, f := range fx.files {
		if slices.Contains(missing, f.RecordKey) {
			rows = append(rows, f)
		}
	}
	for part := range slices.Chunk(rows, 7) {
		if err := u.PutRecords(ctx, part); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.Finish(ctx, fx.keys(), fx.pairFunc()); err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func openFixture(t *testing.T, s *Store, fx fixture) store.Remote {
	t.Helper()
	r, err := s.Snapshot(context.Background(), fx.key, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// checkReads asserts that r answers Get, Scan and Count of every bucket
// exactly as fx holds them, byte for byte.
func checkReads(t *testing.T, r store.Remote, fx fixture) {
	t.Helper()
	ctx := context.Background()
	want := fx.want()
	buckets := append(append([]string{store.BucketSymbols}, store.FileBuckets...), store.SnapshotBuckets...)
	for _, b := range buckets {
		kvs := want[b]
		n, err := r.Count(ctx, b)
		if err != nil || n != len(kvs) {
			t.Fatalf("Count(%s) = %d, %v; want %d", b, n, err, len(kvs))
		}
		if got := scanAll(t, r, b, nil); !equalKVs(got, kvs) {
			t.Fatalf("Scan(%s): got %d pairs, want %d\ngot  %q\nwant %q", b, len(got), len(kvs), keysOf(got), keysOf(kvs))
		}
		for i, kv := range kvs {
			v, err := r.Get(ctx, b, kv.Key)
			if err != nil || !bytes.Equal(v, kv.Value) {
				t.Fatalf("Get(%s, %q) = %q, %v; want %q", b, kv.Key, v, err, kv.Value)
			}
			if i%97 == 0 || i == len(kvs)-1 {
				// from a present key, and from just before it
				if got := scanAll(t, r, b, kv.Key); !equalKVs(got, kvs[i:]) {
					t.Fatalf("Scan(%s, from %q): %d pairs, want %d", b, kv.Key, len(got), len(kvs)-i)
				}
				before := kv.Key[:len(kv.Key)-1]
				j, _ := slices.BinarySearchFunc(kvs, before, func(e store.KV, k []byte) int { return bytes.Compare(e.Key, k) })
				if got := scanAll(t, r, b, before); !equalKVs(got, kvs[j:]) {
					t.Fatalf("Scan(%s, from %q): %d pairs, want %d", b, before, len(got), len(kvs)-j)
				}
			}
		}
		if v, err := r.Get(ctx, b, []byte("no such key")); v != nil || err != nil {
			t.Fatalf("Get(%s, absent) = %q, %v", b, v, err)
		}
	}
	checkFetch(t, r, want)
	checkGrep(t, r, fx)
}

// checkGrep asks for the files holding literals of fileRows' texts: one
// file's name, one version with letters in another case, either of two,
// and one no file holds.
func checkGrep(t *testing.T, r store.Remote, fx fixture) {
	t.Helper()
	lit := func(s ...string) [][]byte {
		var out [][]byte
		for _, l := range s {
			out = append(out, []byte(l))
		}
		return out
	}
	first, last := fx.files[0].Path, fx.files[len(fx.files)-1].Path
	for _, c := range []struct {
		clauses [][][]byte
		want    func(text string) bool
	}{
		{[][][]byte{lit(first + ",")}, func(text string) bool { return strings.Contains(text, first+",") }},
		{[][][]byte{lit("version 1."), lit("THE TEXT")}, func(text string) bool { return strings.Contains(strings.ToLower(text), "version 1.") }},
		{[][][]byte{lit(first+",", last+",")}, func(text string) bool {
			return strings.Contains(text, first+",") || strings.Contains(text, last+",")
		}},
		{[][][]byte{lit("no file holds this")}, func(string) bool { return false }},
	} {
		paths, ok, err := r.Grep(context.Background(), store.GramHashes(c.clauses))
		if err != nil || !ok {
			t.Fatalf("Grep %q: %v, ok %v", c.clauses, err, ok)
		}
		var want []string
		for _, f := range fx.files {
			if c.want(fixtureText(f.Path, fx.versions[f.Path])) {
				want = append(want, f.Path)
			}
		}
		if !slices.Equal(paths, want) {
			t.Fatalf("Grep %q = %q, want %q", c.clauses, paths, want)
		}
	}
}

// checkFetch asserts that one Fetch of whole values, ranges of one value
// (alone and several together), absent keys and a bucket that is not
// shared answers each read as Get and GetRange do.
func checkFetch(t *testing.T, r store.Remote, want map[string][]store.KV) {
	t.Helper()
	ctx := context.Background()
	var reads []store.Read
	for _, b := range append(append(slices.Clone(store.FileBuckets), store.SnapshotBuckets...), store.BucketSymbols) {
		for i, kv := range want[b] {
			if i%11 == 0 {
				reads = append(reads, store.Read{Bucket: b, Key: kv.Key[:len(kv.Key)-1], Scan: 3})
			}
			if i%5 == 0 {
				reads = append(reads, store.Read{Bucket: b, Key: kv.Key})
			}
			if i%7 == 0 && len(kv.Value) > 3 {
				reads = append(reads, store.Read{Bucket: b, Key: kv.Key, Off: 1, N: 2},
					store.Read{Bucket: b, Key: kv.Key, Off: len(kv.Value) - 2, N: 10})
			}
			if i == 3 && len(kv.Value) > 1 {
				reads = append(reads, store.Read{Bucket: b, Key: kv.Key, Off: len(kv.Value) - 1, N: 1})
			}
		}
		reads = append(reads, store.Read{Bucket: b, Key: []byte("no such key")}, store.Read{Bucket: b, Key: []byte("no such key"), Off: 0, N: 4})
	}
	reads = append(reads, store.Read{Bucket: store.BucketDirty, Key: []byte("a.go")})
	vals, err := r.Fetch(ctx, reads)
	if err != nil || len(vals) != len(reads) {
		t.Fatalf("Fetch of %d reads: %d values, %v", len(reads), len(vals), err)
	}
	for i, rd := range reads {
		var v []byte
		switch {
		case rd.Scan > 0:
			var ps [][2][]byte
			err = r.Scan(ctx, rd.Bucket, rd.Key, rd.Scan, func(k, v []byte) bool {
				ps = append(ps, [2][]byte{k, v})
				return len(ps) < rd.Scan
			})
			v = store.EncodePairs(ps)
		case rd.N == 0:
			v, err = r.Get(ctx, rd.Bucket, rd.Key)
		default:
			v, err = r.GetRange(ctx, rd.Bucket, rd.Key, rd.Off, rd.N)
		}
		if err != nil || !bytes.Equal(v, vals[i]) || (v == nil) != (vals[i] == nil) {
			t.Fatalf("Fetch read %d (%s %q %d+%d) = %q; Get/GetRange give %q, %v", i, rd.Bucket, rd.Key, rd.Off, rd.N, vals[i], v, err)
		}
	}
}

func scanAll(t *testing.T, r store.Remote, bucket string, from []byte) []store.KV {
	t.Helper()
	var got []store.KV
	err := r.Scan(context.Background(), bucket, from, 0, func(k, v []byte) bool {
		got = append(got, store.KV{Bucket: bucket, Key: k, Value: v})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func equalKVs(a, b []store.KV) bool {
	return slices.EqualFunc(a, b, func(x, y store.KV) bool {
		return x.Bucket == y.Bucket && bytes.Equal(x.Key, y.Key) && bytes.Equal(x.Value, y.Value)
	})
}

func keysOf(kvs []store.KV) []string {
	var ks []string
	for _, kv := range kvs {
		ks = append(ks, string(kv.Key))
	}
	return ks
}

// manyFiles is a map of n paths at version 1.
func manyFiles(n int) map[string]int {
	m := map[string]int{}
	for i := range n {
		m[fmt.Sprintf("pkg%d/file%03d.go", i%7, i)] = 1
	}
	return m
}
