package mcp

import (
	"context"
	"fmt"

	"github.com/dossierhq/dossier/index"
)

// Keep brings the index up to date and keeps it current until ctx ends
// (index.Keep), so each call costs a query and not a start-up. A missing
// index is built first (and said so through Notice); while it is, tools
// that need it answer that it is being built. While another dossier
// process holds the writer lock (an `index --watch`, a one-shot `index`,
// the workbench), that process writes the index and Keep waits its turn.
func (s *Server) Keep(ctx context.Context) error {
	opts := s.opts.Index
	opts.Root = s.opts.Root
	defer s.building.Store(false)
	missing := false
	return index.Keep(ctx, opts, index.KeepHooks{
		Waiting: func(err error) {
			s.opts.Log.Printf("mcp index: %v: that process writes the index; taking over when it lets go", err)
		},
		Took: func(miss, waited bool) {
			missing = miss
			s.building.Store(miss)
			if waited {
				s.opts.Log.Printf("mcp index: the other process let go: keeping the index current from now on")
			}
			if miss {
				s.opts.Notice(fmt.Sprintf("no index in %s: building it now; search, read of @Symbol and related answer once it is done", s.opts.Root))
			}
		},
		Ran: func(sum index.Summary) {
			s.building.Store(false)
			if missing {
				s.opts.Notice(fmt.Sprintf("indexed %d files, %d chunks in %.1f s", sum.Files, sum.Chunks, sum.Seconds))
			}
			s.opts.Log.Printf("mcp index: %d files, %d chunks, %d re-indexed (%.0f ms)", sum.Files, sum.Chunks, sum.Indexed, sum.Seconds*1000)
		},
		Batch: func(sum index.Summary, err error) {
			if err != nil {
				s.opts.Log.Printf("mcp index watch: %v", err)
				return
			}
			s.opts.Log.Printf("mcp index watch: re-indexed %d, removed %d (%.0f ms)", sum.Indexed+sum.Touched, sum.Removed, sum.Seconds*1000)
		},
		Watching: func() { s.opts.Log.Printf("mcp index: watching") },
	})
}
