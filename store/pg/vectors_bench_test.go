package pg

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// BenchmarkNearest measures nearest on PGlite (Postgres in WASM, so
// slower than a native server): DOSSIER_PG_BENCH_VECTORS vectors (default
// 100,000) of 256 dimensions, k = 10, through the index, through the index
// with a prefix keeping a tenth of the chunks, and exactly. It reports the
// p50 and p95 of a query and, for the index, recall@10 against exact over
// 50 queries.
//
//	go test -run '^$' -bench Nearest -benchtime 100x ./store/pg
func BenchmarkNearest(b *testing.B) {
	n := 100_000
	if s := os.Getenv("DOSSIER_PG_BENCH_VECTORS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatalf("DOSSIER_PG_BENCH_VECTORS=%q: %v", s, err)
		}
	}
	conn := pgtest.ConnectPGlite(b, pgtest.StartPGlite(b))
	setupSchema(b, conn)
	fx := newVecFixture(n/10, 10, 256)
	fx.indexLast = true
	start := time.Now()
	model := fx.store(b, conn, "builtin/256")
	b.Logf("stored %d vectors of %d dimensions and built the index in %v", len(fx.vectors), fx.dims, time.Since(start).Round(time.Second))
	for _, tc := range []struct {
		name     string
		exactMax int
		prefix   string
		ef       int
	}{
		{"hnsw/ef=100", 0, "", 100},
		{"hnsw/ef=200", 0, "", 200},
		{"hnsw/prefix/ef=200", 0, "store/", 200},
		{"exact", 1 << 30, "", 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			withTuning(b, tc.exactMax, vecTuning.maxScanTuples)
			vecTuning.efSearch = tc.ef
			rng := rand.New(rand.NewPCG(5, 5))
			var took []time.Duration
			for b.Loop() {
				f := fx.files[rng.IntN(len(fx.files))]
				q := randVec(rng, fx.dims, f.chunks[0].Vector, 0.5)
				t0 := time.Now()
				hits, err := nearest(context.Background(), conn, fx.ids[0], model, fx.dims, q, 10, tc.prefix)
				took = append(took, time.Since(t0))
				if err != nil || len(hits) != 10 {
					b.Fatalf("nearest: %d hits, %v", len(hits), err)
				}
			}
			slices.Sort(took)
			b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
			b.ReportMetric(ms(took[len(took)*95/100]), "p95-ms")
			if tc.exactMax == 0 {
				b.ReportMetric(measureRecall(b, conn, fx, model, tc.prefix, 50), "recall@10")
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
