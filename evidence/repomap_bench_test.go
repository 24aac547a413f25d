package evidence

import (
	"os"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/index/repomap"
	"github.com/dossierhq/dossier/store"
)

// The repo map's build time on a real index: DOSSIER_MAP_ROOT names an
// indexed workspace (for issue 34's figure, a copy of $(go env GOROOT)/src);
// without it the benchmarks skip.

func mapBenchIndex(b *testing.B) *store.DB {
	root := os.Getenv("DOSSIER_MAP_ROOT")
	if root == "" {
		b.Skip("DOSSIER_MAP_ROOT names no indexed workspace")
	}
	db, err := openIndex(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkRepoMapGraph reads the reference graph from the index: what a
// map costs once per index generation.
func BenchmarkRepoMapGraph(b *testing.B) {
	db := mapBenchIndex(b)
	for b.Loop() {
		if err := db.View(func(tx *store.Tx) error { _, err := ReadGraph(tx); return err }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRepoMapRank ranks and fits a 1024-token map around a focus of
// two files: what every rebuild and status check costs once the graph is
// read.
func BenchmarkRepoMapRank(b *testing.B) {
	db := mapBenchIndex(b)
	var g *repomap.Graph
	if err := db.View(func(tx *store.Tx) (err error) { g, err = ReadGraph(tx); return err }); err != nil {
		b.Fatal(err)
	}
	c, _ := tokens.ForEncoding(tokens.O200kBase)
	focus := map[string]float64{"net/http/server.go": 1, "net/http/request.go": 1}
	for b.Loop() {
		if BuildMap(g, focus, 1024, c.Count) == "" {
			b.Fatal("empty map")
		}
	}
}
