package evidence

import (
	"context"
	"fmt"

	"github.com/dossierhq/dossier/index/appgraph"
)

// graphSelectors turns graph targets among args (route:, table:, model:,
// controller:, see appgraph.Graph.Walk) into the selectors of the walk's
// nodes, PATH::START,END each; other args pass through. A node inside
// another kept node's span is left out (a relation inside its model), so
// is the controller class when the walk holds its methods, and the table
// node (its first migration is a node of its own). via maps each new
// selector to its target, for the parts' provenance.
func (e *Engine) graphSelectors(ctx context.Context, args []string) (out []string, via map[string]string, err error) {
	via = map[string]string{}
	for _, a := range args {
		if !appgraph.IsTarget(a) {
			out = append(out, a)
			continue
		}
		nodes, err := appgraph.WalkRoot(ctx, e.Root, a)
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		methodsIn := map[string]bool{}
		for _, n := range nodes {
			if n.Type == "controller_method" && n.Path != "" {
				methodsIn[n.Path] = true
			}
		}
		var kept []appgraph.Node
		for _, n := range nodes {
			if n.Path == "" || n.Type == "table" || n.Type == "controller" && methodsIn[n.Path] {
				continue
			}
			kept = append(kept, n)
		}
		for i, n := range kept {
			inside := false
			for j, m := range kept {
				if i != j && m.Path == n.Path && m.StartLine <= n.StartLine && n.EndLine <= m.EndLine &&
					(m.StartLine != n.StartLine || m.EndLine != n.EndLine || j < i) {
					inside = true
					break
				}
			}
			if inside {
				continue
			}
			s := fmt.Sprintf("%s::%d,%d", n.Path, n.StartLine, n.EndLine)
			if _, dup := via[s]; dup {
				continue
			}
			via[s] = "related " + a
			out = append(out, s)
		}
	}
	return out, via, nil
}
