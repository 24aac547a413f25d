package appgraph

import (
	"context"
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/store"
)

// Detected says, per framework, what makes a workspace one of its
// applications (for errors).
var Detected = []string{
	"Laravel: a composer.json requiring laravel/framework",
	"Express: a package.json depending on express",
	"Next.js: a package.json depending on next",
	"Django: a manage.py, or a requirements.txt, pyproject.toml, setup.cfg, setup.py or Pipfile naming django",
}

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
			return fmt.Errorf("%s: the index holds no application dossier can read: %s; then `dossier index`", target, strings.Join(Detected, ", "))
		}
		nodes, err = g.Walk(target)
		return err
	})
	return nodes, err
}

// ScopeRoot walks route, controller and table targets (search's --route,
// --controller, --table; the MCP search tool's route, controller, table)
// and returns the scope they reach; nil when none is given.
func ScopeRoot(ctx context.Context, root string, routes, controllers, tables []string) (*Scope, error) {
	var targets []string
	for _, r := range routes {
		targets = append(targets, "route:"+r)
	}
	for _, c := range controllers {
		targets = append(targets, "controller:"+c)
	}
	for _, t := range tables {
		targets = append(targets, "table:"+t)
	}
	if len(targets) == 0 {
		return nil, nil
	}
	var nodes []Node
	for _, t := range targets {
		ns, err := WalkRoot(ctx, root, t)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, ns...)
	}
	return NewScope(nodes), nil
}

// Widen is how many candidates a search filtered by a scope asks for, k
// being what it returns: the scope keeps only some.
func Widen(k int) int { return max(k*20, 200) }
