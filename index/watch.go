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

// Watch batching (seed 004): a batch is written 5 s after its first change,
// or as soon as it holds 100 paths.
var (
	WatchInterval = 5 * time.Second
	WatchMaxBatch = 100
)

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
	var timer <-chan time.Time
	flush := func() {
		paths := make([]string, 0, len(pending))
		for p := range pending {
			paths = append(paths, p)
		}
		pending, timer = map[string]bool{}, nil
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
				return nil
			}
			if pending = ix.watchError(ctx, err, pending, report); len(pending) == 0 {
				timer = nil
			}
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Op != fsnotify.Chmod && ix.dossierEvent(w, ev) {
				full = true
				if timer == nil {
					timer = time.After(WatchInterval)
				}
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
			if timer == nil {
				timer = time.After(WatchInterval)
			}
			if len(pending) >= WatchMaxBatch {
				flush()
			}
		case <-timer:
			flush()
		}
	}
}

// watchError reports a watcher's error. Events lost to a full kernel
// queue cannot be told apart, so an overflow is followed by a full run,
// which also covers what was pending; it returns what is still pending.
func (ix *Indexer) watchError(ctx context.Context, err error, pending map[string]bool, report func(Summary, error)) map[string]bool {
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		report(Summary{}, fmt.Errorf("watcher: %w", err))
		return pending
	}
	sum, rerr := ix.Run(ctx)
	if ctx.Err() != nil {
		return pending
	}
	if rerr != nil {
		rerr = fmt.Errorf("watcher lost events (%v) and the full run that replaces them failed: %w", err, rerr)
	}
	report(sum, rerr)
	return map[string]bool{}
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
