package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// djangoWorkspace is index/django's fixture workspace, indexed.
func djangoWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "index", "django", "testdata", "ws"))); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	return root
}

// TestDjangoCLI: related, search's graph filters and evidence add walk a
// Django project as they walk a Laravel app.
func TestDjangoCLI(t *testing.T) {
	root := djangoWorkspace(t)

	out, stderr, code := runCLI(t, "related", "--root", root, "--json", "route:blog:post-list")
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
		got = append(got, n.Type+" "+n.Name+" "+n.Path)
	}
	for _, want := range []string{"route ANY /blog site/blog/urls.py", "controller_method site.blog.views@post_list site/blog/views.py",
		"model site.blog.models.Post site/blog/models.py", "migration CreateModel blog_post site/blog/migrations/0001_initial.py"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("walk lacks %q:\n%s", want, strings.Join(got, "\n"))
		}
	}

	out, stderr, code = runCLI(t, "search", "--root", root, "--type", "route", "--min-score", "0", "post")
	if code != exitOK || !strings.Contains(out, "route  blog:post-detail") {
		t.Errorf("search --type route: %d %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, "search", "--root", root, "--route", "blog:post-detail", "--min-score", "0", "-k", "50", "post")
	if code != exitOK {
		t.Fatalf("search --route: %d %s", code, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "shop/") || strings.Contains(line, "api/urls.py") {
			t.Errorf("search --route blog:post-detail kept a result off the walk: %s", line)
		}
	}
	if !strings.Contains(out, "site/blog/models.py") {
		t.Errorf("search --route lacks the model:\n%s", out)
	}
	if _, stderr, code = runCLI(t, "search", "--root", root, "--controller", "NoSuchView", "x"); code != exitUsage || !strings.Contains(stderr, `no controller "NoSuchView"`) {
		t.Errorf("search --controller NoSuchView: %d %s", code, stderr)
	}

	// evidence add: the route, the view function, the model and the
	// migrations; the module standing for the function views is no part
	// (its function is).
	out, stderr, code = runCLI(t, "evidence", "add", "--root", root, "route:blog:post-list")
	if code != exitOK {
		t.Fatalf("evidence add route: %d %s", code, stderr)
	}
	for _, want := range []string{"site/blog/urls.py:8-8", "site/blog/views.py:12-14", "site/blog/models.py:21-29",
		"site/blog/migrations/0001_initial.py:23-30"} {
		if !strings.Contains(out, want) {
			t.Errorf("evidence add route: output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "site/blog/views.py:1-") {
		t.Errorf("evidence add route added the whole views module:\n%s", out)
	}
}
