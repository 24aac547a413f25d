package django_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/appgraph"
)

// indexWS copies testdata/ws (a Django project under site/, shaped like
// bakerydemo and netbox, beside a folder that is no Django project) into
// a temporary workspace and indexes it.
func indexWS(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/ws")); err != nil {
		t.Fatal(err)
	}
	reindex(t, root)
	return root
}

func reindex(t *testing.T, root string) {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sum, err := ix.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Fatalf("index errors: %v", sum.Errors)
	}
}

func walk(t *testing.T, root, target string) []appgraph.Node {
	t.Helper()
	nodes, err := appgraph.WalkRoot(context.Background(), root, target)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return nodes
}

func names(nodes []appgraph.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Type+" "+n.Name)
	}
	return out
}

func has(t *testing.T, nodes []appgraph.Node, want ...string) {
	t.Helper()
	got := names(nodes)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing node %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func hasNot(t *testing.T, nodes []appgraph.Node, unwanted ...string) {
	t.Helper()
	got := names(nodes)
	for _, w := range unwanted {
		if slices.Contains(got, w) {
			t.Errorf("unexpected node %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func TestDump(t *testing.T) {
	root := indexWS(t)
	for _, target := range []string{"route:blog:post-detail", "table:blog_post", "model:Post", "controller:PostViewSet", "route:api:post-list", "route:/api/products/<int:pk>"} {
		nodes, err := appgraph.WalkRoot(context.Background(), root, target)
		t.Logf("%s: %v", target, err)
		for _, n := range nodes {
			t.Logf("  %s %s  [%s:%d-%d] via=%q %s", n.Type, n.Name, n.Path, n.StartLine, n.EndLine, n.Via, n.Detail)
		}
	}
}
