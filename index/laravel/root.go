package laravel

import (
	"context"
	"fmt"

	"github.com/dossierhq/dossier/store"
)

// Load builds the application graph from the framework facts stored in tx.
func Load(tx *store.Tx) (*Graph, error) {
	g := NewGraph()
	err := tx.EachFramework(func(path string, data []byte) error { return g.AddRecord(path, data) })
	return g, err
}

// WalkRoot answers a graph target (see Graph.Walk) from the index of the
// workspace at root, opened read-only for the walk only. Every front-end
// (related, evidence add, search filters) walks here.
func WalkRoot(ctx context.Context, root, target string) ([]Node, error) {
	db, err := store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var nodes []Node
	err = db.View(func(tx *store.Tx) error {
		g, err := Load(tx)
		if err != nil {
			return err
		}
		if g.Empty() {
			return fmt.Errorf("%s: the index holds no Laravel application (a composer.json requiring laravel/framework, then `dossier index`)", target)
		}
		nodes, err = g.Walk(target)
		return err
	})
	return nodes, err
}
