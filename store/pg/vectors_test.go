package pg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// TestVectors runs the vector store against PGlite (Postgres 18 with
// pgvector 0.8): one server for every subtest, which each start from an
// empty database.
func TestVectors(t *testing.T) {
	url := pgtest.StartPGlite(t)
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *pgx.Conn)
	}{
		{"Available", testVectorsAvailable},
		{"ModelIndex", testModelIndex},
		{"ContentAddressed", testContentAddressed},
		{"BadVectors", testBadVectors},
		{"Nearest", testNearest},
		{"Recall", testRecall},
		{"Explain", testExplain},
		{"ShortWalk", testShortWalk},
		{"Unindexed", testUnindexed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A connection each: the schema is made again, and with it
			// pgvector's types, whose ids a connection caches.
			conn := pgtest.ConnectPGlite(t, url)
			setupSchema(t, conn)
			tc.fn(t, conn)
		})
	}
}

func testVectorsAvailable(t *testing.T, conn *pgx.Conn) {
	version, ok, err := vectorsAvailable(context.Background(), conn)
	if err != nil || !ok || !strings.HasPrefix(version, "0.8.") {
		t.Fatalf("vectorsAvailable = %q, %v, %v; want pgvector 0.8.x", version, ok, err)
	}
}

// TestVectorsWithoutPgvector: a server without pgvector says so, and its
// connections work without the vector types.
func TestVectorsWithoutPgvector(t *testing.T) {
	conn := pgtest.ConnectPGlite(t, pgtest.StartPGliteWithoutVector(t))
	ctx := context.Background()
	version, ok, err := vectorsAvailable(ctx, conn)
	if err != nil || ok || version != "" {
		t.Fatalf("vectorsAvailable = %q, %v, %v; want not available", version, ok, err)
	}
	if err := registerVectorTypes(ctx, conn); err != nil {
		t.Fatalf("registerVectorTypes without pgvector: %v", err)
	}
}

// testModelIndex: each model gets its own HNSW index, once.
func testModelIndex(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	a, err := ensureModel(ctx, conn, "builtin/64", 64)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ensureModel(ctx, conn, "builtin/64", 64)
	if err != nil || again != a {
		t.Fatalf("ensureModel again = %d, %v; want %d", again, err, a)
	}
	b, err := ensureModel(ctx, conn, "openai text-embedding-3-small/1536", 1536)
	if err != nil || b == a {
		t.Fatalf("second model = %d, %v", b, err)
	}
	big, err := ensureModel(ctx, conn, "huge/4096", 4096)
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]string{}
	rows, _ := conn.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'dossier_vectors'`)
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		idx[name] = def
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id, dims := range map[int]int{a: 64, b: 1536} {
		def := idx[hnswIndex(id)]
		for _, want := range []string{"USING hnsw", fmt.Sprintf("halfvec(%d)", dims), "halfvec_cosine_ops", fmt.Sprintf("model_id = %d", id)} {
			if !strings.Contains(def, want) {
				t.Errorf("index of model %d: %q lacks %q (indexes: %v)", id, def, want, idx)
			}
		}
	}
	if def, ok := idx[hnswIndex(big)]; ok {
		t.Errorf("a model of 4096 dimensions got an index pgvector cannot build: %s", def)
	}
	if _, err := ensureModel(ctx, conn, "builtin/64", 128); err == nil || !strings.Contains(err.Error(), "64 dimensions") {
		t.Errorf("same model with other dimensions: %v, want an error naming the stored 64", err)
	}
}

// testContentAddressed: a chunk text stored twice, in one call or two, is
// one row; a model's vectors do not mix with another's.
func testContentAddressed(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	id, err := ensureModel(ctx, conn, "m/3", 3)
	if err != nil {
		t.Fatal(err)
	}
	v := []float32{1, 0, 0}
	vs := []store.ChunkVector{{ChunkID: "a", Hash: "h1", Vector: v}, {ChunkID: "b", Hash: "h1", Vector: v}, {ChunkID: "c", Hash: "h2", Vector: v}}
	for range 2 {
		if err := putVectors(ctx, conn, id, 3, vs); err != nil {
			t.Fatal(err)
		}
	}
	other, err := ensureModel(ctx, conn, "n/3", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := putVectors(ctx, conn, other, 3, vs[:1]); err != nil {
		t.Fatal(err)
	}
	var n, hashes int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT chunk_hash) FROM dossier_vectors WHERE model_id = $1`, id).Scan(&n, &hashes); err != nil {
		t.Fatal(err)
	}
	if n != 2 || hashes != 2 {
		t.Errorf("model %d holds %d rows for %d hashes, want 2 and 2", id, n, hashes)
	}
}

func testBadVectors(t *testing.T, conn *pgx.Conn) {
	ctx := context.Background()
	id, err := ensureModel(ctx, conn, "m/3", 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []store.ChunkVector{
		{ChunkID: "short", Hash: "h", Vector: []float32{1, 2}},
		{ChunkID: "nan", Hash: "h", Vector: []float32{1, float32(math.NaN()), 0}},
		{ChunkID: "huge", Hash: "h", Vector: []float32{1, 1e6, 0}},
		{ChunkID: "nohash", Vector: []float32{1, 0, 0}},
	} {
		err := putVectors(ctx, conn, id, 3, []store.ChunkVector{v})
		if !errors.Is(err, errBadVector) || !strings.Contains(err.Error(), v.ChunkID) {
			t.Errorf("vector %q: %v, want errBadVector naming the chunk", v.ChunkID, err)
		}
	}
	if _, err := nearest(ctx, conn, 1, id, 3, []float32{1, 0}, 10, ""); err == nil {
		t.Error("a query of 2 dimensions against a model of 3: no error")
	}
}

// testNearest checks the hits of nearest against a ranking in Go, through
// the exact ranking and through the index, with and without a path
// prefix that leaves few chunks.
func testNearest(t *testing.T, conn *pgx.Conn) {
	fx := newVecFixture(300, 10, 64)
	model := fx.store(t, conn, "builtin/64")
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		name     string
		exactMax int
		prefix   string
	}{
		{"exact", 1 << 30, ""},
		{"hnsw", 0, ""},
		{"exact/prefix", 1 << 30, "dup/"},
		{"hnsw/prefix", 0, "dup/"},
		{"auto/selective", 2000, "themes/file0008"}, // 10 chunks
		{"hnsw/selective", 0, "themes/file0008"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withTuning(t, tc.exactMax, 20000)
			for s := range fx.ids {
				q := randVec(rng, fx.dims, fx.vectors[fmt.Sprintf("chunk-%d-3", rng.IntN(300))], 0.3)
				want, scores := fx.exact(s, q, 10, tc.prefix)
				got, err := nearest(context.Background(), conn, fx.ids[s], model, fx.dims, q, 10, tc.prefix)
				if err != nil {
					t.Fatal(err)
				}
				checkHits(t, got, want, scores, tc.prefix, tc.exactMax > 0)
				if tc.exactMax == 0 {
					// The walk alone, without the exact ranking behind it:
					// the iterative scan goes on until k chunks pass.
					checkHits(t, walk(t, conn, vecFilter{fx.ids[s], model, fx.dims, tc.prefix}, q, 10), want, scores, tc.prefix, false)
				}
			}
		})
	}
}

// walk answers through the index only, as nearest does when the filter
// leaves many chunks.
func walk(t *testing.T, conn *pgx.Conn, f vecFilter, q []float32, k int) []store.VectorHit {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	hits, err := hnswNearest(ctx, tx, f, pgvector.NewHalfVector(q), k)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// checkHits: got has as many hits as want, best first, each a chunk of
// the snapshot under prefix with its score; exact ones score as want's.
func checkHits(t *testing.T, got, want []store.VectorHit, scores map[string]float64, prefix string, exact bool) {
	t.Helper()
	const tolerance = 2e-3 // halfvec rounding
	if len(got) != len(want) {
		t.Fatalf("%d hits, want %d: %v", len(got), len(want), got)
	}
	for i, h := range got {
		s, ok := scores[h.Path+"#"+h.ChunkID]
		if !ok || !strings.HasPrefix(h.Path, prefix) {
			t.Fatalf("hit %d %s#%s is not a chunk of the snapshot under %q", i, h.Path, h.ChunkID, prefix)
		}
		if math.Abs(s-h.Score) > tolerance {
			t.Errorf("hit %d %s#%s scores %.4f, its cosine is %.4f", i, h.Path, h.ChunkID, h.Score, s)
		}
		if i > 0 && h.Score > got[i-1].Score {
			t.Errorf("hit %d scores %.4f, above hit %d (%.4f)", i, h.Score, i-1, got[i-1].Score)
		}
		if exact && math.Abs(h.Score-want[i].Score) > tolerance {
			t.Errorf("exact hit %d scores %.4f, the %dth best chunk %.4f", i, h.Score, i+1, want[i].Score)
		}
	}
}

// testRecall measures recall@10 of the index against the exact ranking,
// over 50 queries, without and with a prefix that keeps a tenth.
func testRecall(t *testing.T, conn *pgx.Conn) {
	fx := newVecFixture(400, 10, 64)
	model := fx.store(t, conn, "builtin/64")
	for _, prefix := range []string{"", "store/"} {
		r := measureRecall(t, conn, fx, model, prefix, 50)
		t.Logf("recall@10 of HNSW against exact, %d vectors, prefix %q: %.3f", len(fx.vectors), prefix, r)
		if r < 0.95 {
			t.Errorf("recall@10 with prefix %q = %.3f, want >= 0.95", prefix, r)
		}
	}
}

// measureRecall is the mean share of the exact top 10 that the index
// finds, over n queries near the fixture's chunks.
func measureRecall(t testing.TB, conn *pgx.Conn, fx *vecFixture, model int, prefix string, n int) float64 {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(len(prefix)), 10))
	var sum float64
	for range n {
		f := fx.files[rng.IntN(len(fx.files))]
		q := randVec(rng, fx.dims, f.chunks[rng.IntN(len(f.chunks))].Vector, 0.5)
		withTuning(t, 1<<30, 20000)
		exact, err := nearest(ctx, conn, fx.ids[0], model, fx.dims, q, 10, prefix)
		if err != nil {
			t.Fatal(err)
		}
		vecTuning.exactMax = 0
		approx, err := nearest(ctx, conn, fx.ids[0], model, fx.dims, q, 10, prefix)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, h := range exact {
			want[h.Path+"#"+h.ChunkID] = true
		}
		found := 0
		for _, h := range approx {
			if want[h.Path+"#"+h.ChunkID] {
				found++
			}
		}
		sum += float64(found) / float64(len(exact))
	}
	return sum / float64(n)
}

// testExplain: the planner walks the model's HNSW index for hnswSQL, with
// and without a prefix, and never for exactSQL.
func testExplain(t *testing.T, conn *pgx.Conn) {
	fx := newVecFixture(300, 10, 64)
	model := fx.store(t, conn, "builtin/64")
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	q := pgvector.NewHalfVector(fx.files[0].chunks[0].Vector)
	for _, prefix := range []string{"", "store/", "themes/file0008"} {
		f := vecFilter{snapshot: fx.ids[0], model: model, dims: fx.dims, prefix: prefix}
		for _, tc := range []struct {
			sql  string
			want bool
		}{{f.hnswSQL(10), true}, {f.exactSQL(), false}} {
			plan := explain(t, conn, tc.sql, f.args(10, &q), tc.want)
			if used := strings.Contains(plan, hnswIndex(model)); used != tc.want {
				t.Errorf("prefix %q: index used = %v, want %v; plan:\n%s", prefix, used, tc.want, plan)
			}
		}
	}
}

// explain returns the plan of sql, with the settings of a graph walk when
// hnsw is set, as nearest runs it.
func explain(t *testing.T, conn *pgx.Conn, sql string, args []any, hnsw bool) string {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if hnsw {
		if err := setHNSW(ctx, tx, 10); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.Query(ctx, "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// testShortWalk: when the graph walk stops (max_scan_tuples) before k
// chunks pass a selective filter, nearest still answers k, exactly.
func testShortWalk(t *testing.T, conn *pgx.Conn) {
	fx := newVecFixture(300, 10, 64)
	model := fx.store(t, conn, "builtin/64")
	withTuning(t, 0, 1)
	vecTuning.efSearch = 10
	const prefix = "themes/file0008" // 10 chunks of 2,700
	q := randVec(rand.New(rand.NewPCG(1, 1)), fx.dims, nil, 0)
	if short := walk(t, conn, vecFilter{fx.ids[0], model, fx.dims, prefix}, q, 10); len(short) >= 10 {
		t.Fatalf("the walk found %d hits: it did not stop short, the test tests nothing", len(short))
	}
	want, scores := fx.exact(0, q, 10, prefix)
	got, err := nearest(context.Background(), conn, fx.ids[0], model, fx.dims, q, 10, prefix)
	if err != nil {
		t.Fatal(err)
	}
	checkHits(t, got, want, scores, prefix, true)
}

// testUnindexed: a model too large for an HNSW index (4,096 dimensions)
// is ranked exactly, however many candidates.
func testUnindexed(t *testing.T, conn *pgx.Conn) {
	fx := newVecFixture(40, 2, 4096)
	model := fx.store(t, conn, "huge/4096")
	withTuning(t, 0, 20000)
	q := randVec(rand.New(rand.NewPCG(3, 3)), fx.dims, fx.files[5].chunks[1].Vector, 0.5)
	want, scores := fx.exact(1, q, 10, "")
	got, err := nearest(context.Background(), conn, fx.ids[1], model, fx.dims, q, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	checkHits(t, got, want, scores, "", true)
}
