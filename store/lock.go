package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dossierhq/dossier/store/fsafe"
	"github.com/gofrs/flock"
)

// WriterLock is held by the one process that keeps a workspace's index up to
// date. It is independent of the short bbolt opens.
type WriterLock struct{ f *flock.Flock }

// AcquireWriter takes the workspace's writer lock, waiting up to timeout
// (DefaultTimeout when zero) before failing with ErrInUse.
func AcquireWriter(root string, timeout time.Duration) (*WriterLock, error) {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	dir := Dir(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w (make it writable or choose another --root)", dir, err)
	}
	lockPath := filepath.Join(dir, "index.lock")
	f := flock.New(lockPath)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ok, err := f.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("lock %s: permission denied: make %s writable or choose another --root", lockPath, dir)
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	if !ok {
		holder := "another process"
		if pid := writerPID(dir); pid > 0 {
			holder = fmt.Sprintf("process %d", pid)
		}
		// The workbench, dossier mcp and index --watch hold it while they
		// run, and keep the index current themselves.
		return nil, fmt.Errorf("%w: %s holds %s (waited %s). A one-shot `dossier index` lets go when it ends: try again then. The workbench, `dossier mcp` and `dossier index --watch` hold it while open and index every change themselves: leave it to them, or stop that process first",
			ErrInUse, holder, lockPath, timeout)
	}
	// For the notice of a reader that waits (see WithWaitNotice); the lock
	// is on the file, not its content.
	_ = os.WriteFile(lockPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return &WriterLock{f: f}, nil
}

// writerActive reports whether a process holds the writer lock of the
// workspace whose .dossier directory is dir, without waiting for it or
// keeping it.
func writerActive(dir string) bool {
	l := flock.New(filepath.Join(dir, "index.lock"), flock.SetFlag(os.O_RDONLY))
	ok, err := l.TryRLock()
	if ok {
		l.Unlock()
	}
	return err == nil && !ok
}

// Release gives the lock back.
func (l *WriterLock) Release() error { return l.f.Unlock() }

// writerPID is the process id the workspace's indexer wrote into its lock
// file (see AcquireWriter), or 0.
func writerPID(dir string) int {
	data, err := fsafe.ReadFile(filepath.Join(dir, "index.lock"), 64)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
