package workspace

import (
	"context"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"

	// A workspace linked to a shared store on Postgres is read through it.
	_ "github.com/dossierhq/dossier/store/pg"
)

// The front-ends that can index (dossier-full, the workbench) import this
// package: a fresh clone they link to its shared store gets its overlay
// indexed here (see cli.LinkFromStore).
func init() { cli.OverlaySync = SyncOverlay }

// SyncOverlay indexes the files of root that differ from the commit of
// l, a link not written yet, and returns them (see index.SyncOverlay).
func SyncOverlay(ctx context.Context, root string, cfg config.Config, l store.Link) ([]string, error) {
	opts := IndexOptions(root, cfg)
	var err error
	if opts.Model, opts.Embedder, err = index.NewEmbedder(cfg.Embed, ""); err != nil {
		return nil, err
	}
	return index.SyncOverlay(ctx, opts, l)
}
