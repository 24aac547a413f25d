package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
)

// keepRetry is how often Keep tries again for the writer lock another
// process holds.
const keepRetry = time.Second

// Keep brings the index up to date and keeps it current until ctx ends,
// as `index --watch` does, so each call costs a query and not a start-up.
// A missing index is built first (and said so through Notice); while it
// is, tools that need it answer that it is being built. While another
// dossier process holds the writer lock (an `index --watch`, a one-shot
// `index`, the workbench's start-up run), that process writes the index
// and Keep waits its turn: once the lock is let go it takes over, so the
// index never goes stale for the server's life.
func (s *Server) Keep(ctx context.Context) error {
	opts := s.opts.Index
	opts.Root = s.opts.Root
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 200 * time.Millisecond
	}
	defer s.building.Store(false)
	ix, missing, err := s.openIndexer(ctx, opts)
	if ix == nil {
		return err // nil when ctx ended first
	}
	defer ix.Close()
	if missing {
		s.opts.Notice(fmt.Sprintf("no index in %s: building it now; search, read of @Symbol and related answer once it is done", s.opts.Root))
	}
	sum, err := ix.Run(ctx)
	s.building.Store(false)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("index %s: %w", s.opts.Root, err)
	}
	if missing {
		s.opts.Notice(fmt.Sprintf("indexed %d files, %d chunks in %.1f s", sum.Files, sum.Chunks, sum.Seconds))
	}
	s.opts.Log.Printf("mcp index: %d files, %d chunks, %d re-indexed (%.0f ms)", sum.Files, sum.Chunks, sum.Indexed, sum.Seconds*1000)
	err = ix.Watch(ctx, func(sum index.Summary, err error) {
		if err != nil {
			s.opts.Log.Printf("mcp index watch: %v", err)
			return
		}
		s.opts.Log.Printf("mcp index watch: re-indexed %d, removed %d (%.0f ms)", sum.Indexed+sum.Touched, sum.Removed, sum.Seconds*1000)
	}, func() { s.opts.Log.Printf("mcp index: watching") })
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// openIndexer takes the writer lock, trying again every keepRetry while
// another process holds it; the indexer is nil when ctx ends first. The
// bool says whether the index was missing when the lock was taken: it is
// being built from then on (tools say so).
func (s *Server) openIndexer(ctx context.Context, opts index.Options) (*index.Indexer, bool, error) {
	for said := false; ; {
		_, err := os.Stat(store.Path(s.opts.Root))
		missing := errors.Is(err, os.ErrNotExist)
		s.building.Store(missing)
		ix, err := index.Open(opts)
		if err == nil {
			if said {
				s.opts.Log.Printf("mcp index: the other process let go: keeping the index current from now on")
			}
			return ix, missing, nil
		}
		s.building.Store(false)
		if !errors.Is(err, store.ErrInUse) {
			return nil, false, err
		}
		if !said {
			said = true
			s.opts.Log.Printf("mcp index: %v: that process writes the index; taking over when it lets go", err)
		}
		select {
		case <-ctx.Done():
			return nil, false, nil
		case <-time.After(keepRetry):
		}
	}
}
