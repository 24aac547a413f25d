package django_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/django"
	"github.com/dossierhq/dossier/store"
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

// reindex indexes the workspace at root, listing noted files, and
// returns the run's summary.
func reindex(t *testing.T, root string) index.Summary {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root, Workers: 2, Verbose: true})
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
	return sum
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

// TestRouteWalk: a class-based view reached through an include() with
// app_name, its model named by `model = Post`, the model's table and its
// migrations across two files, in order (RunPython is no step).
func TestRouteWalk(t *testing.T) {
	root := indexWS(t)
	nodes := walk(t, root, "route:blog:post-detail")
	if got := names(nodes); !slices.Equal(got[:3], []string{"route ANY /blog/<int:pk>", "controller site.blog.views.PostDetail", "model site.blog.models.Post"}) {
		t.Errorf("walk starts %q", got)
	}
	if r := nodes[0]; r.Path != "site/blog/urls.py" || r.StartLine != 9 {
		t.Errorf("route node %+v: want site/blog/urls.py line 9", r)
	}
	var migs []string
	for _, n := range nodes {
		if n.Type == "migration" {
			migs = append(migs, n.Name+" "+n.Path)
		}
	}
	want := []string{
		"CreateModel blog_post site/blog/migrations/0001_initial.py",
		"AddField blog_post site/blog/migrations/0002_post_slug.py",
		"RenameField blog_post site/blog/migrations/0002_post_slug.py",
		"AddIndex blog_post site/blog/migrations/0002_post_slug.py",
	}
	if !slices.Equal(migs, want) {
		t.Errorf("migrations of blog_post:\n%s\nwant\n%s", strings.Join(migs, "\n"), strings.Join(want, "\n"))
	}

	// A function view: the module is the controller, the function its method.
	has(t, walk(t, root, "route:blog:post-list"), "route ANY /blog", "controller site.blog.views",
		"controller_method site.blog.views@post_list", "model site.blog.models.Post", "table blog_post")
	// re_path: the regex without its anchors, under the include's prefix.
	has(t, walk(t, root, "route:blog:archive"), "route ANY /blog/archive/(?P<year>[0-9]{4})", "controller_method site.blog.views@archive")
	// A form's Meta.model is reached through the view's form_class.
	has(t, walk(t, root, "route:blog:comment"), "controller site.blog.views.CommentCreate",
		"controller_method site.blog.views.CommentCreate@form_valid", "model site.blog.models.Comment", "table blog_comments")
	// include() of a list under a namespaced module, a models/ package
	// re-exporting its class, db_table.
	has(t, walk(t, root, "route:api:product-detail"), "route ANY /api/products/<int:pk>", "controller site.shop.views",
		"controller_method site.shop.views@product_detail", "model site.shop.models.product.Product", "table products")
	has(t, walk(t, root, "route:/api/products"), "controller site.shop.views.ProductList", "model site.shop.models.product.Product")
	// The root URLconf's own route, by URI.
	has(t, walk(t, root, "route:/"), "route ANY /", "controller_method site.blog.views@home")
}

// TestRouterWalk: a REST framework router's view set gives the list and
// detail routes, named basename-list and basename-detail in the including
// module's namespace; the inherited actions reach the queryset's model.
func TestRouterWalk(t *testing.T) {
	root := indexWS(t)
	nodes := walk(t, root, "route:api:post-list")
	has(t, nodes, "route GET /api/v1/posts", "route POST /api/v1/posts", "controller site.blog.api.PostViewSet",
		"controller_method site.blog.api.PostViewSet@list", "model site.blog.models.Post", "table blog_post")
	has(t, walk(t, root, "route:PATCH /api/v1/posts/<pk>"), "route PATCH /api/v1/posts/<pk>",
		"controller_method site.blog.api.PostViewSet@partial_update")
	nodes = walk(t, root, "controller:PostViewSet")
	var routes []string
	for _, n := range nodes {
		if n.Type == "route" {
			routes = append(routes, n.Name)
		}
	}
	if len(routes) != 6 {
		t.Errorf("controller:PostViewSet reaches routes %q, want the router's six", routes)
	}
	has(t, nodes, "model site.blog.models.Post", "controller_method site.blog.api.PostViewSet@perform_create")
}

// TestModelTableController: relations ('self', 'app.Model', a class, a
// string of this app), the abstract base (no table), the cross-file
// db_table of a model's later migrations, and controller targets for both
// kinds of view.
func TestModelTableController(t *testing.T) {
	root := indexWS(t)
	has(t, walk(t, root, "model:Post"),
		"model_relation Post::author", "model site.blog.models.Author",
		"model_relation Post::tags", "model site.blog.models.Tag",
		"model_relation Post::parent",
		"controller site.blog.views.PostDetail", "route ANY /blog/<int:pk>",
		"controller_method site.blog.views@post_list", "route ANY /blog",
		"controller site.blog.api.PostViewSet", "route GET /api/v1/posts/<pk>")
	nodes := walk(t, root, "table:blog_comments")
	has(t, nodes, "migration CreateModel blog_comments", "migration AddField blog_comments", "model site.blog.models.Comment",
		"model site.blog.models.Post")
	if _, err := appgraph.WalkRoot(context.Background(), root, "table:blog_timestamped"); err == nil {
		t.Error("the abstract model TimeStamped has a table")
	}
	has(t, walk(t, root, "table:blog_author"), "model site.blog.models.Author", "model site.shop.models.product.Product")
	has(t, walk(t, root, "model:Product"), "model_relation Product::author", "model site.blog.models.Author")

	has(t, walk(t, root, "controller:site.blog.views.post_list"), "controller site.blog.views",
		"route ANY /blog", "controller_method site.blog.views@post_list", "model site.blog.models.Post")
	// Dotted names from the project's root (site/ holds manage.py).
	has(t, walk(t, root, "controller:blog.views.post_list"), "controller_method site.blog.views@post_list")
	has(t, walk(t, root, "controller:blog.views@archive"), "controller_method site.blog.views@archive")
	has(t, walk(t, root, "controller:blog.views.PostDetail"), "controller site.blog.views.PostDetail")
	has(t, walk(t, root, "model:blog.models.Post"), "model site.blog.models.Post")
	nodes = walk(t, root, "controller:views@home")
	has(t, nodes, "route ANY /", "controller_method site.blog.views@home")
	hasNot(t, nodes, "controller_method site.blog.views@post_list", "controller_method site.blog.views@_helper")
	has(t, walk(t, root, "controller:ProductList"), "route ANY /api/products", "model site.shop.models.product.Product")
}

// TestNotDjango: the folder beside the project has a urls.py with
// urlpatterns and a pyproject.toml naming only django-environ: it is no
// Django project, so its route is not in the graph; without the project's
// manage.py nothing is.
func TestNotDjango(t *testing.T) {
	root := indexWS(t)
	if _, err := appgraph.WalkRoot(context.Background(), root, "route:elsewhere"); err == nil || !strings.Contains(err.Error(), "no route") {
		t.Errorf("route of the non-Django folder: %v", err)
	}
	if err := os.Remove(filepath.Join(root, "site", "manage.py")); err != nil {
		t.Fatal(err)
	}
	reindex(t, root)
	_, err := appgraph.WalkRoot(context.Background(), root, "route:blog:post-list")
	if err == nil || !strings.Contains(err.Error(), "holds no application dossier can read") || !strings.Contains(err.Error(), "Django") {
		t.Errorf("walk once manage.py is gone: %v", err)
	}
}

func TestNamesDjango(t *testing.T) {
	for _, c := range []struct {
		base, text string
		want       bool
	}{
		{"requirements.txt", "Django==5.0.1\npsycopg2", true},
		{"requirements.txt", "django-environ==0.11\ndjangorestframework", false},
		{"requirements.txt", "# django\nflask", false},
		{"pyproject.toml", `dependencies = ["django>=4.2", "celery"]`, true},
		{"pyproject.toml", "[tool.poetry.dependencies]\nDjango = \"^4.2\"", true},
		{"setup.cfg", "install_requires =\n    Django~=4.2", true},
		{"Pipfile", "[packages]\ndjango = \"*\"", true},
		{"manage.py", "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'x.settings')", true},
		{"manage.py", "import flask", false},
	} {
		if got := django.NamesDjango(c.base, []byte(c.text)); got != c.want {
			t.Errorf("NamesDjango(%s, %q) = %v, want %v", c.base, c.text, got, c.want)
		}
	}
}

// TestIncremental: the graph follows an edited URLconf, a deleted model
// module and an include that moves, through Update and Run.
func TestIncremental(t *testing.T) {
	root := indexWS(t)
	ix, err := index.Open(index.Options{Root: root, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	edit := func(rel, old, new string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), old) {
			t.Fatalf("%s has no %q", rel, old)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(src), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("site/blog/urls.py", `name="post-detail"`, `name="post-show"`)
	if _, err := ix.Update(ctx, []string{"site/blog/urls.py"}); err != nil {
		t.Fatal(err)
	}
	has(t, walk(t, root, "route:blog:post-show"), "route ANY /blog/<int:pk>", "model site.blog.models.Post")
	if _, err := appgraph.WalkRoot(ctx, root, "route:blog:post-detail"); err == nil {
		t.Error("the renamed route is still found by its old name")
	}

	// The including module changes: every route of blog/urls.py moves.
	edit("site/mysite/urls.py", `path("blog/", include("blog.urls"))`, `path("journal/", include("blog.urls"))`)
	if _, err := ix.Update(ctx, []string{"site/mysite/urls.py"}); err != nil {
		t.Fatal(err)
	}
	has(t, walk(t, root, "route:blog:post-show"), "route ANY /journal/<int:pk>")

	if err := os.Remove(filepath.Join(root, "site", "shop", "models", "product.py")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := appgraph.WalkRoot(ctx, root, "model:Product"); err == nil {
		t.Error("a deleted model is still in the graph")
	}
	has(t, walk(t, root, "route:api:product-detail"), "controller_method site.shop.views@product_detail")
}

// TestChunkTypes: routes, migrations, models, views and their methods get
// their source types; the code around them (imports, a migration's
// dependencies, RunPython) stays in plain code chunks.
func TestChunkTypes(t *testing.T) {
	root := indexWS(t)
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bySrc := map[string][]string{}
	code := map[string]string{}
	err = db.View(func(tx *store.Tx) error {
		return tx.Chunks(func(c store.Chunk) error {
			bySrc[c.SourceType] = append(bySrc[c.SourceType], c.Path+" "+c.Symbol)
			if c.SourceType == "code" {
				text, _ := tx.Artifact(c)
				code[c.Path] += text + "\n"
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// routes: 1 + 5 in the project's URLconfs (admin.site.urls and the
	// include()s are none), 6 from the router, 2 in the included list;
	// migrations: RunPython is none.
	for src, n := range map[string]int{"route": 1 + 5 + 6 + 2, "migration": 3 + 4, "model": 5 + 1} {
		if len(bySrc[src]) != n {
			t.Errorf("%d %s chunks, want %d: %v", len(bySrc[src]), src, n, bySrc[src])
		}
	}
	for _, want := range []string{"site/blog/views.py post_list", "site/blog/views.py form_valid", "site/blog/views.py get",
		"site/shop/views.py product_detail", "site/blog/api.py perform_create"} {
		if !slices.Contains(bySrc["controller_method"], want) {
			t.Errorf("no controller_method chunk %q in %v", want, bySrc["controller_method"])
		}
	}
	for _, want := range []string{"site/blog/views.py PostDetail", "site/shop/views.py ProductList"} {
		if !slices.Contains(bySrc["controller"], want) {
			t.Errorf("no controller chunk %q in %v", want, bySrc["controller"])
		}
	}
	if !strings.Contains(code["site/blog/migrations/0002_post_slug.py"], "RunPython") ||
		!strings.Contains(code["site/blog/migrations/0002_post_slug.py"], "dependencies") {
		t.Errorf("0002's code chunks %q: want the dependencies and RunPython kept as code", code["site/blog/migrations/0002_post_slug.py"])
	}
	if !strings.Contains(code["site/blog/views.py"], "def _helper") {
		t.Errorf("views.py code chunks %q: want _helper kept as code", code["site/blog/views.py"])
	}
	if !strings.Contains(code["site/mysite/urls.py"], "admin.site.urls") {
		t.Errorf("mysite/urls.py code chunks %q: want admin.site.urls kept", code["site/mysite/urls.py"])
	}
}

// TestMalformed: broken and unusual Python in a Django project indexes
// without an error or a panic; what is not understood stays plain code
// (every byte but the punctuation between units is in a chunk).
func TestMalformed(t *testing.T) {
	root := indexWS(t)
	files := map[string]string{
		"site/broken/urls.py":                    "from django.urls import path, include\nurlpatterns = [\n    path('a/', include(\n    path(,\n    re_path(f'{x}/', views.y),\n    path(42, None, name=7),\n    url(),\n",
		"site/broken/models.py":                  "from django.db import models\nclass A(models.Model:\n    x = models.ForeignKey(\n    class Meta:\n        db_table = \nclass B(A):\n    y = models.CharField(to=)\n\nz = 1\n",
		"site/broken/migrations/0001_initial.py": "from django.db import migrations\nclass Migration(migrations.Migration):\n    operations = [\n        migrations.CreateModel(),\n        migrations.AddField(model_name=1),\n        migrations.CreateModel(name='X', fields=[('a',), 5, ('b', models.ForeignKey())]),\n        migrations.RenameModel(),\n        migrations.AlterModelTable(name='X'),\n        migrations.AddIndex(model_name='x'),\n]\n",
		"site/broken/views.py":                   "def v(request:\n    return X.objects\nclass V(View):\n    model = \n    def get(self, request): return Y.objects.get(\n",
		"site/odd/urls.py":                       "import odd.views\nurlpatterns = 5\nurlpatterns += odd.views.patterns()\nurlpatterns.append(path('x/', include()))\nrouter = DefaultRouter()\nrouter.register()\nrouter.register('p', None)\nurlpatterns += [path('y/', include((router.urls,))), path('z/', lambda r: r, name='z'), path('w/', odd.views.w)]\n",
		"site/odd/migrations/0002_weird.py":      "operations = [migrations.CreateModel(name='Y')]\nclass Migration:\n    operations = None\n",
	}
	writeFiles(t, root, files)
	reindex(t, root)
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	covered := map[string][]bool{}
	for rel, body := range files {
		covered[rel] = make([]bool, len(body))
	}
	err = db.View(func(tx *store.Tx) error {
		return tx.Chunks(func(c store.Chunk) error {
			if cov, ok := covered[c.Path]; ok {
				for i := c.StartByte; i < c.EndByte && i < len(cov); i++ {
					cov[i] = true
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, body := range files {
		for i, b := range []byte(body) {
			if !covered[rel][i] && !strings.ContainsRune(" \n,()[]", rune(b)) {
				t.Errorf("%s: byte %d (%q) is in no chunk", rel, i, body[max(0, i-20):min(len(body), i+20)])
				break
			}
		}
	}
	has(t, walk(t, root, "route:blog:post-list"), "model site.blog.models.Post")
	has(t, walk(t, root, "route:z"), "route ANY /z")
	has(t, walk(t, root, "route:/w"), "controller odd.views")
}
