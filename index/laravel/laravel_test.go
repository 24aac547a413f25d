package laravel_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/laravel"
	"github.com/dossierhq/dossier/store"
)

// indexApp copies testdata/app (a small Laravel app shaped like koel and
// BookStack) into a temporary workspace and indexes it.
func indexApp(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/app")); err != nil {
		t.Fatal(err)
	}
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
	return root
}

func walk(t *testing.T, root, target string) []appgraph.Node {
	t.Helper()
	nodes, err := appgraph.WalkRoot(context.Background(), root, target)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return nodes
}

// names lists "type name" of each node.
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

func TestRouteWalk(t *testing.T) {
	root := indexApp(t)
	nodes := walk(t, root, "route:billing.invoices.store")
	has(t, nodes,
		"route POST /billing/invoices",
		`controller App\Http\Controllers\InvoiceController`,
		`controller_method App\Http\Controllers\InvoiceController@store`,
		`model App\Models\Invoice`,
		"table invoices",
		"migration Schema::create invoices",
		"migration Schema::table invoices")
	if r := nodes[0]; r.Path != "routes/web.php" || r.StartLine != 10 || !strings.Contains(r.Detail, "auth") {
		t.Errorf("route node = %+v, want routes/web.php:10 with middleware auth", r)
	}
	// The same route by URI and by "METHOD URI"; the group's name prefix,
	// prefix and the route's own middleware apply.
	has(t, walk(t, root, "route:POST /billing/invoices/{invoice}/send"), `controller_method App\Http\Controllers\InvoiceController@send`)
	send := walk(t, root, "route:billing.invoices.send")
	if !strings.Contains(send[0].Detail, "verified") || !strings.Contains(send[0].Detail, "auth") {
		t.Errorf("send route detail %q: want middleware auth and verified", send[0].Detail)
	}
	// Nested Route::group array attributes and an aliased invokable.
	has(t, walk(t, root, "route:billing.admin.reports"), "route GET|HEAD /billing/admin/reports",
		`controller_method App\Http\Controllers\Admin\ReportController@__invoke`, `model App\Models\Customer`, "table clients")
	// routes/api.php gets /api; apiResource of a nested resource; 'Controller@method' strings.
	has(t, walk(t, root, "route:GET /api/customers/{customer}/invoices/{invoice}"), `controller_method App\Http\Controllers\InvoiceController@show`)
	has(t, walk(t, root, "route:/api/legacy/invoices"), `controller_method App\Http\Controllers\InvoiceController@index`)
	if _, err := appgraph.WalkRoot(context.Background(), root, "route:customers.invoices.store"); err == nil {
		t.Error("apiResource ->only(index, show) registered store")
	}
	// A route file loaded by ->name('backoffice.')->group(base_path(...))
	// gets the name prefix with the URI prefix.
	has(t, walk(t, root, "route:backoffice.invoices"), "route GET|HEAD /backoffice/invoices")
	// Attributes chained before the verb apply to the route.
	dash := walk(t, root, "route:admin.dash")
	has(t, dash, "route GET|HEAD /admin/dash", `controller_method App\Http\Controllers\InvoiceController@index`)
	if !strings.Contains(dash[0].Detail, "auth") {
		t.Errorf("dash route detail %q: want middleware auth", dash[0].Detail)
	}
}

func TestTableWalk(t *testing.T) {
	root := indexApp(t)
	nodes := walk(t, root, "table:invoices")
	has(t, nodes, `model App\Models\Invoice`, `model App\Models\Customer`, `model App\Models\InvoiceLine`)
	var migs []string
	for _, n := range nodes {
		if n.Type == "migration" {
			migs = append(migs, n.Path)
		}
	}
	want := []string{"database/migrations/2024_01_01_000000_create_invoices_table.php", "database/migrations/2024_02_01_000000_add_due_on_to_invoices.php"}
	if !slices.Equal(migs, want) {
		t.Errorf("migrations %v, want %v (in order, the down() drop left out)", migs, want)
	}
	if d := nodes[0].Detail; d != "id id, number string, customer_id foreignId, created_at timestamp, updated_at timestamp, due_on date" {
		t.Errorf("table detail %q", d)
	}
	// $table overrides the convention.
	has(t, walk(t, root, "table:clients"), `model App\Models\Customer`)
	if _, err := appgraph.WalkRoot(context.Background(), root, "table:customers"); err == nil {
		t.Error("table:customers found, but Customer's $table is clients")
	}
}

func TestModelAndControllerWalk(t *testing.T) {
	root := indexApp(t)
	has(t, walk(t, root, "model:Invoice"), "model_relation Invoice::customer", "model_relation Invoice::lines",
		`model App\Models\Customer`, `model App\Models\InvoiceLine`, "table invoices",
		`controller_method App\Http\Controllers\InvoiceController@store`, "route POST /billing/invoices")
	has(t, walk(t, root, "controller:InvoiceController@show"), "route GET|HEAD /billing/invoices/{invoice}",
		`model App\Models\Invoice`)
	for _, bad := range []string{"model:Nope", "controller:Nope", "route:nope", "table:nope"} {
		if _, err := appgraph.WalkRoot(context.Background(), root, bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestChunkTypes checks the chunks the describer leaves: one per route
// (the resource expanded), per Schema:: operation and per config key, and
// source types on classes and methods (a named migration class is one
// more migration chunk, the down() drop another); the unrecognised Route::pattern
// stays a plain code chunk.
func TestChunkTypes(t *testing.T) {
	root := indexApp(t)
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bySrc := map[string][]string{}
	var webCode []string
	err = db.View(func(tx *store.Tx) error {
		return tx.Chunks(func(c store.Chunk) error {
			bySrc[c.SourceType] = append(bySrc[c.SourceType], c.Path+" "+c.Symbol)
			if c.Path == "routes/web.php" && c.SourceType == "code" && c.Kind == "top_level" {
				text, _ := tx.Artifact(c)
				webCode = append(webCode, text)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for src, n := range map[string]int{"route": 1 + 7 + 1 + 1 + 2 + 1 + 1 + 1, "migration": 4, "model": 3, "model_relation": 3,
		"controller": 2, "controller_method": 5, "job": 1} {
		if len(bySrc[src]) != n {
			t.Errorf("%d %s chunks, want %d: %v", len(bySrc[src]), src, n, bySrc[src])
		}
	}
	if !slices.Contains(bySrc["config"], "config/billing.php currency") || !slices.Contains(bySrc["config"], "config/billing.php reminders") {
		t.Errorf("config chunks %v: want one per top-level key of config/billing.php", bySrc["config"])
	}
	var reminders string
	_ = db.View(func(tx *store.Tx) error {
		return tx.Chunks(func(c store.Chunk) error {
			if c.Path == "config/billing.php" && c.Symbol == "reminders" {
				reminders, _ = tx.Artifact(c)
			}
			return nil
		})
	})
	if !strings.Contains(reminders, "Reminders go out") {
		t.Errorf("config key reminders: %q, want its doc comment with it", reminders)
	}
	if len(webCode) == 0 || !strings.Contains(strings.Join(webCode, "\n"), "Route::pattern") {
		t.Errorf("routes/web.php code chunks %q: want Route::pattern kept as code", webCode)
	}
}

// TestNotLaravel: without laravel/framework in composer.json the same
// files are plain code and the graph is empty.
func TestNotLaravel(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/app")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "composer.json"), []byte(`{"require": {"symfony/console": "^7"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	indexRoot(t, root)
	_, err := appgraph.WalkRoot(context.Background(), root, "route:home")
	if err == nil || !strings.Contains(err.Error(), "holds no application dossier can read") {
		t.Errorf("walk in a non-Laravel workspace: %v", err)
	}
}

func TestTableOf(t *testing.T) {
	for class, want := range map[string]string{"Invoice": "invoices", "InvoiceLine": "invoice_lines", "Category": "categories",
		"Person": "people", "Box": "boxes", "Status": "statuses", "Audio": "audio", "HTMLPage": "h_t_m_l_pages", "APIKey": "a_p_i_keys", "Key": "keys"} {
		if got := laravel.TableOf(class); got != want {
			t.Errorf("TableOf(%s) = %s, want %s", class, got, want)
		}
	}
}

// TestIncremental: the graph follows edits, deletions and a composer.json
// that starts or stops requiring Laravel, through Run and Update.
func TestIncremental(t *testing.T) {
	root := indexApp(t)
	ix, err := index.Open(index.Options{Root: root, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	web := filepath.Join(root, "routes", "web.php")
	src, err := os.ReadFile(web)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "->name('invoices.send')", "->name('invoices.mail')", 1)
	if err := os.WriteFile(web, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(ctx, []string{"routes/web.php"}); err != nil {
		t.Fatal(err)
	}
	has(t, walk(t, root, "route:billing.invoices.mail"), "route POST /billing/invoices/{invoice}/send")
	if _, err := appgraph.WalkRoot(ctx, root, "route:billing.invoices.send"); err == nil {
		t.Error("the renamed route is still found by its old name")
	}

	if err := os.Remove(filepath.Join(root, "app", "Models", "InvoiceLine.php")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := appgraph.WalkRoot(ctx, root, "model:InvoiceLine"); err == nil {
		t.Error("a deleted model is still in the graph")
	}

	composer := filepath.Join(root, "composer.json")
	if err := os.WriteFile(composer, []byte(`{"require": {"php": "^8.2"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := appgraph.WalkRoot(ctx, root, "model:Invoice"); err == nil {
		t.Error("composer.json no longer requires Laravel, but the graph stayed")
	}
	if err := os.WriteFile(composer, []byte(`{"require": {"laravel/framework": "^11"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(ctx, []string{"composer.json"}); err != nil {
		t.Fatal(err)
	}
	has(t, walk(t, root, "model:Invoice"), `model App\Models\Invoice`)
}

// TestComposerChanges: the Laravel facts follow composer.json even when a
// run that saw it change is cut short, when a nested app's composer.json
// is new, and a root composer.json the index does not hold costs no
// re-derivation on every run.
func TestComposerChanges(t *testing.T) {
	ctx := context.Background()
	composer := func(root, rel, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(root string, o index.Options) index.Summary {
		t.Helper()
		o.Root, o.Workers = root, 1
		ix, err := index.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		sum, err := ix.Run(ctx)
		if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		return sum
	}

	t.Run("cut short", func(t *testing.T) {
		root := indexApp(t)
		composer(root, "composer.json", `{"require": {"php": "^8.2"}}`)
		run(root, index.Options{})
		composer(root, "composer.json", `{"require": {"laravel/framework": "^11"}}`)
		cctx, cancel := context.WithCancel(ctx)
		ix, err := index.Open(index.Options{Root: root, Workers: 1, BatchFiles: 1, Progress: func(p index.Progress) {
			if p.Path == "composer.json" {
				cancel()
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		ix.Run(cctx)
		ix.Close()
		run(root, index.Options{})
		has(t, walk(t, root, "route:billing.invoices.store"), "route POST /billing/invoices")
	})

	t.Run("nested app", func(t *testing.T) {
		root := t.TempDir()
		if err := os.CopyFS(filepath.Join(root, "apps", "api"), os.DirFS("testdata/app")); err != nil {
			t.Fatal(err)
		}
		laravelJSON, err := os.ReadFile(filepath.Join(root, "apps", "api", "composer.json"))
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(root, "apps", "api", "composer.json"))
		composer(root, "composer.json", `{"name": "mono"}`)
		run(root, index.Options{})
		composer(root, "apps/api/composer.json", string(laravelJSON))
		run(root, index.Options{})
		has(t, walk(t, root, "route:billing.invoices.store"), "route POST /billing/invoices")
	})

	t.Run("root composer.json not indexed", func(t *testing.T) {
		root := indexApp(t)
		composer(root, ".dossierignore", "composer.json\n")
		run(root, index.Options{})
		if sum := run(root, index.Options{}); sum.Indexed != 0 {
			t.Errorf("a no-op run derived %d files again", sum.Indexed)
		}
	})
}

// TestResourcesAndSingletons: Route::resources, apiResources, singleton
// (creatable, destroyable) and apiSingleton expand to Laravel's routes.
func TestResourcesAndSingletons(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"composer.json": `{"require": {"laravel/framework": "^11.0"}}`,
		"routes/web.php": `<?php
use App\Http\Controllers\PhotoController;
use App\Http\Controllers\PostController;
use App\Http\Controllers\ProfileController;
use App\Http\Controllers\ThumbnailController;
use Illuminate\Support\Facades\Route;

Route::resources(['photos' => PhotoController::class, 'posts' => PostController::class]);
Route::apiResources(['api-photos' => PhotoController::class]);
Route::singleton('profile', ProfileController::class)->creatable();
Route::singleton('photos.thumbnail', ThumbnailController::class)->destroyable();
Route::apiSingleton('settings', ProfileController::class);
`,
	}
	for _, c := range []string{"Photo", "Post", "Profile", "Thumbnail"} {
		files["app/Http/Controllers/"+c+"Controller.php"] = "<?php\nnamespace App\\Http\\Controllers;\n\nclass " + c +
			"Controller extends Controller\n{\n    public function show() {}\n}\n"
	}
	writeApp(t, root, files)
	// Each target finds the route (its node names METHOD URI; its detail
	// starts with the route's name).
	for target, want := range map[string]string{
		"route:photos.index":                       "GET|HEAD /photos photos.index",
		"route:posts.edit":                         "GET|HEAD /posts/{post}/edit posts.edit",
		"route:GET /posts/{post}":                  "GET|HEAD /posts/{post} posts.show",
		"route:api-photos.update":                  "PUT|PATCH /api-photos/{api_photo} api-photos.update",
		"route:profile.create":                     "GET|HEAD /profile/create profile.create",
		"route:profile.store":                      "POST /profile profile.store",
		"route:profile.destroy":                    "DELETE /profile profile.destroy",
		"route:PUT /profile":                       "PUT|PATCH /profile profile.update",
		"route:photos.thumbnail.destroy":           "DELETE /photos/{photo}/thumbnail photos.thumbnail.destroy",
		"route:GET /photos/{photo}/thumbnail/edit": "GET|HEAD /photos/{photo}/thumbnail/edit photos.thumbnail.edit",
		"route:settings.show":                      "GET|HEAD /settings settings.show",
	} {
		n := walk(t, root, target)[0]
		if got := n.Name + " " + strings.Fields(n.Detail)[0]; n.Type != "route" || got != want {
			t.Errorf("%s: %s %q, want %q", target, n.Type, got, want)
		}
	}
	for _, missing := range []string{"route:api-photos.create", "route:settings.edit", "route:settings.destroy", "route:photos.thumbnail.create"} {
		if _, err := appgraph.WalkRoot(context.Background(), root, missing); err == nil {
			t.Errorf("%s: a route Laravel does not register", missing)
		}
	}
	has(t, walk(t, root, "route:profile.show"), "controller_method App\\Http\\Controllers\\ProfileController@show")
}

// writeApp writes files under root and indexes it.
func writeApp(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indexRoot(t, root)
}

// indexRoot indexes the workspace at root and returns the run's summary.
func indexRoot(t *testing.T, root string) index.Summary {
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
	return sum
}

// TestInheritedRoles: a class outside the usual folders whose base is the
// app's own base model (or base controller) is a model (controller) in
// the graph, with its table and relations.
func TestInheritedRoles(t *testing.T) {
	root := t.TempDir()
	writeApp(t, root, map[string]string{
		"composer.json": `{"require": {"laravel/framework": "^11.0"}}`,
		"app/Support/BaseEntity.php": `<?php
namespace App\Support;
use Illuminate\Database\Eloquent\Model;
abstract class BaseEntity extends Model {}
`,
		"app/Support/Tenanted.php": `<?php
namespace App\Support;
abstract class Tenanted extends BaseEntity {}
`,
		"app/Domain/Invoice.php": `<?php
namespace App\Domain;
use App\Support\Tenanted;
class Invoice extends Tenanted
{
    protected $fillable = ['number'];
    public function customer() { return $this->belongsTo(Customer::class); }
}
`,
		"app/Domain/Customer.php": `<?php
namespace App\Domain;
use App\Support\BaseEntity;
class Customer extends BaseEntity {}
`,
		"app/Web/Base.php": `<?php
namespace App\Web;
use Illuminate\Routing\Controller;
class Base extends Controller {}
`,
		"app/Web/Billing.php": `<?php
namespace App\Web;
use App\Domain\Invoice;
class Billing extends Base
{
    public function store() { return Invoice::create([]); }
}
`,
		"routes/web.php": `<?php
use Illuminate\Support\Facades\Route;
Route::post('/invoices', [App\Web\Billing::class, 'store'])->name('invoices.store');
`,
	})
	has(t, walk(t, root, "model:Invoice"), "model App\\Domain\\Invoice", "table invoices", "model App\\Domain\\Customer")
	has(t, walk(t, root, "table:invoices"), "model App\\Domain\\Invoice")
	has(t, walk(t, root, "route:invoices.store"), "controller_method App\\Web\\Billing@store", "model App\\Domain\\Invoice", "table invoices")
	has(t, walk(t, root, "controller:Billing"), "controller App\\Web\\Billing")
}

// TestFreshIndexRunsOnce: a first index of an app (a nested one too)
// derives each file once, and the next run, with nothing changed,
// derives none: the manifests it found are what that run compares with.
func TestFreshIndexRunsOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "shop"), os.DirFS("testdata/app")); err != nil {
		t.Fatal(err)
	}
	first := indexRoot(t, root)
	if first.Notes["manifest_added"] != 0 || first.Indexed == 0 {
		t.Errorf("first run: indexed %d, notes %v (a fresh index needs no second pass)", first.Indexed, first.Notes)
	}
	if again := indexRoot(t, root); again.Indexed != 0 || again.Unchanged != first.Indexed {
		t.Errorf("second run derived %d files again (unchanged %d of %d)", again.Indexed, again.Unchanged, first.Indexed)
	}
	has(t, walk(t, root, "route:billing.invoices.store"), "model App\\Models\\Invoice")
}

// TestRequiredRouteFiles: a route file required from another (Breeze's
// `require __DIR__.'/auth.php';`, inside a group or not) gets the group's
// prefix, middleware and names, and whatever loads the requiring file.
func TestRequiredRouteFiles(t *testing.T) {
	root := t.TempDir()
	writeApp(t, root, map[string]string{
		"composer.json": `{"require": {"laravel/framework": "^10.0"}}`,
		"app/Providers/RouteServiceProvider.php": `<?php
namespace App\Providers;
use Illuminate\Support\Facades\Route;
class RouteServiceProvider extends ServiceProvider
{
    public function boot()
    {
        Route::middleware('web')->group(base_path('routes/web.php'));
    }
}
`,
		"routes/web.php": `<?php
use Illuminate\Support\Facades\Route;
Route::get('/', fn () => view('welcome'))->name('home');
require __DIR__.'/auth.php';
Route::prefix('admin')->name('admin.')->middleware('can:admin')->group(function () {
    require __DIR__ . '/admin.php';
});
`,
		"routes/auth.php": `<?php
use Illuminate\Support\Facades\Route;
Route::get('login', fn () => view('auth.login'))->name('login');
`,
		"routes/admin.php": `<?php
use Illuminate\Support\Facades\Route;
Route::get('users', fn () => view('admin.users'))->name('users');
`,
	})
	for target, want := range map[string]string{
		"route:login":       "GET|HEAD /login login [web]",
		"route:admin.users": "GET|HEAD /admin/users admin.users [web, can:admin]",
		"route:home":        "GET|HEAD / home [web]",
	} {
		n := walk(t, root, target)[0]
		mw := n.Detail[max(0, strings.Index(n.Detail, "[")):]
		if got := n.Name + " " + strings.Fields(n.Detail)[0] + " " + mw; got != want {
			t.Errorf("%s: %q, want %q", target, got, want)
		}
	}
}
