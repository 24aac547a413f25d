package query

import (
	"context"
	"fmt"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/index/appgraph"
)

// graphScope walks the --route, --controller and --table targets; nil
// when none is given.
func (o *Search) graphScope(ctx context.Context, root string) (*appgraph.Scope, error) {
	scope, err := appgraph.ScopeRoot(ctx, root, o.routes, o.controllers, o.tables)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	return scope, nil
}
