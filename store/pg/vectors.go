package pg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/dossierhq/dossier/store"
)

// Vectors (migration 0002, pgvector).
//
// A chunk's vector is stored once per (embedding model, chunk content
// hash) in dossier_vectors: the same chunk text in many files, branches or
// snapshots is one row, and a snapshot reaches its vectors through its
// files' records (dossier_snapshot_files -> dossier_record_chunks ->
// chunk_hash). Vectors are halfvec (float16): half the bytes of vector in
// the table and in the index, at a precision (about 3 decimal digits)
// above what embedding models carry, and pgvector indexes halfvec up to
// 4,000 dimensions against 2,000 for vector.
//
// Every model has its own HNSW index, a partial one (WHERE model_id = id)
// over the column cast to halfvec(dims): the column holds vectors of every
// size, an index needs one, and a search never mixes models. The index is
// created the first time a model's vectors are stored (ensureModel).
// Models above 4,000 dimensions get no index and are searched exactly.
//
// The index spans every repository and snapshot, so a snapshot's search is
// a filtered one (its chunks, under a path prefix). nearest keeps its k
// results in two ways: when the filter leaves few chunks (at most
// vecTuning.exactMax) it ranks them all exactly, which is cheaper than
// walking the graph; otherwise it walks the HNSW graph with pgvector 0.8's
// iterative scan (hnsw.iterative_scan = relaxed_order), which goes on
// past ef_search candidates until k of them pass the filter, and re-sorts
// them by distance. Should the walk stop short (hnsw.max_scan_tuples), the
// exact ranking answers instead.

// vectorDB is what the vector functions need of a connection, a pool or a
// transaction.
type vectorDB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Limits of pgvector on halfvec: the type holds up to 16,000 dimensions,
// an HNSW index up to 4,000.
const (
	maxHalfvecDims = 16000
	maxHNSWDims    = 4000
	// maxHalf is the largest finite float16: a larger component would be
	// stored as infinity.
	maxHalf = 65504
)

// vectorsAvailable reports whether the server can hold vectors (pgvector
// is installed in the database, or available to CREATE EXTENSION) and its
// version: the installed one, else the one that would be installed.
func vectorsAvailable(ctx context.Context, q vectorDB) (version string, ok bool, err error) {
	var installed, available *string
	err = q.QueryRow(ctx, `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector'),
		(SELECT default_version FROM pg_available_extensions WHERE name = 'vector')`).Scan(&installed, &available)
	if err != nil {
		return "", false, fmt.Errorf("look for pgvector: %w", err)
	}
	switch {
	case installed != nil:
		return *installed, true, nil
	case available != nil:
		return *available, true, nil
	}
	return "", false, nil
}

// registerVectorTypes lets conn send and read halfvec in binary (2 bytes a
// dimension instead of about 8 as text); a connection to a database
// without pgvector is left as it is. Called for each new connection.
func registerVectorTypes(ctx context.Context, conn *pgx.Conn) error {
	var oid *uint32
	if err := conn.QueryRow(ctx, `SELECT to_regtype('halfvec')::oid`).Scan(&oid); err != nil {
		return fmt.Errorf("look for pgvector's types: %w", err)
	}
	if oid == nil {
		return nil
	}
	return pgxvec.RegisterTypes(ctx, conn)
}

// ensureModel returns the id of model (a "name/dims" string), recording it
// and creating its HNSW index the first time. A model recorded with other
// dimensions is an error.
func ensureModel(ctx context.Context, q vectorDB, model string, dims int) (int, error) {
	if model == "" || dims <= 0 || dims > maxHalfvecDims {
		return 0, fmt.Errorf("embedding model %q with %d dimensions: a stored model needs a name and 1 to %d dimensions",
			model, dims, maxHalfvecDims)
	}
	if _, err := q.Exec(ctx, `INSERT INTO dossier_models (name, dims) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
		model, dims); err != nil {
		return 0, fmt.Errorf("record embedding model %q: %w", model, err)
	}
	var id, have int
	if err := q.QueryRow(ctx, `SELECT id, dims FROM dossier_models WHERE name = $1`, model).Scan(&id, &have); err != nil {
		return 0, fmt.Errorf("read embedding model %q: %w", model, err)
	}
	if have != dims {
		return 0, fmt.Errorf("embedding model %q: the store holds its vectors with %d dimensions, these have %d (name the model with its dimensions)",
			model, have, dims)
	}
	if dims > maxHNSWDims {
		return id, nil // pgvector cannot index it: nearest ranks exactly
	}
	// Look before CREATE INDEX IF NOT EXISTS, which would take a SHARE
	// lock on dossier_vectors even when the index exists, and so wait for
	// every other writer's open transaction.
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, hnswIndex(id)).Scan(&exists); err != nil {
		return 0, fmt.Errorf("look for the vector index of %q: %w", model, err)
	}
	if exists {
		return id, nil
	}
	sql := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON dossier_vectors USING hnsw ((embedding::halfvec(%d)) halfvec_cosine_ops) WHERE model_id = %d`,
		hnswIndex(id), dims, id)
	if _, err := q.Exec(ctx, sql); err != nil {
		return 0, fmt.Errorf("create the vector index of %q: %w", model, err)
	}
	return id, nil
}

// hnswIndex names the HNSW index of a model.
func hnswIndex(modelID int) string { return fmt.Sprintf("dossier_vectors_hnsw_%d", modelID) }

// vectorBatch is how many vectors one INSERT carries: 500 vectors of 1,536
// dimensions are 1.5 MB as halfvec, well under a message's limit, and a
// multi-row INSERT is what PGlite takes (it breaks on COPY).
const vectorBatch = 500

// putVectors stores the vectors of a model (whose id ensureModel gave),
// each under its chunk's content hash; a hash already stored is left as
// it is.
func putVectors(ctx context.Context, q vectorDB, modelID, dims int, vs []store.ChunkVector) error {
	vs, err := uniqueVectors(vs, dims)
	if err != nil {
		return err
	}
	for len(vs) > 0 {
		n := min(len(vs), vectorBatch)
		var sql strings.Builder
		sql.WriteString(`INSERT INTO dossier_vectors (model_id, chunk_hash, embedding) VALUES `)
		args := make([]any, 0, 1+2*n)
		args = append(args, modelID)
		for i, v := range vs[:n] {
			if i > 0 {
				sql.WriteByte(',')
			}
			fmt.Fprintf(&sql, "($1, $%d, $%d::halfvec)", len(args)+1, len(args)+2)
			args = append(args, v.Hash, pgvector.NewHalfVector(v.Vector))
		}
		sql.WriteString(` ON CONFLICT (model_id, chunk_hash) DO NOTHING`)
		if _, err := q.Exec(ctx, sql.String(), args...); err != nil {
			return fmt.Errorf("store %d vectors: %w", n, err)
		}
		vs = vs[n:]
	}
	return nil
}

// uniqueVectors checks vs and returns them once per hash, in hash order:
// writers that store overlapping chunks lock their rows in the same order
// and cannot deadlock.
func uniqueVectors(vs []store.ChunkVector, dims int) ([]store.ChunkVector, error) {
	out := make([]store.ChunkVector, 0, len(vs))
	for _, v := range vs {
		if err := checkVector(v, dims); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b store.ChunkVector) int { return strings.Compare(a.Hash, b.Hash) })
	return slices.CompactFunc(out, func(a, b store.ChunkVector) bool { return a.Hash == b.Hash }), nil
}

// errBadVector is the class of the errors checkVector returns.
var errBadVector = errors.New("vector cannot be stored")

func checkVector(v store.ChunkVector, dims int) error {
	if v.Hash == "" {
		return fmt.Errorf("chunk %q: %w: no content hash", v.ChunkID, errBadVector)
	}
	if len(v.Vector) != dims {
		return fmt.Errorf("chunk %q: %w: %d dimensions, the model has %d", v.ChunkID, errBadVector, len(v.Vector), dims)
	}
	for i, x := range v.Vector {
		if math.IsNaN(float64(x)) || math.Abs(float64(x)) > maxHalf {
			return fmt.Errorf("chunk %q: %w: component %d is %v, outside what halfvec holds (±%d)",
				v.ChunkID, errBadVector, i, x, maxHalf)
		}
	}
	return nil
}
