package ui

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO at the debug log's path is neither waited on nor written to.
func TestOpenLogRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "debug.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openLog(fifo)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was opened as the debug log")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("opening a FIFO as the debug log blocked")
	}
	f, err := openLog(filepath.Join(dir, "ok.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, err := os.Stat(filepath.Join(dir, "ok.log")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log file: %v %v", st, err)
	}
}
