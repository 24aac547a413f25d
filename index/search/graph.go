package search

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/store"
)

// Graph is seed 002's relationship filters: keep the results on the walk
// of these routes, controllers and tables (search --route, --controller,
// --table; the workbench's route:, controller:, table: tokens).
type Graph struct {
	Routes, Controllers, Tables []string
}

// Empty reports whether no filter is given.
func (g Graph) Empty() bool {
	return len(g.Routes) == 0 && len(g.Controllers) == 0 && len(g.Tables) == 0
}

func (g Graph) key() string {
	return strings.Join(g.Routes, "\x00") + "\x01" + strings.Join(g.Controllers, "\x00") + "\x01" + strings.Join(g.Tables, "\x00")
}

// Walk walks g's targets in the index of the workspace at root (see
// appgraph.ScopeRoot); nil when g is empty.
func (g Graph) Walk(ctx context.Context, root string) (*appgraph.Scope, error) {
	return appgraph.ScopeRoot(ctx, root, g.Routes, g.Controllers, g.Tables)
}

// KeepScope keeps the first k results inside scope.
func KeepScope(rs []Result, scope *appgraph.Scope, k int) []Result {
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

// WalkResults lists the first k nodes of scope that have lines (a table
// is found through its migrations), as results from the "graph".
func WalkResults(scope *appgraph.Scope, k int) []Result {
	out := []Result{}
	seen := map[[3]any]bool{}
	for _, n := range scope.Nodes() {
		at := [3]any{n.Path, n.StartLine, n.EndLine}
		if n.Path == "" || n.Type == "table" || seen[at] {
			continue
		}
		seen[at] = true
		out = append(out, Result{Path: n.Path, StartLine: n.StartLine, EndLine: n.EndLine, Symbol: n.Name,
			Kind: n.Type, Language: "php", Score: 1, Sources: []string{"graph"}})
		if len(out) == k {
			break
		}
	}
	return out
}

// SearchScoped answers q keeping K results inside scope: run gets a
// wider K, since the scope keeps only some. A query with no words lists
// the walk's nodes instead.
func SearchScoped(ctx context.Context, q Query, scope *appgraph.Scope, run func(context.Context, Query) (Response, error)) (Response, error) {
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	if strings.TrimSpace(q.Text) == "" {
		rs := WalkResults(scope, k)
		return Response{Query: q.Text, Results: rs, MinScore: q.MinScore}, nil
	}
	q.K = appgraph.Widen(k)
	resp, err := run(ctx, q)
	if err != nil {
		return resp, err
	}
	resp.Results = KeepScope(resp.Results, scope, k)
	return resp, nil
}

// Scopes remembers the walk of each distinct Graph filter, so an
// interactive front-end walks once per filter, not once per keystroke.
// A walk is kept while the index file is unchanged; a failed walk is
// not kept (the index may be being built). Safe for concurrent use.
type Scopes struct {
	mu sync.Mutex
	m  map[string]scopeEntry
}

type scopeEntry struct {
	stamp string
	scope *appgraph.Scope
}

// Scope returns g's walk in the workspace at root; nil when g is empty.
func (c *Scopes) Scope(ctx context.Context, root string, g Graph) (*appgraph.Scope, error) {
	if g.Empty() {
		return nil, nil
	}
	stamp := ""
	if fi, err := os.Stat(store.Path(root)); err == nil {
		stamp = fmt.Sprintf("%d/%d", fi.ModTime().UnixNano(), fi.Size())
	}
	key := root + "\x02" + g.key()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && e.stamp == stamp && stamp != "" {
		return e.scope, nil
	}
	scope, err := g.Walk(ctx, root)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]scopeEntry{}
	}
	c.m[key] = scopeEntry{stamp: stamp, scope: scope}
	c.mu.Unlock()
	return scope, nil
}
