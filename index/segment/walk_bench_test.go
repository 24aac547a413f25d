package segment

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
	"github.com/dossierhq/dossier/index/lang"
)

// goSample is 300 of the Go toolchain's own source files (those of go/...
// and net/..., in path order), the code a full index of GOROOT/src walks.
func goSample(b *testing.B) [][]byte {
	b.Helper()
	var out [][]byte
	for _, dir := range []string{"go", "net"} {
		_ = filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src", dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".go" && len(out) < 300 {
				if src, err := os.ReadFile(path); err == nil {
					out = append(out, src)
				}
			}
			return nil
		})
	}
	if len(out) < 300 {
		b.Skipf("%d Go files in GOROOT/src/{go,net}, want 300", len(out))
	}
	return slices.Clip(out)
}

func sampleBytes(srcs [][]byte) (n int64) {
	for _, s := range srcs {
		n += int64(len(s))
	}
	return n
}

// BenchmarkParseOnly is tree-sitter's parse of the sample alone: what
// BenchmarkSegmentGo spends beyond it is the segmenter's walk.
func BenchmarkParseOnly(b *testing.B) {
	srcs := goSample(b)
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(grammar.Of(lang.Go))
	b.SetBytes(sampleBytes(srcs))
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range srcs {
			tree, err := p.ParseCtx(context.Background(), nil, src)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	}
}

// BenchmarkSegmentGo segments the sample: parse and walk.
func BenchmarkSegmentGo(b *testing.B) {
	srcs := goSample(b)
	ps := NewParsers()
	defer ps.Close()
	b.SetBytes(sampleBytes(srcs))
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range srcs {
			if r := File(context.Background(), ps, lang.Go, lang.SrcCode, src); r.Fallback != "" {
				b.Fatal(r.Fallback)
			}
		}
	}
}
