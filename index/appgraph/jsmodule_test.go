package appgraph

import "testing"

func TestSameURI(t *testing.T) {
	for _, c := range []struct {
		typed, uri string
		want       bool
	}{
		{"/users/:id", "/users/:userId", true},
		{"users/{user}", "/users/:userId", true},
		{"/posts/[postId]", "/posts/{postId}", true},
		{"/docs/[[...slug]]", "/docs/{...slug?}", true},
		{"/invoices/{invoice}", "/invoices/{invoice}", true},
		{"/blog/{pk}", "/blog/<int:pk>", true},
		{"/blog/:pk", "/blog/<pk>", true},
		{"/blog/<slug:slug>", "/blog/{slug}", true},
		{"/users", "/users/:id", false},
		{"/users/me", "/users/:id", false},
		{"/users/:id/x", "/users/:id/y", false},
	} {
		if got := sameURI(c.typed, c.uri); got != c.want {
			t.Errorf("sameURI(%q, %q) = %v, want %v", c.typed, c.uri, got, c.want)
		}
	}
}

func TestModuleNames(t *testing.T) {
	for in, want := range map[string]string{
		"src/controllers/user.controller.js": "src/controllers/user.controller",
		"src/routes/v1/index.ts":             "src/routes/v1",
		"index.js":                           "index",
		"routes/api.php":                     "routes/api.php",
		`App\Http\Controllers\X`:             `App\Http\Controllers\X`,
	} {
		if got := moduleName(in); got != want {
			t.Errorf("moduleName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		`App\Http\Controllers\InvoiceController`: "InvoiceController",
		"src/controllers/user.controller":        "user.controller",
		"app/api/posts/[postId]/route":           "app/api/posts/[postId]/route",
		"Product":                                "Product",
	} {
		if got := short(in); got != want {
			t.Errorf("short(%q) = %q, want %q", in, got, want)
		}
	}
	if !loads("src/app.js", "src/routes/v1", "src/routes/v1/index.js") || loads("src/app.js", "src/routes/v1", "lib/src/routes/v1.js") {
		t.Error("loads: a module path names its file exactly")
	}
}
