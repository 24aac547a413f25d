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
