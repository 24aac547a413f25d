package related

import "testing"

// laravelFiles is a Laravel-shaped app: composer.json maps App\ to app/;
// Illuminate is outside the workspace (vendor/ is not indexed).
var laravelFiles = map[string]string{
	"composer.json": `{
    "name": "acme/pages",
    "autoload": {"psr-4": {"App\\": "app/", "Database\\Factories\\": "database/factories/"}},
    "autoload-dev": {"psr-4": {"Tests\\": "tests/"}}
}
`,
	"app/Http/Request.php": "<?php\n\nnamespace App\\Http;\n\nclass Request\n{\n    public function all(): array { return []; }\n}\n",
	"app/Http/Controllers/Controller.php": `<?php

namespace App\Http\Controllers;

abstract class Controller
{
    protected function redirect(string $to) { return $to; }
}
`,
	"app/Http/Controllers/PageController.php": `<?php

namespace App\Http\Controllers;

use App\Models\Page;
use App\Services\PageCache;
use Illuminate\Http\Request;

class PageController extends Controller
{
    public function __construct(private PageCache $cache) {}

    public function store(Request $request)
    {
        $page = new Page();
        $page->fill($request->all());
        $page->save();
        $this->cache->forget($page);
        return redirect()->route('pages.index');
    }
}
`,
	"app/Models/Page.php": `<?php

namespace App\Models;

class Page extends Model
{
    public function fill(array $attrs): static { return $this; }
    public function save(): bool { return true; }
}
`,
	"app/Models/Model.php": "<?php\n\nnamespace App\\Models;\n\nabstract class Model\n{\n}\n",
	"app/Services/PageCache.php": `<?php

namespace App\Services;

use Illuminate\Support\Facades\Cache;
use App\Models\Page;

class PageCache
{
    public function forget(Page $page): void
    {
        Cache::store(null)->forget('page.'.$page->id);
    }

    public function store(Page $page): void
    {
        Cache::put('page', $page);
    }
}
`,
	"routes/web.php": `<?php

use App\Http\Controllers\PageController;
use Illuminate\Support\Facades\Route;

Route::post('/pages', [PageController::class, 'store']);

function replay(PageController $c, $request) {
    return $c->store($request);
}
`,
}

func TestPHPLaravel(t *testing.T) {
	db := fixtureOf(t, laravelFiles)
	x := expand(t, db, "app/Http/Controllers/PageController.php::@PageController.store")
	// Illuminate\Http\Request is no file of the workspace: composer.json
	// maps only App\ (and Tests\, Database\Factories\) to directories.
	check(t, "imports", importsOf(x), []string{
		"5 App\\Models\\Page -> app/Models/Page.php",
		"6 App\\Services\\PageCache -> app/Services/PageCache.php",
		"7 Illuminate\\Http\\Request -> external",
	})
	// redirect() is Laravel's helper, not Controller::redirect; all() is
	// Illuminate's Request's, not app/Http/Request.php's.
	check(t, "callees", calleesOf(x), []string{
		"app/Models/Page.php:5 Page (class) <- 15",
		"app/Models/Page.php:7 Page.fill (method) <- 16",
		"app/Models/Page.php:8 Page.save (method) <- 17",
		"app/Services/PageCache.php:10 PageCache.forget (method) <- 18",
	})
	// Cache::store(null) is the facade's, not this store.
	check(t, "callers", callersOf(x), []string{"routes/web.php:9 replay (function) calls store"})

	x = expand(t, db, "app/Services/PageCache.php::@PageCache.store")
	check(t, "no callers", callersOf(x), nil)
}
