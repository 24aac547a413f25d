package grammar

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/lang"
)

// BenchmarkFlatten copies the trees of 300 of the Go toolchain's files
// (index/segment's sample) into Go memory, the parse done beforehand.
func BenchmarkFlatten(b *testing.B) {
	var trees []*sitter.Tree
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(Of(lang.Go))
	for _, dir := range []string{"go", "net"} {
		_ = filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src", dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".go" && len(trees) < 300 {
				if src, err := os.ReadFile(path); err == nil {
					if tree, err := p.ParseCtx(context.Background(), nil, src); err == nil {
						trees = append(trees, tree)
					}
				}
			}
			return nil
		})
	}
	if len(trees) < 300 {
		b.Skipf("%d Go files in GOROOT/src/{go,net}, want 300", len(trees))
	}
	nodes := 0
	for _, t := range trees {
		nodes += Flatten(t).Len()
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range trees {
			Flatten(t)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
	for _, t := range trees {
		t.Close()
	}
}
