package main

import (
	"context"
	"fmt"

	"github.com/dossierhq/dossier/index/laravel"
	"github.com/dossierhq/dossier/index/search"
)

// graphScope walks the --route, --controller and --table targets; nil
// when none is given.
func (o *searchOptions) graphScope(ctx context.Context, root string) (*laravel.Scope, error) {
	scope, err := laravel.ScopeRoot(ctx, root, o.routes, o.controllers, o.tables)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return scope, nil
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
