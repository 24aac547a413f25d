package pg

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// setupSchema gives conn an empty database with the core schema and the
// vector migration, and registers the vector types.
func setupSchema(t testing.TB, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	core, err := os.ReadFile("migrations/0001_core.sql")
	if err != nil {
		t.Fatal(err)
	}
	vec, err := os.ReadFile("migrations/0002_vectors.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{`DROP SCHEMA public CASCADE; CREATE SCHEMA public`, string(core), string(vec)} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("set up the schema: %v", err)
		}
	}
	if err := registerVectorTypes(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

// vecFixture is a repository of files and their chunks' vectors in two
// snapshots that share most files.
type vecFixture struct {
	dims      int
	files     []fixFile
	vectors   map[string][]float32 // by chunk hash
	snapshots [2][]int             // indexes into files
	ids       [2]int64             // snapshot ids, once stored
	// indexLast builds the HNSW index after the vectors are stored, in
	// one pass, rather than as they arrive: quicker for a large fixture.
	indexLast bool
}

type fixFile struct {
	path   string
	chunks []store.ChunkVector
}

// newVecFixture makes nfiles files of perFile chunks with clustered,
// seeded vectors (embeddings of code cluster by topic). Files under
// "dup/" share their first chunk's text, so one vector serves them all.
// Snapshot 0 holds all files but the last tenth, snapshot 1 all but the
// first tenth.
func newVecFixture(nfiles, perFile, dims int) *vecFixture {
	rng := rand.New(rand.NewPCG(31, 2))
	centers := make([][]float32, 48)
	for i := range centers {
		centers[i] = randVec(rng, dims, nil, 0)
	}
	dirs := []string{"cmd/", "index/", "store/", "ui/", "evidence/", "assemble/", "dup/", "docs/guide/", "themes/", "internal/"}
	fx := &vecFixture{dims: dims, vectors: map[string][]float32{}}
	for i := range nfiles {
		f := fixFile{path: fmt.Sprintf("%sfile%04d.go", dirs[i%len(dirs)], i)}
		topic := centers[rng.IntN(len(centers))]
		for c := range perFile {
			hash := fmt.Sprintf("chunk-%d-%d", i, c)
			if c == 0 && strings.HasPrefix(f.path, "dup/") {
				hash = "chunk-dup"
			}
			if fx.vectors[hash] == nil {
				fx.vectors[hash] = randVec(rng, dims, topic, 0.6)
			}
			f.chunks = append(f.chunks, store.ChunkVector{ChunkID: fmt.Sprint(c), Hash: hash, Vector: fx.vectors[hash]})
		}
		fx.files = append(fx.files, f)
	}
	for i := range nfiles {
		if i < nfiles-nfiles/10 {
			fx.snapshots[0] = append(fx.snapshots[0], i)
		}
		if i >= nfiles/10 {
			fx.snapshots[1] = append(fx.snapshots[1], i)
		}
	}
	return fx
}

// randVec returns a unit vector: center plus noise of the given spread, or
// uniform on the sphere without a center.
func randVec(rng *rand.Rand, dims int, center []float32, spread float64) []float32 {
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		x := rng.NormFloat64()
		if center != nil {
			x = float64(center[i]) + spread*x/math.Sqrt(float64(dims))
		}
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// store writes the fixture's records, snapshots and vectors of model.
func (fx *vecFixture) store(t testing.TB, conn *pgx.Conn, model string) int {
	t.Helper()
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("store the fixture: %v\n%s", err, sql)
		}
	}
	exec(`INSERT INTO dossier_repos (name) VALUES ('example.com/r')`)
	for s := range fx.snapshots {
		if err := conn.QueryRow(ctx, `INSERT INTO dossier_snapshots (repo_id, commit, recipe, model, state)
			VALUES (1, $1, 'r1', $2, 'ready') RETURNING id`, fmt.Sprint("commit", s), model).Scan(&fx.ids[s]); err != nil {
			t.Fatal(err)
		}
	}
	batches(len(fx.files), func(lo, hi int) {
		var recs, chunks []string
		for i := lo; i < hi; i++ {
			f := fx.files[i]
			recs = append(recs, fmt.Sprintf("(%d, '%s'::bytea, 'h%d', 'r1')", i+1, f.path, i))
			for j, c := range f.chunks {
				chunks = append(chunks, fmt.Sprintf("(%d, '%s', %d, '%s')", i+1, c.ChunkID, j, c.Hash))
			}
		}
		exec(`INSERT INTO dossier_records (id, path, hash, recipe) VALUES ` + strings.Join(recs, ","))
		exec(`INSERT INTO dossier_record_chunks (record_id, chunk_id, ord, chunk_hash) VALUES ` + strings.Join(chunks, ","))
	})
	for s, files := range fx.snapshots {
		batches(len(files), func(lo, hi int) {
			var rows []string
			for _, i := range files[lo:hi] {
				rows = append(rows, fmt.Sprintf("(%d, '%s'::bytea, %d)", fx.ids[s], fx.files[i].path, i+1))
			}
			exec(`INSERT INTO dossier_snapshot_files (snapshot_id, path, record_id) VALUES ` + strings.Join(rows, ","))
		})
	}
	id, err := ensureModel(ctx, conn, model, fx.dims)
	if err != nil {
		t.Fatal(err)
	}
	if fx.indexLast {
		exec(`DROP INDEX ` + hnswIndex(id))
	}
	var vs []store.ChunkVector
	for _, f := range fx.files {
		vs = append(vs, f.chunks...)
		if len(vs) >= vectorBatch {
			if err := putVectors(ctx, conn, id, fx.dims, vs); err != nil {
				t.Fatal(err)
			}
			vs = vs[:0]
		}
	}
	if err := putVectors(ctx, conn, id, fx.dims, vs); err != nil {
		t.Fatal(err)
	}
	if fx.indexLast {
		exec(`SET maintenance_work_mem = '1GB'`)
		if _, err := ensureModel(ctx, conn, model, fx.dims); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ANALYZE`)
	return id
}

func batches(n int, fn func(lo, hi int)) {
	for lo := 0; lo < n; lo += 200 {
		fn(lo, min(n, lo+200))
	}
}

// exact ranks the snapshot's chunks under prefix in Go: the k best hits,
// and every chunk's score by "path#chunk".
func (fx *vecFixture) exact(snapshot int, q []float32, k int, prefix string) ([]store.VectorHit, map[string]float64) {
	var all []store.VectorHit
	for _, i := range fx.snapshots[snapshot] {
		f := fx.files[i]
		if !strings.HasPrefix(f.path, prefix) {
			continue
		}
		for _, c := range f.chunks {
			all = append(all, store.VectorHit{Path: f.path, ChunkID: c.ChunkID, Score: cosine(q, c.Vector)})
		}
	}
	slices.SortFunc(all, func(a, b store.VectorHit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Path+"#"+a.ChunkID, b.Path+"#"+b.ChunkID)
	})
	scores := map[string]float64{}
	for _, h := range all {
		scores[h.Path+"#"+h.ChunkID] = h.Score
	}
	return all[:min(k, len(all))], scores
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// withTuning sets nearest's knobs for the test.
func withTuning(t testing.TB, exactMax, maxScanTuples int) {
	old := vecTuning
	t.Cleanup(func() { vecTuning = old })
	vecTuning.exactMax, vecTuning.maxScanTuples = exactMax, maxScanTuples
}

// startVectorServer starts PGlite and returns a connection to an empty
// database with the schema.
func startVectorServer(t testing.TB) *pgx.Conn {
	conn := pgtest.ConnectPGlite(t, pgtest.StartPGlite(t))
	setupSchema(t, conn)
	return conn
}
