package cli

import (
	"bytes"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A command that does not wind down on its cancelled context (blocked
// where a context cannot reach) still ends after SIGTERM: the process exits
// with 128+15 and says why.
func TestSignalEndsABlockedCommand(t *testing.T) {
	var mu sync.Mutex
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	ctx, stop := Interruptible(lockedWriter{&mu, &stderr}, func(code int) { exited <- code })
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("SIGTERM did not cancel the command's context")
	}
	select {
	case code := <-exited:
		if code != 143 {
			t.Errorf("exit code %d, want 143", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a command that ignores its context was not ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(stderr.String(), "stopped by SIGTERM") {
		t.Errorf("stderr %q does not say why", stderr.String())
	}
}

// A command that returns on its own is never ended by the backstop.
func TestSignalLetsACommandFinish(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := Interruptible(&bytes.Buffer{}, func(code int) { exited <- code })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-ctx.Done()
	stop() // the command returned
	select {
	case code := <-exited:
		t.Errorf("exit(%d) called after the command returned", code)
	case <-time.After(2 * stopGrace):
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
