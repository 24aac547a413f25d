package index

import (
	"context"
	"fmt"
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
// link's commit and records them as the link's overlay.
func (ix *Indexer) syncOverlay(ctx context.Context, also []string) (Summary, error) {
	changed, err := history.OverlayPaths(ctx, ix.root, ix.link.Commit)
	if err != nil {
		return Summary{}, err
	}
	// A path the watcher saw that is the commit's again (an edit undone)
	// leaves the overlay; the local index forgets it too.
	sum, err := ix.updatePaths(ctx, union(changed, also), nil)
	if err != nil {
		return sum, err
	}
	if !slices.Equal(changed, ix.link.Overlay) {
		ix.link.Overlay = changed
		if err := store.WriteLink(ix.root, *ix.link); err != nil {
			return sum, fmt.Errorf("record the overlay of %s: %w", ix.root, err)
		}
	}
	return sum, nil
}

func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// SyncOverlay indexes the overlay of the workspace opts.Root, which is
// linked to a shared snapshot (see store.Link): the files that differ from
// the snapshot's commit, and nothing else. It waits for the writer lock
// as Open does.
func SyncOverlay(ctx context.Context, opts Options) (Summary, error) {
	l, linked, err := store.ReadLink(opts.Root)
	if err != nil {
		return Summary{}, err
	}
	if !linked {
		return Summary{}, fmt.Errorf("%s is not linked to a shared store: run `dossier index --store URL`", opts.Root)
	}
	ix, err := Open(opts)
	if err != nil {
		return Summary{}, err
	}
	defer ix.Close()
	ix.keepLinked(l)
	return ix.Run(ctx)
}
