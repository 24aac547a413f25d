package workbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/ui"
)

// BenchmarkWriteToSearchable is the workbench's latency from a file
// written to its symbol found by the overlay's search (Keep and Search as
// Open wires them, the search polled every 5 ms): the watcher's quiet
// (index.WatchQuiet), the batch, the query. The search overlay adds no
// pause of its own to the query it searches again once the batch lands;
// the screen adds a frame.
func BenchmarkWriteToSearchable(b *testing.B) {
	root := b.TempDir()
	for i := range 200 {
		write(b, root, fmt.Sprintf("pkg%d/f%d.go", i%20, i), fmt.Sprintf("package pkg%d\n\n// F%d does a thing.\nfunc F%d() int { return %d }\n", i%20, i, i, i))
	}
	cfg := config.Default()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Keep(root, cfg)(ctx, ui.IndexEvents{
			Progress: func(int, int) {},
			Waiting:  func(string) {},
			Ready:    func() { close(ready) },
			Batch: func(_, _ int, err error) {
				if err != nil {
					b.Error(err)
				}
			},
			Notice: func(string) {},
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	<-ready
	find := Search(root, search.NewEngine())
	b.ResetTimer()
	for i := range b.N {
		sym := fmt.Sprintf("QuasarBeacon%d", i)
		write(b, root, fmt.Sprintf("sky/star%d.go", i), "package sky\n\n// "+sym+" shines.\nfunc "+sym+"() int { return 7 }\n")
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
			resp, err := find(ctx, search.Query{Text: sym, K: 5, MinScore: search.DefaultMinScore}, search.Graph{})
			if err == nil && len(resp.Results) > 0 && resp.Results[0].Symbol == sym {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s never found (last error %v)", sym, err)
			}
		}
	}
}

func write(b *testing.B, root, rel, text string) {
	b.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}
