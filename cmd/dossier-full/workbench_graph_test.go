package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/workbench"
	"github.com/dossierhq/dossier/index/search"
)

// TestWorkbenchSearchGraphFilters: the overlay's search function keeps
// what search --route keeps, lists the walk for a filter alone, says
// what it did not find, and walks each filter once while the index is
// unchanged.
func TestWorkbenchSearchGraphFilters(t *testing.T) {
	root := laravelWorkspace(t)
	ctx := context.Background()
	fn := workbench.Search(root, search.NewEngine())
	spans := func(rs []search.Result) string {
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s:%d-%d\n", r.Path, r.StartLine, r.EndLine)
		}
		return b.String()
	}

	out, stderr, code := runCLI(t, "search", "--root", root, "--json", "--route", "billing.invoices.send", "--min-score", "0", "-k", "50", "invoice")
	if code != exitOK {
		t.Fatalf("search --route: %d %s", code, stderr)
	}
	var cli search.Response
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	resp, err := fn(ctx, search.Query{Text: "invoice", K: 50}, search.Graph{Routes: []string{"billing.invoices.send"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cli.Results) == 0 || spans(resp.Results) != spans(cli.Results) {
		t.Errorf("the overlay's route filter kept\n%s\nsearch --route kept\n%s", spans(resp.Results), spans(cli.Results))
	}

	// A filter alone lists the walk: related's nodes that have lines.
	out, stderr, code = runCLI(t, "related", "--root", root, "--json", "table:invoices")
	if code != exitOK {
		t.Fatalf("related table: %d %s", code, stderr)
	}
	var walk struct {
		Nodes []struct {
			Type, Path string
			StartLine  int `json:"start_line"`
			EndLine    int `json:"end_line"`
		}
	}
	if err := json.Unmarshal([]byte(out), &walk); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, n := range walk.Nodes {
		if n.Path != "" && n.Type != "table" {
			fmt.Fprintf(&want, "%s:%d-%d\n", n.Path, n.StartLine, n.EndLine)
		}
	}
	resp, err = fn(ctx, search.Query{K: 30}, search.Graph{Tables: []string{"invoices"}})
	if err != nil {
		t.Fatal(err)
	}
	if want.Len() == 0 || spans(resp.Results) != want.String() {
		t.Errorf("table:invoices alone listed\n%s\nrelated walks\n%s", spans(resp.Results), want.String())
	}

	if _, err := fn(ctx, search.Query{Text: "x"}, search.Graph{Tables: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `no table "nope"`) {
		t.Errorf("table:nope: %v", err)
	}

	// One walk per filter while the index is unchanged; a new one after
	// the index changes.
	var scopes search.Scopes
	g := search.Graph{Controllers: []string{"InvoiceController@store"}}
	first, err := scopes.Scope(ctx, root, g)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := scopes.Scope(ctx, root, g); again != first {
		t.Error("the same filter was walked again on an unchanged index")
	}
	if err := os.WriteFile(filepath.Join(root, "app", "Extra.php"), []byte("<?php\nclass Extra {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	if again, _ := scopes.Scope(ctx, root, g); again == first {
		t.Error("the walk was kept after the index changed")
	}
}

// TestWorkbenchSearchGraphFiltersOutsideLaravel: in a workspace that is
// no Laravel app, a filter gives an error saying so, never a panic.
func TestWorkbenchSearchGraphFiltersOutsideLaravel(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	fn := workbench.Search(root, search.NewEngine())
	for _, g := range []search.Graph{{Routes: []string{"home"}}, {Tables: []string{"songs"}}, {Controllers: []string{"SongController"}}} {
		_, err := fn(context.Background(), search.Query{}, g)
		if err == nil || !strings.Contains(err.Error(), "holds no application dossier can read") {
			t.Errorf("%+v: %v", g, err)
		}
	}
	if resp, err := fn(context.Background(), search.Query{Text: "main", K: 5}, search.Graph{}); err != nil || len(resp.Results) == 0 {
		t.Errorf("no filter: %v %+v", err, resp)
	}
}
