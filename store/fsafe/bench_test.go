package fsafe

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
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

// TestReadHead reads a file's head with ReadFile's checks: a FIFO is
// refused without waiting on it, a file over the cap is refused.
func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if h, err := ReadHead(p, 4, 100); err != nil || string(h) != "0123" {
		t.Errorf("ReadHead(4) = %q, %v", h, err)
	}
	if h, err := ReadHead(p, 64, 100); err != nil || string(h) != "0123456789" {
		t.Errorf("ReadHead(64) = %q, %v", h, err)
	}
	if _, err := ReadHead(p, 4, 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v, want ErrTooLarge", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHead(fifo, 4, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v, want ErrNotRegular", err)
	}
}
