package pg

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/dossierhq/dossier/store"
)

// vecTuning holds the knobs of nearest; tests lower them to reach every
// path with a small fixture.
var vecTuning = struct {
	// exactMax is the most candidate chunks (of the snapshot, under the
	// prefix) that are ranked exactly rather than through the index: a
	// few thousand distances cost less than the graph walk's page reads.
	exactMax int
	// efSearch is the least hnsw.ef_search (pgvector's default is 40),
	// the candidate list that recall depends on: on 100,000 vectors of
	// 256 dimensions in PGlite, recall@10 is 0.938 at 100 and 0.964 at 200
	// for 8 ms against 7.8 (BenchmarkNearest). nearest raises it to 2k.
	efSearch int
	// maxScanTuples bounds an iterative scan (hnsw.max_scan_tuples,
	// pgvector's default 20,000): past it the exact ranking answers.
	maxScanTuples int
}{exactMax: 2000, efSearch: 200, maxScanTuples: 20000}

// nearest returns the k chunks of a snapshot whose vectors of a model are
// nearest vec by cosine, best first (Score is the cosine similarity),
// keeping only the chunks whose path starts with pathPrefix. A chunk
// whose text is in several files is a hit in each.
func nearest(ctx context.Context, db vectorDB, snapshotID int64, modelID, dims int, vec []float32, k int, pathPrefix string) ([]store.VectorHit, error) {
	if k <= 0 {
		return nil, nil
	}
	if len(vec) != dims {
		return nil, fmt.Errorf("nearest vectors: the query has %d dimensions, the model %d (was it embedded by the model of the snapshot?)", len(vec), dims)
	}
	tx, err := db.Begin(ctx) // for SET LOCAL: the settings end with it
	if err != nil {
		return nil, fmt.Errorf("nearest vectors: %w", err)
	}
	defer tx.Rollback(ctx)
	f := vecFilter{snapshot: snapshotID, model: modelID, dims: dims, prefix: pathPrefix}
	q := pgvector.NewHalfVector(vec)
	exact := dims > maxHNSWDims
	if !exact {
		n, err := f.candidates(ctx, tx, vecTuning.exactMax+1)
		if err != nil {
			return nil, err
		}
		exact = n <= vecTuning.exactMax
	}
	if !exact {
		hits, err := hnswNearest(ctx, tx, f, q, k)
		if err != nil || len(hits) == k {
			return hits, err
		}
		// The walk stopped (max_scan_tuples) before k chunks passed the
		// filter: rank them all.
		if _, err := tx.Exec(ctx, `SET LOCAL enable_sort = on`); err != nil {
			return nil, fmt.Errorf("nearest vectors: %w", err)
		}
	}
	return queryHits(ctx, tx, f.exactSQL(), f.args(k, &q))
}

// hnswNearest answers through the model's HNSW index.
func hnswNearest(ctx context.Context, tx pgx.Tx, f vecFilter, q pgvector.HalfVector, k int) ([]store.VectorHit, error) {
	if err := setHNSW(ctx, tx, k); err != nil {
		return nil, err
	}
	return queryHits(ctx, tx, f.hnswSQL(k), f.args(k, &q))
}

// setHNSW sets up tx for a walk of the graph that keeps k chunks.
func setHNSW(ctx context.Context, tx pgx.Tx, k int) error {
	sets := strings.Join([]string{
		`SET LOCAL hnsw.iterative_scan = relaxed_order`,
		fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d`, max(vecTuning.efSearch, 2*k)),
		fmt.Sprintf(`SET LOCAL hnsw.max_scan_tuples = %d`, vecTuning.maxScanTuples),
		// nearest has counted the candidates and found too many to rank
		// them all; the planner, misled by its estimates of the join,
		// might still choose to (and sort them): the index is the one
		// path that yields the vectors in order without a sort.
		`SET LOCAL enable_sort = off`,
	}, "; ")
	// One round trip (the simple protocol takes several statements).
	if _, err := tx.Exec(ctx, sets, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("nearest vectors: %s: %w", sets, err)
	}
	return nil
}

func queryHits(ctx context.Context, tx pgx.Tx, sql string, args []any) ([]store.VectorHit, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("nearest vectors: %w", err)
	}
	var hits []store.VectorHit
	for rows.Next() {
		var path []byte
		var h store.VectorHit
		var dist float64
		var ord int32
		if err := rows.Scan(&path, &h.ChunkID, &ord, &dist); err != nil {
			return nil, fmt.Errorf("nearest vectors: %w", err)
		}
		h.Path, h.Ord, h.Score = string(path), int(ord), 1-dist
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("nearest vectors: %w", err)
	}
	return hits, nil
}

// vecFilter is the part of a nearest query that picks the candidates:
// the snapshot's chunks under a path prefix, with vectors of a model.
// The model id and dimensions go into the SQL text, not parameters: the
// planner matches the partial index (WHERE model_id = id) and its
// expression (halfvec(dims)) only against constants.
type vecFilter struct {
	snapshot    int64
	model, dims int
	prefix      string
}

// args are the parameters of the filter's queries: $1 the snapshot, $2
// the limit, then the path range (pathCond), then the query vector
// (vecParam) when there is one.
func (f vecFilter) args(limit int, q *pgvector.HalfVector) []any {
	args := []any{f.snapshot, limit}
	if lo, hi, ok := prefixRange(f.prefix); ok {
		args = append(args, lo)
		if hi != nil {
			args = append(args, hi)
		}
	}
	if q != nil {
		args = append(args, *q)
	}
	return args
}

// vecParam is the query vector's parameter.
func (f vecFilter) vecParam() string { return fmt.Sprintf("$%d", len(f.args(0, nil))+1) }

// pathCond is the path prefix as a range on dossier_snapshot_files'
// primary key (snapshot_id, path).
func (f vecFilter) pathCond(alias string) string {
	_, hi, ok := prefixRange(f.prefix)
	switch {
	case !ok:
		return ""
	case hi == nil:
		return fmt.Sprintf(" AND %s.path >= $3", alias)
	}
	return fmt.Sprintf(" AND %s.path >= $3 AND %s.path < $4", alias, alias)
}

// snapshotChunks selects the content hashes of the snapshot's chunks
// under the prefix.
func (f vecFilter) snapshotChunks() string {
	return `SELECT c.chunk_hash FROM dossier_snapshot_files f
		JOIN dossier_record_chunks c ON c.record_id = f.record_id
		WHERE f.snapshot_id = $1` + f.pathCond("f")
}

// hnswSQL orders the model's vectors by the indexed expression, so that
// the HNSW index yields them nearest first, and keeps those of the
// snapshot. With relaxed_order the index may yield them slightly out of
// order: the outer query sorts the k it kept, then spreads each over the
// files holding it.
func (f vecFilter) hnswSQL(k int) string {
	return fmt.Sprintf(`WITH nn AS MATERIALIZED (
		SELECT v.chunk_hash, v.embedding::halfvec(%[1]d) <=> %[4]s::halfvec(%[1]d) AS dist
		FROM dossier_vectors v
		WHERE v.model_id = %[2]d AND v.chunk_hash IN (%[3]s)
		ORDER BY dist LIMIT %[5]d)
	`, f.dims, f.model, f.snapshotChunks(), f.vecParam(), f.over(k)) + f.spread()
}

// over is how many chunks a walk of the graph fetches for k: with
// relaxed_order the index yields them nearly in order, and the best k of
// twice as many, sorted, are the true best k more often (recall@10 of a
// filtered query at 100k vectors: 0.920-0.966 fetching k).
func (vecFilter) over(k int) int { return 2 * k }

// spread turns the nearest hashes (nn) into hits: one per file and chunk
// of the snapshot holding them, nearest first, k in all.
func (f vecFilter) spread() string {
	return `SELECT f.path, c.chunk_id, c.ord, nn.dist FROM nn
		JOIN dossier_record_chunks c ON c.chunk_hash = nn.chunk_hash
		JOIN dossier_snapshot_files f ON f.record_id = c.record_id AND f.snapshot_id = $1` + f.pathCond("f") + `
		ORDER BY nn.dist, f.path, c.chunk_id LIMIT $2`
}

// exactSQL ranks every candidate: its distance expression is not the
// index's (no cast to halfvec(dims)), so the planner cannot walk the
// graph and compares the query with each of the snapshot's vectors.
func (f vecFilter) exactSQL() string {
	return fmt.Sprintf(`WITH nn AS MATERIALIZED (
		SELECT v.chunk_hash, v.embedding <=> %[3]s::halfvec AS dist
		FROM (SELECT DISTINCT chunk_hash FROM (%[2]s) s) h
		JOIN dossier_vectors v ON v.model_id = %[1]d AND v.chunk_hash = h.chunk_hash
		ORDER BY dist, v.chunk_hash LIMIT $2)
	`, f.model, f.snapshotChunks(), f.vecParam()) + f.spread()
}

// candidates counts the snapshot's chunks under the prefix, up to limit.
func (f vecFilter) candidates(ctx context.Context, tx pgx.Tx, limit int) (int, error) {
	var n int
	sql := `SELECT count(*) FROM (` + f.snapshotChunks() + ` LIMIT $2) s`
	if err := tx.QueryRow(ctx, sql, f.args(limit, nil)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("nearest vectors: count the snapshot's chunks: %w", err)
	}
	return n, nil
}

// prefixRange turns a path prefix into the range [lo, hi) of the paths it
// starts; hi is nil when no upper bound exists (a prefix of 0xff bytes),
// ok false when there is no prefix.
func prefixRange(prefix string) (lo, hi []byte, ok bool) {
	if prefix == "" {
		return nil, nil, false
	}
	lo = []byte(prefix)
	hi = append([]byte(nil), lo...)
	for len(hi) > 0 && hi[len(hi)-1] == 0xff {
		hi = hi[:len(hi)-1]
	}
	if len(hi) == 0 {
		return lo, nil, true
	}
	hi[len(hi)-1]++
	return lo, hi, true
}
