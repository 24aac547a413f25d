package pg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dossierhq/dossier/store"
)

func init() {
	store.RegisterRemote("postgres", OpenSnapshot)
}

// OpenSnapshot opens the snapshot a link names, on a pool of its own that
// Close closes. A link records its snapshot's id, so the snapshot is
// checked with the first read rather than before it (see remote.check):
// the open itself only connects, which a query starts while it reads its
// cache.
func OpenSnapshot(ctx context.Context, l store.Link) (store.Remote, error) {
	s, err := Open(ctx, l.URL, Options{PasswordEnv: l.PasswordEnv})
	if err != nil {
		return nil, err
	}
	var r store.Remote
	if l.Snapshot != 0 {
		r, err = s.deferred(ctx, l.SnapshotKey, l.Snapshot)
	} else {
		r, err = s.Snapshot(ctx, l.SnapshotKey, l.Snapshot)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	r.(*remote).owner = true
	return r, nil
}

// deferred connects and returns snapshot id, to be checked with its first
// read.
func (s *Store) deferred(ctx context.Context, key store.SnapshotKey, id int64) (store.Remote, error) {
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		c, err := s.pool.Acquire(ctx)
		if err == nil {
			c.Release()
		}
		return err
	})
	if err != nil {
		return nil, s.wrap("connect", err)
	}
	return &remote{s: s, id: id, key: key, counts: map[string]int{}}, nil
}

// Snapshot opens a ready snapshot on s's pool: by id when id is not 0
// (it must still be key's), else by key. Closing it leaves s open, so one
// Store serves the snapshots of many repositories (search --all-repos).
func (s *Store) Snapshot(ctx context.Context, key store.SnapshotKey, id int64) (store.Remote, error) {
	var l lookup
	// One round trip: the schema's version and the snapshot (a one-shot
	// search pays for every round trip before its first answer).
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		return l.scan(s.pool.QueryRow(ctx, lookupSQL, id, key.Repo, key.Commit, key.Recipe))
	})
	if err := s.checkLookup(l, err, key, id); err != nil {
		return nil, err
	}
	r := &remote{s: s, id: l.id, key: l.key, counts: map[string]int{}}
	r.checked.Store(true)
	return r, nil
}

// notFound is an error that says what is missing and what to do, and is
// store.ErrNotFound.
type notFound struct{ msg string }

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == store.ErrNotFound }

// lookupSQL finds a snapshot by id ($1), or by key ($1 = 0), with the
// schema's version.
const lookupSQL = `SELECT s.id, r.name, s.commit, s.recipe, s.state,
	(SELECT max(version) FROM dossier_schema_migrations)
	FROM dossier_snapshots s JOIN dossier_repos r ON r.id = s.repo_id
	WHERE ($1 <> 0 AND s.id = $1) OR ($1 = 0 AND r.name = $2 AND s.commit = $3 AND s.recipe = $4)`

// lookup is the answer of lookupSQL.
type lookup struct {
	id      int64
	key     store.SnapshotKey
	state   string
	version int
}

func (l *lookup) scan(row pgx.Row) error {
	return row.Scan(&l.id, &l.key.Repo, &l.key.Commit, &l.key.Recipe, &l.state, &l.version)
}

// checkLookup turns the answer of lookupSQL for key (or id), or its
// error, into what the reader should do.
func (s *Store) checkLookup(l lookup, err error, key store.SnapshotKey, id int64) error {
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42P01" {
		return fmt.Errorf("shared store %s holds no dossier index: run `dossier index --store URL` (or `dossier store migrate`) first", s.server)
	}
	if err == nil && l.version > newest(s.migrations) {
		return &NewerSchemaError{Server: s.server, Version: l.version, Known: newest(s.migrations)}
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return &notFound{fmt.Sprintf("shared store %s holds no snapshot %s (gc may have dropped it): run `dossier index --store` again", s.server, key)}
	case err != nil:
		return s.wrap("open snapshot "+key.String(), err)
	case key.Repo != "" && l.key != key:
		return fmt.Errorf("shared store %s: snapshot %d is %s, not %s (the store was rebuilt?): run `dossier index --store` again", s.server, id, l.key, key)
	case l.state != "ready":
		return fmt.Errorf("shared store %s: snapshot %s is still being uploaded: wait for its upload to finish", s.server, l.key)
	}
	return nil
}

// check makes sure, once, that a snapshot opened by id (deferred) is
// still there and still key's, before its first answer is used.
func (r *remote) check(ctx context.Context) error {
	if r.checked.Load() {
		return nil
	}
	var l lookup
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		return l.scan(r.s.pool.QueryRow(ctx, lookupSQL, r.id, r.key.Repo, r.key.Commit, r.key.Recipe))
	})
	if err := r.s.checkLookup(l, err, r.key, r.id); err != nil {
		return err
	}
	r.checked.Store(true)
	return nil
}

// remote is one ready snapshot. Ready snapshots never change, so counts
// are kept once asked.
type remote struct {
	s     *Store
	id    int64
	key   store.SnapshotKey
	owner bool // Close closes s
	// checked: the snapshot was found ready (see check); set once, read
	// by the workers of a vector scan at once
	checked atomic.Bool
	counts  map[string]int
	// vec: the snapshot's vector model, once looked up (model 0: none)
	vec struct {
		checked     bool
		model, dims int
	}
}

var _ store.Remote = (*remote)(nil)

// bucketKind tells where a bucket's pairs live.
type bucketKind int

const (
	kindNone     bucketKind = iota // not shared (dirty, embcache): always empty
	kindFile                       // dossier_record_values, keyed by path
	kindSymbols                    // dossier_symbols
	kindSnapshot                   // dossier_snapshot_values
)

func kindOf(bucket string) bucketKind {
	switch {
	case bucket == store.BucketSymbols:
		return kindSymbols
	case slices.Contains(store.FileBuckets, bucket):
		return kindFile
	case slices.Contains(store.SnapshotBuckets, bucket):
		return kindSnapshot
	}
	return kindNone
}

// The queries of the three kinds: $1 is the snapshot, then the bucket
// (but for symbols, which have one), the key and a scan's limit. Scans
// are keyset-paginated: each batch starts at the smallest key after the
// last one seen, in bytea order, which is bytewise as in bbolt.
const (
	getFile = `SELECT v.value FROM dossier_snapshot_files f
		JOIN dossier_record_values v ON v.record_id = f.record_id AND v.bucket = $2
		WHERE f.snapshot_id = $1 AND f.path = $3`
	getSymbol = `SELECT s.value FROM dossier_symbols s
		WHERE s.key = $2 AND EXISTS (SELECT 1 FROM dossier_snapshot_files f WHERE f.record_id = s.record_id AND f.snapshot_id = $1)
		LIMIT 1`
	getSnapshot = `SELECT value FROM dossier_snapshot_values WHERE snapshot_id = $1 AND bucket = $2 AND key = $3`

	scanFile = `SELECT f.path, v.value FROM dossier_snapshot_files f
		JOIN dossier_record_values v ON v.record_id = f.record_id AND v.bucket = $2
		WHERE f.snapshot_id = $1 AND f.path >= $3 ORDER BY f.path LIMIT $4`
	// The symbols index is walked in key order from $2; each key is kept
	// when its record belongs to the snapshot (one probe of
	// dossier_snapshot_files_record).
	scanSymbol = `SELECT s.key, s.value FROM dossier_symbols s
		WHERE s.key >= $2 AND EXISTS (SELECT 1 FROM dossier_snapshot_files f WHERE f.record_id = s.record_id AND f.snapshot_id = $1)
		ORDER BY s.key LIMIT $3`
	scanSnapshot = `SELECT key, value FROM dossier_snapshot_values
		WHERE snapshot_id = $1 AND bucket = $2 AND key >= $3 ORDER BY key LIMIT $4`

	countFile = `SELECT count(*) FROM dossier_snapshot_files f
		JOIN dossier_record_values v ON v.record_id = f.record_id AND v.bucket = $2 WHERE f.snapshot_id = $1`
	countSymbol = `SELECT count(*) FROM dossier_snapshot_files f
		JOIN dossier_symbols s ON s.record_id = f.record_id WHERE f.snapshot_id = $1`
	countSnapshot = `SELECT count(*) FROM dossier_snapshot_values WHERE snapshot_id = $1 AND bucket = $2`
)

var queries = map[bucketKind]struct{ get, scan, count string }{
	kindFile:     {getFile, scanFile, countFile},
	kindSymbols:  {getSymbol, scanSymbol, countSymbol},
	kindSnapshot: {getSnapshot, scanSnapshot, countSnapshot},
}

// args are a query's arguments: the snapshot, the bucket where the kind
// has several, then rest.
func (r *remote) args(kind bucketKind, bucket string, rest ...any) []any {
	if kind == kindSymbols {
		return append([]any{r.id}, rest...)
	}
	return append([]any{r.id, bucket}, rest...)
}

// scanBatch is how many pairs one round trip of Scan fetches.
const scanBatch = 512

// Get returns the value of key in bucket, nil when absent: one round
// trip, on a statement pgx prepared once per connection.
func (r *remote) Get(ctx context.Context, bucket string, key []byte) ([]byte, error) {
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	kind := kindOf(bucket)
	if kind == kindNone {
		return nil, nil
	}
	var v []byte
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		return r.s.pool.QueryRow(ctx, queries[kind].get, r.args(kind, bucket, nonNil(key))...).Scan(&v)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, r.s.wrap(fmt.Sprintf("read %s of %s", bucket, r.key), err)
	}
	return v, nil
}

// Scan calls fn with bucket's pairs from from on, a batch per round trip.
// fn runs between batches, never while a query is open, so it may call
// r again.
func (r *remote) Scan(ctx context.Context, bucket string, from []byte, want int, fn func(k, v []byte) bool) error {
	if err := r.check(ctx); err != nil {
		return err
	}
	kind := kindOf(bucket)
	if kind == kindNone {
		return nil
	}
	next := nonNil(from)
	batch := scanBatch
	if want > 0 {
		batch = min(want, scanBatch)
	}
	for {
		var keys, vals [][]byte
		err := r.s.withTimeout(ctx, func(ctx context.Context) error {
			rows, _ := r.s.pool.Query(ctx, queries[kind].scan, r.args(kind, bucket, next, batch)...)
			var k, v []byte
			_, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error {
				keys, vals = append(keys, k), append(vals, v)
				return nil
			})
			return err
		})
		if err != nil {
			return r.s.wrap(fmt.Sprintf("scan %s of %s", bucket, r.key), err)
		}
		for i := range keys {
			if !fn(keys[i], vals[i]) {
				return nil
			}
		}
		if len(keys) < batch {
			return nil
		}
		batch = scanBatch
		// The smallest key after the last one: the last with a 0 byte appended.
		next = append(bytes.Clone(keys[len(keys)-1]), 0)
	}
}

// Size returns the length of key's value in bucket, -1 when absent.
func (r *remote) Size(ctx context.Context, bucket string, key []byte) (int, error) {
	if err := r.check(ctx); err != nil {
		return 0, err
	}
	kind := kindOf(bucket)
	if kind == kindNone {
		return -1, nil
	}
	var n int
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		return r.s.pool.QueryRow(ctx, "SELECT octet_length(value) FROM ("+queries[kind].get+") v",
			r.args(kind, bucket, nonNil(key))...).Scan(&n)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return -1, nil
	}
	if err != nil {
		return 0, r.s.wrap(fmt.Sprintf("read the size of %s %q of %s", bucket, key, r.key), err)
	}
	return n, nil
}

// GetRange returns n bytes of key's value in bucket from off on: substring
// of a value stored uncompressed (see 0001_core.sql) reads only the
// TOAST chunks of the range.
func (r *remote) GetRange(ctx context.Context, bucket string, key []byte, off, n int) ([]byte, error) {
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	kind := kindOf(bucket)
	if kind == kindNone {
		return nil, nil
	}
	var v []byte
	args := r.args(kind, bucket, nonNil(key))
	q := rangeQuery(kind, args)
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		return r.s.pool.QueryRow(ctx, q, append(args, off, n)...).Scan(&v)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, r.s.wrap(fmt.Sprintf("read %s %q of %s", bucket, key, r.key), err)
	}
	return v, nil
}

// Fetch sends every read in one batch: pgx pipelines the statements, so
// the reads cost one round trip between them. The whole values of one
// bucket go in one statement, and so do the ranges of one value (a
// query's candidates in the metadata table): a fresh connection plans
// each statement, and that was most of a batch's time.
func (r *remote) Fetch(ctx context.Context, reads []store.Read) ([][]byte, error) {
	vals := make([][]byte, len(reads))
	b := &pgx.Batch{}
	// A snapshot opened by id is checked in the same round trip, ahead
	// of the reads.
	check := !r.checked.Load()
	if check {
		b.Queue(lookupSQL, r.id, r.key.Repo, r.key.Commit, r.key.Recipe)
	}
	groups := fetchGroups(reads)
	for _, g := range groups {
		rd := reads[g.reads[0]]
		kind := kindOf(rd.Bucket)
		args := r.args(kind, rd.Bucket, nonNil(rd.Key))
		switch g.how {
		case fetchScan:
			froms := make([][]byte, len(g.reads))
			for k, i := range g.reads {
				froms[k] = nonNil(reads[i].Key)
			}
			b.Queue(scansQuery(kind, len(args)), append(args[:len(args)-1], froms, rd.Scan)...)
		case fetchOne:
			b.Queue(queries[kind].get, args...)
		case fetchValues:
			keys := make([][]byte, len(g.reads))
			for k, i := range g.reads {
				keys[k] = nonNil(reads[i].Key)
			}
			b.Queue(valuesQuery(kind), append(args[:len(args)-1], keys)...)
		case fetchRanges:
			offs, ns := make([]int32, len(g.reads)), make([]int32, len(g.reads))
			for k, i := range g.reads {
				offs[k], ns[k] = int32(reads[i].Off), int32(reads[i].N)
			}
			b.Queue(rangesQuery(kind, args), append(args, offs, ns)...)
		}
	}
	if len(groups) == 0 {
		return vals, nil
	}
	var cerr error
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		res := r.s.pool.SendBatch(ctx, b)
		defer res.Close()
		if check {
			var l lookup
			err := l.scan(res.QueryRow())
			if cerr = r.s.checkLookup(l, err, r.key, r.id); cerr != nil {
				return cerr
			}
		}
		for _, g := range groups {
			if err := g.read(res, vals); err != nil {
				return err
			}
		}
		return res.Close()
	})
	if cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, r.s.wrap(fmt.Sprintf("read %d values of %s", len(reads), r.key), err)
	}
	r.checked.Store(true)
	return vals, nil
}

// fetchGroup is one statement of a Fetch: the reads it answers and how.
type fetchGroup struct {
	how   int
	reads []int
}

const (
	fetchOne    = iota // a whole value
	fetchValues        // whole values of one bucket
	fetchRanges        // ranges of one value
	fetchScan          // a scan
)

// fetchGroups groups the reads of a Fetch by statement, in order of
// their first read. Buckets that are not shared are left out (they read
// as absent).
func fetchGroups(reads []store.Read) []fetchGroup {
	var groups []fetchGroup
	at := map[string]int{}
	for i, rd := range reads {
		kind := kindOf(rd.Bucket)
		var k string
		switch {
		case kind == kindNone:
			continue
		case rd.Scan > 0:
			k = fmt.Sprintf("scans\x00%s\x00%d", rd.Bucket, rd.Scan)
		case rd.N == 0 && kind == kindSymbols:
			groups = append(groups, fetchGroup{how: fetchOne, reads: []int{i}})
			continue
		case rd.N == 0:
			k = "values\x00" + rd.Bucket
		default:
			k = "ranges\x00" + rd.Bucket + "\x00" + string(rd.Key)
		}
		if g, ok := at[k]; ok {
			groups[g].reads = append(groups[g].reads, i)
			if groups[g].how == fetchOne {
				groups[g].how = fetchValues
			}
			continue
		}
		at[k] = len(groups)
		how := fetchOne
		switch {
		case rd.Scan > 0:
			how = fetchScan
		case rd.N > 0:
			how = fetchRanges
		}
		groups = append(groups, fetchGroup{how: how, reads: []int{i}})
	}
	return groups
}

// read takes g's answers from res into vals.
func (g fetchGroup) read(res pgx.BatchResults, vals [][]byte) error {
	switch {
	case g.how == fetchScan:
		rows, _ := res.Query()
		pairs := make([][][2][]byte, len(g.reads))
		var i int
		var k, v []byte
		_, err := pgx.ForEachRow(rows, []any{&i, &k, &v}, func() error {
			if i < 1 || i > len(g.reads) {
				return fmt.Errorf("answer %d of %d", i, len(g.reads))
			}
			pairs[i-1] = append(pairs[i-1], [2][]byte{k, v})
			return nil
		})
		for n, r := range g.reads {
			vals[r] = store.EncodePairs(pairs[n])
		}
		return err
	case g.how == fetchOne:
		if err := res.QueryRow().Scan(&vals[g.reads[0]]); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return nil
	}
	rows, _ := res.Query()
	var k int
	var v []byte
	_, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error {
		if k < 1 || k > len(g.reads) {
			return fmt.Errorf("answer %d of %d", k, len(g.reads))
		}
		vals[g.reads[k-1]] = v
		return nil
	})
	return err
}

// rangesQuery reads several ranges of a get query's value, one row each
// with its place (from 1) among the ranges: its arguments, then the
// arrays of offsets and lengths.
func rangesQuery(kind bucketKind, args []any) string {
	return fmt.Sprintf(`SELECT t.i::int, substring(v.value FROM t.o + 1 FOR t.n) FROM (%s) v
		CROSS JOIN unnest($%d::int[], $%d::int[]) WITH ORDINALITY AS t(o, n, i)`, queries[kind].get, len(args)+1, len(args)+2)
}

// scansQuery runs several scans of one bucket, each from its own key, one
// row per pair with the scan's place (from 1), in key order within each:
// the snapshot (and the bucket, but for symbols), then the array of keys
// to start from and the limit of each scan. from is the place of the key
// among a scan query's parameters ($from), which the lateral row's key
// stands for.
func scansQuery(kind bucketKind, from int) string {
	p := fmt.Sprintf("$%d", from)
	scan := strings.Replace(queries[kind].scan, p, "t.f", 1)
	return fmt.Sprintf(`SELECT t.i::int, s.* FROM unnest(%s::bytea[]) WITH ORDINALITY AS t(f, i)
		CROSS JOIN LATERAL (%s) s ORDER BY 1, 2`, p, scan)
}

// valuesQuery reads the whole values of several keys of one bucket, one
// row each with its place (from 1) among the keys: the snapshot, the
// bucket, then the array of keys.
func valuesQuery(kind bucketKind) string {
	if kind == kindFile {
		return `SELECT t.i::int, v.value FROM unnest($3::bytea[]) WITH ORDINALITY AS t(p, i)
			JOIN dossier_snapshot_files f ON f.snapshot_id = $1 AND f.path = t.p
			JOIN dossier_record_values v ON v.record_id = f.record_id AND v.bucket = $2`
	}
	return `SELECT t.i::int, v.value FROM unnest($3::bytea[]) WITH ORDINALITY AS t(k, i)
		JOIN dossier_snapshot_values v ON v.snapshot_id = $1 AND v.bucket = $2 AND v.key = t.k`
}

// rangeQuery reads a range of a get query's value: its arguments, then
// the offset and the length.
func rangeQuery(kind bucketKind, args []any) string {
	return fmt.Sprintf("SELECT substring(value FROM $%d::int + 1 FOR $%d::int) FROM (%s) v", len(args)+1, len(args)+2, queries[kind].get)
}

// Grep finds the files whose trigram filters hold the clauses, testing
// each filter of the snapshot with get_bit (store/grams.go); not ok when
// a file of the snapshot has no filter (its record was stored before
// migration 0003).
func (r *remote) Grep(ctx context.Context, clauses [][][]int64) ([]string, bool, error) {
	if err := r.check(ctx); err != nil {
		return nil, false, err
	}
	args := []any{r.id}
	var and []string
	for _, c := range clauses {
		var or []string
		for _, lit := range c {
			var bits []string
			for _, h := range lit {
				args = append(args, h)
				// The filter's size is a power of two: the hash's low bits.
				bits = append(bits, fmt.Sprintf("get_bit(g.bits, ($%d::int8 & (octet_length(g.bits)::int8 * 8 - 1))::int) = 1", len(args)))
			}
			or = append(or, "("+strings.Join(bits, " AND ")+")")
		}
		and = append(and, "("+strings.Join(or, " OR ")+")")
	}
	// A file without a filter comes out too, flagged: then none is used.
	q := `SELECT f.path, g.record_id IS NULL FROM dossier_snapshot_files f LEFT JOIN dossier_record_grams g ON g.record_id = f.record_id
		WHERE f.snapshot_id = $1 AND (g.record_id IS NULL OR ` + strings.Join(and, " AND ") + `) ORDER BY f.path`
	var paths []string
	all := true
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		rows, _ := r.s.pool.Query(ctx, q, args...)
		var p []byte
		var none bool
		_, err := pgx.ForEachRow(rows, []any{&p, &none}, func() error {
			paths = append(paths, string(p))
			all = all && !none
			return nil
		})
		return err
	})
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42P01" {
		return nil, false, nil // a schema before 0003
	}
	if err != nil {
		return nil, false, r.s.wrap("find the files that may match in "+r.key.String(), err)
	}
	return paths, all, nil
}

// Count returns how many pairs bucket holds.
func (r *remote) Count(ctx context.Context, bucket string) (int, error) {
	if err := r.check(ctx); err != nil {
		return 0, err
	}
	kind := kindOf(bucket)
	if kind == kindNone {
		return 0, nil
	}
	if n, ok := r.counts[bucket]; ok {
		return n, nil
	}
	var n int
	err := r.s.withTimeout(ctx, func(ctx context.Context) error {
		return r.s.pool.QueryRow(ctx, queries[kind].count, r.args(kind, bucket)...).Scan(&n)
	})
	if err != nil {
		return 0, r.s.wrap(fmt.Sprintf("count %s of %s", bucket, r.key), err)
	}
	r.counts[bucket] = n
	return n, nil
}

// Generation is the snapshot's id: snapshots are immutable once ready,
// and ids are never reused.
func (r *remote) Generation() uint64 { return uint64(r.id) }

// Nearest is answered by the vector tables (migration 0002, see
// vectors.go); ok is false where the server keeps no vectors of model.
func (r *remote) Nearest(ctx context.Context, model string, q []float32, k int, pathPrefix string) ([]store.VectorHit, bool, error) {
	if err := r.check(ctx); err != nil {
		return nil, false, err
	}
	if !r.vec.checked {
		err := r.s.withTimeout(ctx, func(ctx context.Context) error {
			return r.s.pool.QueryRow(ctx, "SELECT id, dims FROM dossier_models WHERE name = $1", model).Scan(&r.vec.model, &r.vec.dims)
		})
		pe := (*pgconn.PgError)(nil)
		switch {
		case errors.Is(err, pgx.ErrNoRows), errors.As(err, &pe) && pe.Code == "42P01":
			r.vec.model = 0
		case err != nil:
			return nil, false, r.s.wrap("look up the vectors of "+model, err)
		}
		r.vec.checked = true
	}
	if r.vec.model == 0 {
		return nil, false, nil
	}
	var hits []store.VectorHit
	err := r.s.withTimeout(ctx, func(ctx context.Context) (err error) {
		hits, err = nearest(ctx, r.s.pool, r.id, r.vec.model, r.vec.dims, q, k, pathPrefix)
		return err
	})
	if err != nil {
		return nil, false, r.s.wrap("search the vectors of "+r.key.String(), err)
	}
	return hits, true, nil
}

// Describe names the server, repository and commit.
func (r *remote) Describe() string { return r.s.server + " " + r.key.String() }

// Close closes the pool when the Remote owns it.
func (r *remote) Close() error {
	if r.owner {
		return r.s.Close()
	}
	return nil
}

// nonNil turns a nil key into the empty bytea: nil would be SQL NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
