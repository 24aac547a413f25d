package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/store"
)

// Watch batching: a batch is written once changes have stopped for
// WatchQuiet, so a lone save is searchable at once (an agent searches
// `dossier mcp` right after writing a file); while changes keep coming (a
// checkout, a build) it is written WatchInterval after its first change
// at the latest, or as soon as it holds WatchMaxBatch paths (seed 004:
// every 5 s or 100 files).
var (
	WatchQuiet    = 150 * time.Millisecond
	WatchInterval = 5 * time.Second
	WatchMaxBatch = 100
)

// batchClock times the batch being gathered: due WatchQuiet after its
// last change, and never later than WatchInterval after its first.
type batchClock struct {
	timer *time.Timer
	first time.Time // of the batch; zero when none is pending
}

func newBatchClock() *batchClock {
	c := &batchClock{timer: time.NewTimer(time.Hour)}
	c.timer.Stop()
	return c
}

// change notes a change joining the batch and moves its due time.
func (c *batchClock) change() {
	now := time.Now()
	if c.first.IsZero() {
		c.first = now
	}
	wait := WatchQuiet
	if left := WatchInterval - now.Sub(c.first); left < wait {
		wait = max(left, 0)
	}
	c.timer.Reset(wait)
}

// reset forgets the batch (written, or taken in by a full run).
func (c *batchClock) reset() {
	c.first = time.Time{}
	c.timer.Stop()
}

// Watch keeps the index current until ctx ends. report is called after
// every batch with its summary, or with the error that batch hit (the
// watch goes on). Once the directories are watched, a catch-up run takes
// in what changed between the caller's last run and then (reported only
// when it changed something), and ready, when not nil, is called: from
// there on no change is missed.
func (ix *Indexer) Watch(ctx context.Context, report func(Summary, error), ready func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}
	defer w.Close()
	if err := ix.watchTree(ctx, w, ""); err != nil {
		return err
	}
	ix.watchDossier(w)
	if sum, err := ix.Run(ctx); ctx.Err() != nil {
		return ctx.Err()
	} else if err != nil || sum.Indexed+sum.Touched+sum.Removed > 0 {
		report(sum, err)
	}
	if ready != nil {
		ready()
	}
	pending := map[string]bool{}
	full := false // a new commit or a kept answer: a full run takes it in
	clock := newBatchClock()
	defer clock.reset()
	flush := func() {
		paths := make([]string, 0, len(pending))
		for p := range pending {
			paths = append(paths, p)
		}
		pending = map[string]bool{}
		clock.reset()
		var sum Summary
		var err error
		if full {
			full = false
			sum, err = ix.Run(ctx)
		} else {
			sum, err = ix.Update(ctx, paths)
		}
		if ctx.Err() != nil {
			return
		}
		report(sum, err)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err, ok := <-w.Errors:
			if !ok {
				return ix.watchEnded()
			}
			if ix.watchError(ctx, err, report) {
				pending, full = map[string]bool{}, false
				clock.reset()
			}
		case ev, ok := <-w.Events:
			if !ok {
				return ix.watchEnded()
			}
			if ev.Op != fsnotify.Chmod && ix.dossierEvent(w, ev) {
				full = true
				clock.change()
				continue
			}
			rel, ok := ix.relPath(ev.Name)
			if !ok || ev.Op == fsnotify.Chmod {
				continue
			}
			if ev.Op.Has(fsnotify.Create) {
				// New directories are watched from now on; their files
				// come in through the Update's fallback to a full run.
				if _, reason, err := discover.Check(ix.root, rel, discover.Options{Exclude: ix.opts.Exclude}); err == discover.ErrIsDir && reason == "" {
					_ = ix.watchTree(ctx, w, rel)
				}
			}
			pending[rel] = true
			clock.change()
			if len(pending) >= WatchMaxBatch {
				flush()
			}
		case <-clock.timer.C:
			flush()
		}
	}
}

// watchError reports a watcher's error. Events lost to a full kernel
// queue cannot be told apart, so an overflow is followed by a full run;
// it reports whether that run was made, covering the pending batch.
// watchEnded is Watch's error when the file watcher closes on its own:
// nothing keeps the index current any more, and whoever watches must say
// so.
func (ix *Indexer) watchEnded() error {
	return fmt.Errorf("watching %s ended (the file watcher closed): the index is no longer kept current; run `dossier index`, or restart the watch", ix.root)
}

func (ix *Indexer) watchError(ctx context.Context, err error, report func(Summary, error)) bool {
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		report(Summary{}, fmt.Errorf("watcher: %w", err))
		return false
	}
	sum, rerr := ix.Run(ctx)
	if ctx.Err() != nil {
		return false
	}
	if rerr != nil {
		rerr = fmt.Errorf("watcher lost events (%v) and the full run that replaces them failed: %w", err, rerr)
	}
	report(sum, rerr)
	return true
}

// relPath maps an event path to a root-relative slash path, dropping the
// index's own directory.
func (ix *Indexer) relPath(name string) (string, bool) {
	rel, err := filepath.Rel(ix.root, name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == store.DirName || strings.HasPrefix(rel, store.DirName+"/") || rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "", false
	}
	return rel, true
}

// watchTree adds every directory the walk would enter under rel.
func (ix *Indexer) watchTree(ctx context.Context, w *fsnotify.Watcher, rel string) error {
	base := filepath.Join(ix.root, filepath.FromSlash(rel))
	var addErr error
	opts := discover.Options{MaxFileSize: ix.opts.MaxFileSize, Exclude: ix.opts.Exclude, OnDir: func(d string) {
		if err := w.Add(filepath.Join(base, filepath.FromSlash(d))); err != nil && addErr == nil {
			addErr = fmt.Errorf("watch %s: %w (raise fs.inotify.max_user_watches?)", d, err)
		}
	}}
	err := discover.Walk(ctx, base, opts, discover.NewSkips(false), func(discover.Candidate) error { return nil })
	if err != nil {
		return err
	}
	return addErr
}
