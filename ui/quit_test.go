package ui

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble"
)

// TestCloseEndsAnExportsWait: an export into a FIFO that has no reader
// waits for one, as a shell's > does, but quitting the workbench ends
// that wait: close (which Run calls before it returns) came back only
// when a reader did, so q hung (issue 30's review).
func TestCloseEndsAnExportsWait(t *testing.T) {
	root, e := fixture(t)
	fifo := filepath.Join(root, "prompt.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRunner(e)
	done := make(chan error, 1)
	go func() {
		_, _, err := r.exec(r.quit, []string{"assemble", "--out", fifo}, assemble.MDCtx)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // the export is waiting for a reader
	closed := make(chan struct{})
	go func() { r.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("close still waits for the export's FIFO reader after 10 s")
	}
	if err := <-done; err == nil {
		t.Error("the export into a FIFO no one read says it wrote")
	}
}
