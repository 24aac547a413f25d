package related

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dossierhq/dossier/store"
)

// ExpandRoot expands t against the index of the workspace at root, which
// it opens read-only for the length of the expansion only. t.Path is
// relative to root. Every front-end (the CLI's related, the MCP server's
// related tool) expands here, so they answer and fail alike.
func ExpandRoot(ctx context.Context, root string, t Target, opts Options) (*Expansion, error) {
	db, err := store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var x *Expansion
	err = db.View(func(tx *store.Tx) error {
		var err error
		x, err = Expand(tx, t, opts)
		return err
	})
	if errors.Is(err, ErrNotIndexed) {
		abs := filepath.Join(root, filepath.FromSlash(t.Path))
		if _, serr := os.Stat(abs); errors.Is(serr, os.ErrNotExist) {
			return nil, fmt.Errorf("no such file: %s (paths are relative to the workspace root %s)", t.Path, root)
		}
		return nil, fmt.Errorf("%s is not in the index: run `dossier index` if it is new, or check .gitignore and .dossierignore if it is ignored", t.Path)
	}
	return x, err
}
