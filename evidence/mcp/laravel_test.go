package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaravelTools: related walks graph targets and search keeps results
// on a route's walk, as the CLI does.
func TestLaravelTools(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "index", "laravel", "testdata", "app"))); err != nil {
		t.Fatal(err)
	}
	indexWorkspace(t, root)
	_, cs := connect(t, root, true)
	text, _ := ok(t, cs, "related", map[string]any{"target": "route:billing.invoices.store"})
	for _, want := range []string{"route POST /billing/invoices routes/web.php:10-10", `controller_method App\Http\Controllers\InvoiceController@store`, "table invoices"} {
		if !strings.Contains(text, want) {
			t.Errorf("related route: lacks %q:\n%s", want, text)
		}
	}
	text, _ = ok(t, cs, "search", map[string]any{"query": "invoice", "route": []string{"billing.invoices.send"}, "min_score": 0, "k": 50, "text_budget": 0})
	if strings.Contains(text, "Customer.php") || !strings.Contains(text, "InvoiceController.php") {
		t.Errorf("search route filter:\n%s", text)
	}
	fails(t, cs, "search", map[string]any{"query": "x", "table": []string{"nope"}}, `no table "nope"`)
}
