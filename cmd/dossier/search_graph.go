package main

import (
	"context"
	"fmt"

	"github.com/dossierhq/dossier/index/laravel"
	"github.com/dossierhq/dossier/index/search"
)

// A graph filter keeps only results on a walk, so the search asks for more
// candidates than -k and cuts after filtering.
const (
	graphWiden = 20
	graphMinK  = 200
)

// graphScope walks the --route, --controller and --table targets; nil
// when none is given.
func (o *searchOptions) graphScope(ctx context.Context, root string) (*laravel.Scope, error) {
	var targets []string
	for _, r := range o.routes {
		targets = append(targets, "route:"+r)
	}
	for _, c := range o.controllers {
		targets = append(targets, "controller:"+c)
	}
	for _, t := range o.tables {
		targets = append(targets, "table:"+t)
	}
	if len(targets) == 0 {
		return nil, nil
	}
	var nodes []laravel.Node
	for _, t := range targets {
		ns, err := laravel.WalkRoot(ctx, root, t)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		nodes = append(nodes, ns...)
	}
	return laravel.NewScope(nodes), nil
}

// scopeResults keeps the first k results inside scope.
func scopeResults(rs []search.Result, scope *laravel.Scope, k int) []search.Result {
	out := rs[:0]
	for _, r := range rs {
		if scope.Holds(r.Path, r.StartLine, r.EndLine) {
			out = append(out, r)
			if len(out) == k {
				break
			}
		}
	}
	return out
}
