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

// Keep brings the index up to date and keeps it current until ctx ends,
// as `index --watch` does, so each call costs a query and not a start-up.
// A missing index is built first (and said so through Notice); while it
// is, tools that need it answer that it is being built. When another
// dossier process (a workbench, an `index --watch`) holds the writer
// lock, that process keeps the index current and Keep returns at once.
func (s *Server) Keep(ctx context.Context) error {
	opts := s.opts.Index
	opts.Root = s.opts.Root
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 200 * time.Millisecond
	}
	missing := false
	if _, err := os.Stat(store.Path(s.opts.Root)); errors.Is(err, os.ErrNotExist) {
		missing = true
		s.building.Store(true)
		defer s.building.Store(false)
	}
	ix, err := index.Open(opts)
	if errors.Is(err, store.ErrInUse) {
		s.building.Store(false)
		s.opts.Log.Printf("mcp index: %v: that process keeps the index current", err)
		return nil
	}
	if err != nil {
		s.building.Store(false)
		return err
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
