package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dossierhq/dossier/store"
)

// KeepRetry is how often Keep tries again for the writer lock another
// process holds.
var KeepRetry = time.Second

// KeepHooks tell a front-end what Keep does; any of them may be nil. They
// are called from Keep's goroutine, one at a time.
type KeepHooks struct {
	// Waiting is called once when another process holds the writer lock
	// (err says which lock): that process writes the index, and Keep
	// tries again every KeepRetry until it lets go.
	Waiting func(err error)
	// Took is called once Keep holds the writer lock. missing says the
	// index did not exist then (the first run builds it); waited that
	// Keep waited for another process.
	Took func(missing, waited bool)
	// Ran is called with the first run's summary, before the watch.
	Ran func(Summary)
	// Batch is Watch's report: every batch written after the first run,
	// or the error it hit (the watch goes on).
	Batch func(Summary, error)
	// Watching is Watch's ready: from then on no change is missed.
	Watching func()
}

// Keep brings the index up to date and keeps it current until ctx ends,
// as `index --watch` does: it takes the writer lock, runs once, then
// watches (see Watch). While another dossier process holds the lock (an
// `index --watch`, a one-shot `index`, another workbench) that process
// writes the index and Keep waits its turn: once the lock is let go it
// takes over, so the index never goes stale while Keep runs. It returns
// nil when ctx ends, whatever it was doing (a batch interrupted by then
// is not written: the index keeps its earlier state), and otherwise the
// error that stopped it: the lock or the first run failing, or the
// watcher failing to start. opts.LockTimeout, when zero, is 200 ms: the
// wait for the lock is Keep's own loop, which ctx ends.
func Keep(ctx context.Context, opts Options, h KeepHooks) error {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 200 * time.Millisecond
	}
	l, linked, err := store.ReadLink(opts.Root)
	if err != nil {
		return err
	}
	if linked {
		// The store holds the index: there is nothing to build.
		took := h.Took
		h.Took = func(_, waited bool) {
			if took != nil {
				took(false, waited)
			}
		}
	}
	ix, err := openTurn(ctx, opts, h)
	if ix == nil {
		return err // nil when ctx ended first
	}
	defer ix.Close()
	if linked {
		ix.keepLinked(l)
	}
	sum, err := ix.Run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.root, err)
	}
	if h.Ran != nil {
		h.Ran(sum)
	}
	report := h.Batch
	if report == nil {
		report = func(Summary, error) {}
	}
	err = ix.Watch(ctx, report, h.Watching)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// openTurn takes the writer lock, trying again every KeepRetry while
// another process holds it; the indexer is nil when ctx ends first.
func openTurn(ctx context.Context, opts Options, h KeepHooks) (*Indexer, error) {
	for waited := false; ; {
		_, err := os.Stat(store.Path(opts.Root))
		missing := errors.Is(err, os.ErrNotExist)
		ix, err := Open(opts)
		if err == nil {
			if h.Took != nil {
				h.Took(missing, waited)
			}
			return ix, nil
		}
		if !errors.Is(err, store.ErrInUse) {
			return nil, err
		}
		if !waited {
			waited = true
			if h.Waiting != nil {
				h.Waiting(err)
			}
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(KeepRetry):
		}
	}
}
