package index

import (
	"context"
	"os"
	"testing"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/store"
)

// BenchmarkNoopHistory is what an unchanged HEAD costs a run: the sync's
// check and the history files offered to the walk, read from the disk
// (walk) or from the index's records (records) (DOSSIER_BENCH_ROOT: a
// workspace indexed with history, e.g. a clone of koel/koel).
func BenchmarkNoopHistory(b *testing.B) {
	b.Run("walk", func(b *testing.B) { benchNoopHistory(b, false) })
	b.Run("records", func(b *testing.B) { benchNoopHistory(b, true) })
}

func benchNoopHistory(b *testing.B, fromRecords bool) {
	root := os.Getenv("DOSSIER_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_ROOT to an indexed git workspace")
	}
	head := repoInfo(root).Commit
	ix := &Indexer{root: root, opts: Options{HistoryDepth: history.DefaultDepth, HistoryCommits: history.DefaultWindow}}
	seen := map[string]bool{}
	_ = discover.Walk(context.Background(), root, discover.Options{}, discover.NewSkips(false), func(c discover.Candidate) error {
		seen[c.Rel] = true
		return nil
	})
	old := map[string]store.File{}
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	_ = db.View(func(tx *store.Tx) error { return tx.FileStats(func(f store.File) { old[f.Path] = f }) })
	db.Close()
	b.ResetTimer()
	for b.Loop() {
		res, err := history.Sync(context.Background(), history.Options{Root: root, Head: head, Depth: history.DefaultDepth, Window: history.DefaultWindow})
		if err != nil || res.Read != 0 {
			b.Fatalf("not a no-op: %+v %v", res, err)
		}
		n := 0
		ix.history = res
		if fromRecords {
			ix.prevHistoryMark = res.Mark // as after a finished run
		}
		_ = ix.walkDossier(context.Background(), old, seen, nil, func(discover.Candidate) error { n++; return nil })
		b.ReportMetric(float64(n), "files")
	}
}
