package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/store"
)

// A workspace linked to a shared snapshot (see store.Link) is answered by
// the store for the snapshot's commit and by its local index for the
// files that differ from it: the overlay. Keep on such a workspace (the
// MCP server, the workbench) keeps the overlay current rather than a full
// local index: each run indexes into the local index only the files git
// says differ from the snapshot's commit (changed, added, deleted, or
// moved by a checkout since), and writes their list into the link, which
// every reader follows at its next query. An edit while it runs is such a
// file at once.

// keepLinked turns ix into the keeper of l's overlay: Run and Update
// index the overlay only (see syncOverlay).
func (ix *Indexer) keepLinked(l store.Link) { ix.link = &l }

// syncOverlay indexes the files of the working tree that differ from the
// linked commit and records them as the link's overlay. The link is read
// again each time: another command may have moved it (`index --store` at
// a new commit) or removed it (`index` without a store), and the keeper
// follows what it finds: the overlay of the new link, or, unlinked, the
// whole local index.
func (ix *Indexer) syncOverlay(ctx context.Context, also []string) (Summary, error) {
	l, linked, err := store.ReadLink(ix.root)
	if err != nil {
		return Summary{}, err
	}
	if !linked {
		ix.link = nil
		return ix.Run(ctx)
	}
	ix.link = &l
	changed, sum, err := ix.overlayOf(ctx, l, also)
	if err != nil || slices.Equal(changed, l.Overlay) {
		return sum, err
	}
	// Only into the very link read: one written meanwhile wins.
	if cur, ok, err := store.ReadLink(ix.root); err != nil || !ok || cur.SnapshotKey != l.SnapshotKey || cur.Snapshot != l.Snapshot {
		return sum, err
	}
	l.Overlay = changed
	if err := store.WriteLink(ix.root, l); err != nil {
		return sum, fmt.Errorf("record the overlay of %s: %w", ix.root, err)
	}
	return sum, nil
}

// overlayOf indexes the files that differ from l's commit, and also
// those (what a watcher saw), and returns the former: l's overlay.
func (ix *Indexer) overlayOf(ctx context.Context, l store.Link, also []string) ([]string, Summary, error) {
	changed, err := history.OverlayPaths(ctx, ix.root, l.Commit)
	if err != nil {
		return nil, Summary{}, err
	}
	// A path the watcher saw that is the commit's again (an edit undone)
	// leaves the overlay; its record in the local index is re-read and
	// kept, unused, as readers follow the overlay only.
	sum, err := ix.updatePaths(ctx, union(changed, also), nil)
	return changed, sum, err
}

func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// SyncOverlay indexes, into the local index of opts.Root, the overlay of
// l, a link not written yet: the files that differ from l's commit, which
// it returns for the caller to record in the link once they are indexed
// (a reader never follows an overlay the local index does not hold). A
// local index it had to create is removed when it fails. It waits for the
// writer lock as Open does.
func SyncOverlay(ctx context.Context, opts Options, l store.Link) ([]string, error) {
	_, err := os.Stat(store.Path(opts.Root))
	created := errors.Is(err, os.ErrNotExist)
	ix, err := Open(opts)
	if err != nil {
		return nil, err
	}
	ix.runCtx = ctx
	changed, _, err := ix.overlayOf(ctx, l, nil)
	ix.Close()
	if err != nil && created {
		_ = os.Remove(store.Path(opts.Root))
	}
	return changed, err
}
