package xref

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkParseGo measures the Go extractor on net/http/server.go of the
// toolchain that runs it (about 4,000 lines).
func BenchmarkParseGo(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("go", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSampleGo runs the Go extractor over 300 of the toolchain's own
// files (go/... and net/..., in path order; index/segment's
// BenchmarkParseOnly is the parse of the same files alone, so the rest is
// the extractor's walk).
func BenchmarkSampleGo(b *testing.B) {
	var srcs [][]byte
	var n int64
	for _, dir := range []string{"go", "net"} {
		_ = filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src", dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".go" && len(srcs) < 300 {
				if src, err := os.ReadFile(path); err == nil {
					srcs, n = append(srcs, src), n+int64(len(src))
				}
			}
			return nil
		})
	}
	if len(srcs) < 300 {
		b.Skipf("%d Go files in GOROOT/src/{go,net}, want 300", len(srcs))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range srcs {
			if _, err := Parse("go", src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
