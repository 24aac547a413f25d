package index

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dossierhq/dossier/index/discover"
)

// BenchmarkWorkerProcess is a full index's per-file work, one worker, no
// store: each op reads and derives every file of a few packages of Go's
// tree (net/http, go/types, runtime), as the indexer's workers do.
func BenchmarkWorkerProcess(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	var cands []discover.Candidate
	size := int64(0)
	for _, dir := range []string{"net/http", "go/types", "runtime"} {
		entries, err := os.ReadDir(filepath.Join(src, dir))
		if err != nil {
			b.Skipf("no Go tree: %v", err)
		}
		for _, e := range entries {
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			rel := dir + "/" + e.Name()
			cands = append(cands, discover.Candidate{Rel: rel, Abs: filepath.Join(src, filepath.FromSlash(rel)),
				Size: info.Size(), ModTime: info.ModTime().UnixNano()})
			size += info.Size()
		}
	}
	ix, err := Open(Options{Root: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	w := ix.newWorker()
	ctx := context.Background()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cands {
			if o := w.process(ctx, c, nil); o.err != nil {
				b.Fatal(o.err)
			}
		}
	}
}
