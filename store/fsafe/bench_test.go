package fsafe

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile reads a 64 KB file, the size of a large source file:
// the buffer is sized by the file, not grown from a few hundred bytes.
func BenchmarkReadFile(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 64<<10), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(p, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}
