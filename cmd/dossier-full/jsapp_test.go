package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSAppCLI runs the front-ends on index/jsapp's monorepo fixture (an
// Express API and a Next.js app): related's walks, search's --route and
// --controller filters, evidence add route:.
func TestJSAppCLI(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "index", "jsapp", "testdata", "mono"))); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}

	out, stderr, code := runCLI(t, "related", "--root", root, "--json", "route:GET /v1/users/:userId")
	if code != exitOK {
		t.Fatalf("related route: %d %s", code, stderr)
	}
	var walk struct {
		Nodes []struct {
			Type      string
			Name      string
			Path      string
			StartLine int `json:"start_line"`
		}
	}
	if err := json.Unmarshal([]byte(out), &walk); err != nil {
		t.Fatalf("related --json: %v\n%s", err, out)
	}
	var got []string
	for _, n := range walk.Nodes {
		got = append(got, n.Type+" "+n.Path)
	}
	for _, want := range []string{"route apps/api/src/routes/v1/user.route.js", "controller_method apps/api/src/controllers/user.controller.js",
		"model apps/api/src/models/user.model.js"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("walk lacks %q: %v", want, got)
		}
	}

	// A Next.js route by the URI a user types; controller: by module path.
	out, stderr, code = runCLI(t, "related", "--root", root, "route:DELETE /api/posts/[postId]")
	if code != exitOK || !strings.Contains(out, "apps/web/app/api/posts/[postId]/route.ts") {
		t.Errorf("related next route: %d %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, "related", "--root", root, "controller:handlers/items@showItem")
	if code != exitOK || !strings.Contains(out, "GET /v1/items/:id") {
		t.Errorf("related controller: %d %s\n%s", code, stderr, out)
	}
	_, stderr, code = runCLI(t, "related", "--root", root, "controller:nope.controller")
	if code == exitOK || !strings.Contains(stderr, `no controller "nope.controller"`) {
		t.Errorf("related unknown controller: %d %s", code, stderr)
	}

	// --route keeps results on the walk: the controller's method, not the
	// Next.js app.
	out, stderr, code = runCLI(t, "search", "--root", root, "--route", "POST /v1/users", "--min-score", "0", "-k", "50", "user")
	if code != exitOK {
		t.Fatalf("search --route: %d %s", code, stderr)
	}
	if !strings.Contains(out, "user.controller.js") {
		t.Errorf("search --route lacks the controller:\n%s", out)
	}
	if strings.Contains(out, "apps/web/") {
		t.Errorf("search --route kept results off the walk:\n%s", out)
	}
	out, stderr, code = runCLI(t, "search", "--root", root, "--type", "route", "--min-score", "0", "posts")
	if code != exitOK || !strings.Contains(out, "route  POST /api/posts") {
		t.Errorf("search --type route: %d %s\n%s", code, stderr, out)
	}

	out, stderr, code = runCLI(t, "evidence", "add", "--root", root, "route:POST /v1/users")
	if code != exitOK {
		t.Fatalf("evidence add route: %d %s", code, stderr)
	}
	for _, want := range []string{"apps/api/src/routes/v1/user.route.js:9-9", "apps/api/src/controllers/user.controller.js:5-8"} {
		if !strings.Contains(out, want) {
			t.Errorf("evidence add route: output lacks %s:\n%s", want, out)
		}
	}
}
