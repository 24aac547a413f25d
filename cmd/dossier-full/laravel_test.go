package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// laravelWorkspace is index/laravel's fixture app, indexed.
func laravelWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "index", "laravel", "testdata", "app"))); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	return root
}

func TestLaravelCLI(t *testing.T) {
	root := laravelWorkspace(t)

	out, stderr, code := runCLI(t, "related", "--root", root, "--json", "route:billing.invoices.store")
	if code != exitOK {
		t.Fatalf("related route: %d %s", code, stderr)
	}
	var walk struct {
		Target string
		Nodes  []struct {
			Type      string
			Name      string
			Path      string
			StartLine int `json:"start_line"`
			EndLine   int `json:"end_line"`
		}
	}
	if err := json.Unmarshal([]byte(out), &walk); err != nil {
		t.Fatalf("related --json: %v\n%s", err, out)
	}
	var got []string
	for _, n := range walk.Nodes {
		got = append(got, n.Type+" "+n.Path)
	}
	for _, want := range []string{"route routes/web.php", "controller_method app/Http/Controllers/InvoiceController.php",
		"model app/Models/Invoice.php", "migration database/migrations/2024_01_01_000000_create_invoices_table.php"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("walk lacks %q: %v", want, got)
		}
	}

	// --type route is known (a resource's seven routes share their
	// lines, so search shows the best of them), and --route keeps
	// results on the walk.
	out, stderr, code = runCLI(t, "search", "--root", root, "--type", "route", "--min-score", "0", "invoices")
	if code != exitOK || !strings.Contains(out, "route  billing.invoices.") {
		t.Errorf("search --type route: %d %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, "search", "--root", root, "--route", "billing.invoices.send", "--min-score", "0", "-k", "50", "invoice")
	if code != exitOK {
		t.Fatalf("search --route: %d %s", code, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "Customer.php") || strings.Contains(line, "config/") {
			t.Errorf("search --route billing.invoices.send kept a result off the walk: %s", line)
		}
	}
	if !strings.Contains(out, "InvoiceController.php") {
		t.Errorf("search --route lacks the controller:\n%s", out)
	}
	// The same filter on queries read from standard input.
	stream := dossier("search", "--root", root, "--json", "--route", "billing.invoices.send", "--min-score", "0", "-k", "50")
	stream.Stdin = strings.NewReader("invoice\ncustomer\n")
	raw, err := stream.Output()
	if err != nil {
		t.Fatalf("search --json stream: %v", err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var resp struct{ Results []struct{ Path string } }
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("stream line %d: %v", i, err)
		}
		for _, r := range resp.Results {
			if r.Path == "app/Models/Customer.php" || strings.HasPrefix(r.Path, "config/") {
				t.Errorf("stream query %d kept %s, off the walk", i, r.Path)
			}
		}
	}
	if _, stderr, code = runCLI(t, "search", "--root", root, "--table", "nope", "x"); code != exitUsage || !strings.Contains(stderr, `no table "nope"`) {
		t.Errorf("search --table nope: %d %s", code, stderr)
	}

	// evidence add route: adds the walk's nodes as parts.
	out, stderr, code = runCLI(t, "evidence", "add", "--root", root, "route:billing.invoices.store")
	if code != exitOK {
		t.Fatalf("evidence add route: %d %s", code, stderr)
	}
	for _, want := range []string{"routes/web.php:10-10", "app/Http/Controllers/InvoiceController.php:16-20", "app/Models/Invoice.php:7-22",
		"database/migrations/2024_01_01_000000_create_invoices_table.php:11-16"} {
		if !strings.Contains(out, want) {
			t.Errorf("evidence add route: output lacks %s:\n%s", want, out)
		}
	}
	// Again: every node is held already, nothing is added, no error.
	out, stderr, code = runCLI(t, "evidence", "add", "--root", root, "route:billing.invoices.store")
	if code != exitOK || !strings.Contains(out, "left out") || strings.Contains(out, "Added") {
		t.Errorf("evidence add route again: %d %s\n%s", code, stderr, out)
	}
}

// TestSearchTypeTable: --type table ranks the application's tables on
// what their migrations and models say, alone or fused with other types,
// and says so when the workspace holds no application.
func TestSearchTypeTable(t *testing.T) {
	root := laravelWorkspace(t)
	type hit struct {
		Path   string
		Symbol string
		Kind   string
		Line   string
	}
	search := func(args ...string) []hit {
		t.Helper()
		out, stderr, code := runCLI(t, append([]string{"search", "--root", root, "--json", "--min-score", "0"}, args...)...)
		if code != exitOK {
			t.Fatalf("search %v: %d %s", args, code, stderr)
		}
		var resp struct{ Results []hit }
		if err := json.Unmarshal([]byte(out), &resp); err != nil {
			t.Fatalf("search %v: %v\n%s", args, err, out)
		}
		return resp.Results
	}
	// due_on comes from the second migration; the table is at the first.
	rs := search("--type", "table", "due_on")
	if len(rs) == 0 || rs[0].Symbol != "invoices" || rs[0].Kind != "table" ||
		rs[0].Path != "database/migrations/2024_01_01_000000_create_invoices_table.php" || !strings.Contains(rs[0].Line, "due_on date") {
		t.Errorf("--type table due_on: %+v", rs)
	}
	// A table only a model names ($table = 'clients') is at the model.
	rs = search("--type", "table", "clients")
	if len(rs) == 0 || rs[0].Symbol != "clients" || rs[0].Path != "app/Models/Customer.php" {
		t.Errorf("--type table clients: %+v", rs)
	}
	// With another type the lists are fused.
	kinds := map[string]bool{}
	for _, r := range search("--type", "table,model", "invoice") {
		kinds[r.Kind] = true
	}
	if !kinds["table"] || len(kinds) < 2 {
		t.Errorf("--type table,model: kinds %v", kinds)
	}

	plain := t.TempDir()
	writeFile(t, plain, "main.go", "package main\n\nfunc main() {}\n")
	if _, stderr, code := runCLI(t, "index", "--root", plain); code != exitOK {
		t.Fatalf("index: %s", stderr)
	}
	_, stderr, code := runCLI(t, "search", "--root", plain, "--type", "table", "users")
	if code != exitUsage || !strings.Contains(stderr, "holds no application") {
		t.Errorf("--type table without an application: %d %s", code, stderr)
	}
}
