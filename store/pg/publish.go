package pg

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dossierhq/dossier/store"
)

var _ store.Publisher = (*Store)(nil)

// gcLock is the advisory lock key between uploads (shared) and gc
// (exclusive): gc never deletes the records of an upload in progress.
const gcLock int64 = 0x646f7373_67636c6b // "dossgclk"

// snapshotLock is the advisory lock key of a snapshot's writers.
func snapshotLock(k store.SnapshotKey) int64 {
	h := fnv.New64a()
	for _, p := range []string{"dossier snapshot", k.Repo, k.Commit, k.Recipe} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return int64(h.Sum64())
}

// Begin starts or resumes the upload of key, migrating the store first.
// The upload holds one connection with two session-level advisory locks:
// the snapshot's (a second writer of key waits for it, then finds the
// snapshot ready) and gc's, shared. A lost connection releases both.
// When done, the Upload holds nothing and Close is all it takes.
func (s *Store) Begin(ctx context.Context, key store.SnapshotKey, model string) (store.Upload, bool, error) {
	if key.Repo == "" || key.Commit == "" || key.Recipe == "" {
		return nil, false, fmt.Errorf("shared store %s: snapshot %+v lacks a repository, commit or recipe", s.server, key)
	}
	if err := s.ensureMigrated(ctx); err != nil {
		return nil, false, err
	}
	u := &upload{s: s, key: key, model: model}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, s.wrap("begin "+key.String(), err)
	}
	u.conn = conn
	// Waiting for another writer of key is not bounded by Timeout: it
	// takes as long as its upload. Cancelling ctx ends the wait.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock_shared($1)", gcLock); err == nil {
		_, err = conn.Exec(ctx, "SELECT pg_advisory_lock($1)", snapshotLock(key))
	}
	if err == nil {
		err = s.withTimeout(ctx, u.open)
	}
	if err != nil {
		u.Close()
		return nil, false, s.wrap("begin "+key.String(), err)
	}
	if u.done {
		u.Close()
		return u, true, nil
	}
	return u, false, nil
}

// upload is a store.Upload on its own connection.
type upload struct {
	s        *Store
	conn     *pgxpool.Conn // nil once closed
	key      store.SnapshotKey
	model    string
	snapshot int64
	done     bool // the snapshot is ready
	// vec: the model's row, once looked up (model 0: no vectors kept)
	vec struct {
		checked     bool
		model, dims int
	}
}

// open finds or creates the repository and the snapshot's row.
func (u *upload) open(ctx context.Context) error {
	var repo int64
	err := u.conn.QueryRow(ctx, `INSERT INTO dossier_repos (name) VALUES ($1)
		ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`, u.key.Repo).Scan(&repo)
	if err != nil {
		return err
	}
	var state string
	err = u.conn.QueryRow(ctx, `SELECT id, state FROM dossier_snapshots WHERE repo_id = $1 AND commit = $2 AND recipe = $3`,
		repo, u.key.Commit, u.key.Recipe).Scan(&u.snapshot, &state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return u.conn.QueryRow(ctx, `INSERT INTO dossier_snapshots (repo_id, commit, recipe, model, state)
			VALUES ($1, $2, $3, $4, 'building') RETURNING id`, repo, u.key.Commit, u.key.Recipe, u.model).Scan(&u.snapshot)
	case err != nil:
		return err
	case state == "ready":
		u.done = true
		return nil
	default: // an interrupted upload: resume it
		_, err = u.conn.Exec(ctx, "UPDATE dossier_snapshots SET model = $2 WHERE id = $1", u.snapshot, u.model)
		return err
	}
}

func (u *upload) check() error {
	switch {
	case u.done:
		return fmt.Errorf("shared store %s: snapshot %s is already complete", u.s.server, u.key)
	case u.conn == nil:
		return fmt.Errorf("shared store %s: the upload of %s is closed", u.s.server, u.key)
	}
	return nil
}

// missingBatch bounds the keys one query of Missing or Finish sends.
const missingBatch = 10000

// Missing returns the keys, in their order, whose records the store
// lacks for the snapshot's recipe.
func (u *upload) Missing(ctx context.Context, keys []store.RecordKey) ([]store.RecordKey, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	var out []store.RecordKey
	for part := range slices.Chunk(keys, missingBatch) {
		paths, hashes := splitKeys(part)
		err := u.s.withTimeout(ctx, func(ctx context.Context) error {
			rows, _ := u.conn.Query(ctx, `SELECT k.i FROM unnest($1::bytea[], $2::text[]) WITH ORDINALITY AS k(path, hash, i)
				WHERE NOT EXISTS (SELECT 1 FROM dossier_records r JOIN dossier_record_grams g ON g.record_id = r.id
					WHERE r.path = k.path AND r.hash = k.hash AND r.recipe = $3)
				ORDER BY k.i`, paths, hashes, u.key.Recipe)
			idx, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			for _, i := range idx {
				out = append(out, part[i-1])
			}
			return err
		})
		if err != nil {
			return nil, u.s.wrap("look up records of "+u.key.String(), err)
		}
	}
	return out, nil
}

func splitKeys(keys []store.RecordKey) ([][]byte, []string) {
	paths := make([][]byte, len(keys))
	hashes := make([]string, len(keys))
	for i, k := range keys {
		paths[i], hashes[i] = []byte(k.Path), k.Hash
	}
	return paths, hashes
}

// PutRecords stores the records of rows in one transaction. A record the
// store holds already (another snapshot's, or stored before an
// interruption) is left as it is: records are immutable, keyed by
// content. Chunk ids and hashes come from rows' Vectors.
func (u *upload) PutRecords(ctx context.Context, rows []store.FileRows) error {
	if err := u.check(); err != nil {
		return err
	}
	for _, r := range rows {
		for b := range r.Values {
			if !slices.Contains(store.FileBuckets, b) {
				return fmt.Errorf("shared store %s: %s: bucket %q is not a per-file bucket (%v)", u.s.server, r.Path, b, store.FileBuckets)
			}
		}
	}
	err := u.s.withTimeout(ctx, func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, u.conn, func(tx pgx.Tx) error { return u.putRecords(ctx, tx, rows) })
	})
	return u.s.wrap(fmt.Sprintf("store %d files of %s", len(rows), u.key), err)
}

func (u *upload) putRecords(ctx context.Context, tx pgx.Tx, rows []store.FileRows) error {
	keys := make([]store.RecordKey, 0, len(rows))
	for _, r := range rows {
		keys = append(keys, r.RecordKey)
	}
	paths, hashes := splitKeys(keys)
	res, _ := tx.Query(ctx, `INSERT INTO dossier_records (path, hash, recipe)
		SELECT DISTINCT k.path, k.hash, $3 FROM unnest($1::bytea[], $2::text[]) AS k(path, hash)
		ON CONFLICT DO NOTHING RETURNING id, path, hash`, paths, hashes, u.key.Recipe)
	ids := map[store.RecordKey]int64{}
	var id int64
	var path []byte
	var hash string
	_, err := pgx.ForEachRow(res, []any{&id, &path, &hash}, func() error {
		ids[store.RecordKey{Path: string(path), Hash: hash}] = id
		return nil
	})
	if err != nil {
		return err
	}
	var values, symbols, chunks [][]any
	var vectors []store.ChunkVector
	if err := u.putGrams(ctx, tx, rows, ids); err != nil {
		return err
	}
	for _, r := range rows {
		id, fresh := ids[r.RecordKey]
		if !fresh {
			continue // stored already, or a duplicate of an earlier row
		}
		delete(ids, r.RecordKey)
		for _, b := range store.FileBuckets {
			if v, ok := r.Values[b]; ok {
				values = append(values, []any{id, b, v})
			}
		}
		for _, kv := range r.Symbols {
			symbols = append(symbols, []any{id, kv.Key, kv.Value})
		}
		seen := map[string]bool{}
		for _, c := range r.Vectors {
			if !seen[c.ChunkID] {
				seen[c.ChunkID] = true
				chunks = append(chunks, []any{id, c.ChunkID, int32(c.Ord), c.Hash})
			}
		}
		vectors = append(vectors, r.Vectors...)
	}
	for _, w := range []struct {
		t    table
		rows [][]any
	}{{recordValues, values}, {symbolsTable, symbols}, {recordChunks, chunks}} {
		if err := u.s.writeRows(ctx, tx, w.t, w.rows); err != nil {
			return err
		}
	}
	return u.putVectors(ctx, tx, vectors)
}

// putGrams stores the trigram filters of rows (fresh holds the ids of the
// records just inserted): of a record stored before migration 0003 too,
// which Missing reports as missing until it has one.
func (u *upload) putGrams(ctx context.Context, tx pgx.Tx, rows []store.FileRows, fresh map[store.RecordKey]int64) error {
	var bulk [][]any
	older := &pgx.Batch{}
	for _, r := range rows {
		if r.Grams == nil {
			continue
		}
		if id, ok := fresh[r.RecordKey]; ok {
			bulk = append(bulk, []any{id, r.Grams})
			continue
		}
		older.Queue(`INSERT INTO dossier_record_grams (record_id, bits)
			SELECT id, $4 FROM dossier_records WHERE path = $1 AND hash = $2 AND recipe = $3
			ON CONFLICT DO NOTHING`, []byte(r.Path), r.Hash, u.key.Recipe, r.Grams)
	}
	if err := u.s.writeRows(ctx, tx, recordGrams, bulk); err != nil {
		return err
	}
	if older.Len() > 0 {
		if err := tx.SendBatch(ctx, older).Close(); err != nil {
			return fmt.Errorf("insert into dossier_record_grams: %w", err)
		}
	}
	return nil
}

// putVectors stores the vectors of the records just sent, where the server
// keeps vectors (pgvector, migration 0002); elsewhere they stay out, and
// readers leave vectors out of their searches and say so.
func (u *upload) putVectors(ctx context.Context, tx pgx.Tx, vs []store.ChunkVector) error {
	if len(vs) == 0 {
		return nil
	}
	if !u.vec.checked {
		u.vec.checked = true
		var table *string
		if err := tx.QueryRow(ctx, "SELECT to_regclass('dossier_vectors')::text").Scan(&table); err != nil {
			return err
		}
		dims := modelDims(u.model)
		if table == nil || dims <= 0 {
			return nil
		}
		if err := registerVectorTypes(ctx, u.conn.Conn()); err != nil {
			return err
		}
		id, err := ensureModel(ctx, tx, u.model, dims)
		if err != nil {
			return err
		}
		u.vec.model, u.vec.dims = id, dims
	}
	if u.vec.model == 0 {
		return nil
	}
	return putVectors(ctx, tx, u.vec.model, u.vec.dims, vs)
}

// modelDims is the dimensions a model's key names (store.VectorModel.Key:
// provider/model/dims), 0 when it names none.
func modelDims(model string) int {
	i := strings.LastIndexByte(model, '/')
	n, err := strconv.Atoi(model[i+1:])
	if err != nil {
		return 0
	}
	return n
}

// Finish records the snapshot's files and per-snapshot pairs and flips
// it to ready, in one transaction: readers open only ready snapshots, so
// none sees it half built. Each batch it sends must be answered within
// Timeout (a stalled server is an error), the whole may take longer.
func (u *upload) Finish(ctx context.Context, files []store.RecordKey, pairs func(put func(store.KV) error) error) error {
	if err := u.check(); err != nil {
		return err
	}
	ctx, kick, stop := u.s.watchdog(ctx)
	defer stop()
	err := pgx.BeginFunc(ctx, u.conn, func(tx pgx.Tx) error { return u.finish(ctx, kick, tx, files, pairs) })
	if err == nil {
		u.done = true
	}
	if cause := context.Cause(ctx); errors.Is(cause, context.DeadlineExceeded) {
		err = cause
	}
	return u.s.wrap("finish "+u.key.String(), err)
}

func (u *upload) finish(ctx context.Context, kick func(), tx pgx.Tx, files []store.RecordKey, pairs func(put func(store.KV) error) error) error {
	var state string
	if err := tx.QueryRow(ctx, "SELECT state FROM dossier_snapshots WHERE id = $1 FOR UPDATE", u.snapshot).Scan(&state); err != nil {
		return err
	}
	if state != "building" {
		return fmt.Errorf("snapshot is %s, not building", state)
	}
	for _, t := range []string{"dossier_snapshot_files", "dossier_snapshot_values"} {
		if _, err := tx.Exec(ctx, "DELETE FROM "+t+" WHERE snapshot_id = $1", u.snapshot); err != nil {
			return err
		}
	}
	if err := u.putFiles(ctx, kick, tx, files); err != nil {
		return err
	}
	w := &pairWriter{s: u.s, tx: tx, snapshot: u.snapshot, kick: kick, ctx: ctx}
	if err := pairs(w.put); err != nil {
		return err
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE dossier_snapshots SET state = 'ready', finished = now() WHERE id = $1", u.snapshot)
	return err
}

// putFiles maps each file of the snapshot to its record.
func (u *upload) putFiles(ctx context.Context, kick func(), tx pgx.Tx, files []store.RecordKey) error {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if seen[f.Path] {
			return fmt.Errorf("file %s is listed twice", f.Path)
		}
		seen[f.Path] = true
	}
	for part := range slices.Chunk(files, missingBatch) {
		kick()
		paths, hashes := splitKeys(part)
		tag, err := tx.Exec(ctx, `INSERT INTO dossier_snapshot_files (snapshot_id, path, record_id)
			SELECT $1, k.path, r.id FROM unnest($2::bytea[], $3::text[]) AS k(path, hash)
			JOIN dossier_records r ON r.path = k.path AND r.hash = k.hash AND r.recipe = $4`,
			u.snapshot, paths, hashes, u.key.Recipe)
		if err != nil {
			return err
		}
		if n := int(tag.RowsAffected()); n != len(part) {
			missing, err := u.Missing(ctx, part)
			if err != nil || len(missing) == 0 {
				return fmt.Errorf("%d files have no records", len(part)-n)
			}
			return fmt.Errorf("%d files have no records (first %s at %.12s): PutRecords stores them before Finish", len(missing), missing[0].Path, missing[0].Hash)
		}
	}
	return nil
}

// pairWriter buffers per-snapshot pairs into batches.
type pairWriter struct {
	s        *Store
	tx       pgx.Tx
	snapshot int64
	kick     func()
	rows     [][]any
	size     int
	ctx      context.Context
}

func (w *pairWriter) put(kv store.KV) error {
	if !slices.Contains(store.SnapshotBuckets, kv.Bucket) {
		return fmt.Errorf("bucket %q is not a per-snapshot bucket (%v)", kv.Bucket, store.SnapshotBuckets)
	}
	// The caller may reuse its slices (a bbolt transaction's): keep copies.
	w.rows = append(w.rows, []any{w.snapshot, kv.Bucket, slices.Clone(kv.Key), slices.Clone(kv.Value)})
	w.size += len(kv.Key) + len(kv.Value)
	if len(w.rows) >= batchRows || w.size >= batchBytes {
		return w.flush(w.ctx)
	}
	return nil
}

func (w *pairWriter) flush(ctx context.Context) error {
	w.kick()
	err := w.s.writeRows(ctx, w.tx, snapshotValues, w.rows)
	w.rows, w.size = w.rows[:0], 0
	return err
}

// Close releases the upload's locks and connection. When the session
// cannot unlock (the connection is gone), ending it releases them.
func (u *upload) Close() error {
	if u.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := u.conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		u.conn.Conn().Close(ctx)
	}
	u.conn.Release()
	u.conn = nil
	return nil
}
