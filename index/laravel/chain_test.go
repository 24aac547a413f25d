package laravel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/appgraph"
)

// chainApp is a Laravel app whose models get their role only through
// their chain of bases: an abstract BaseResource that extends Eloquent's
// Model (a name that reads like an API resource), a model in a folder of
// its own extending it across files, and a model whose base lives in a
// package the index does not hold.
var chainApp = map[string]string{
	"composer.json": `{"require": {"laravel/framework": "^12.0"}}`,
	"app/Models/BaseResource.php": `<?php
namespace App\Models;
use Illuminate\Database\Eloquent\Model;
abstract class BaseResource extends Model {}
`,
	"app/Models/Person.php": `<?php
namespace App\Models;
class Person extends BaseResource
{
    protected $fillable = ['name'];
}
`,
	"app/Domain/Crm/Lead.php": `<?php
namespace App\Domain\Crm;
use App\Models\BaseResource as Base;
class Lead extends Base {}
`,
	"app/Http/Resources/PersonResource.php": `<?php
namespace App\Http\Resources;
use Illuminate\Http\Resources\Json\JsonResource;
class PersonResource extends JsonResource {}
`,
	"app/Domain/Billing/Wallet.php": `<?php
namespace App\Domain\Billing;
use Vendor\Ledger\LedgerModel;
class Wallet extends LedgerModel {}
`,
	"app/Domain/Billing/LedgerException.php": `<?php
namespace App\Domain\Billing;
class LedgerException extends \RuntimeException {}
`,
	"app/Http/Controllers/PersonController.php": `<?php
namespace App\Http\Controllers;
use App\Models\Person;
use App\Domain\Crm\Lead;
class PersonController extends Controller
{
    public function show(Person $person) { return $person; }
    public function leads() { return Lead::all(); }
}
`,
	"app/Http/Controllers/Controller.php": `<?php
namespace App\Http\Controllers;
abstract class Controller {}
`,
	"routes/web.php": `<?php
use Illuminate\Support\Facades\Route;
use App\Http\Controllers\PersonController;
Route::get('/people/{person}', [PersonController::class, 'show'])->name('people.show');
Route::get('/leads', [PersonController::class, 'leads'])->name('leads');
`,
}

// TestRoleFromChain: a class's role comes from its chain of bases to
// Eloquent's Model, never from its own or a base's name: Person, which
// extends the abstract BaseResource, is a model with a table (not an API
// resource), in model:, table: and route walks; Lead, in a folder of its
// own, gets it through an aliased import across files. Wallet's chain
// leaves the index: model:Wallet says so instead of guessing from the
// name.
func TestRoleFromChain(t *testing.T) {
	root := t.TempDir()
	writeApp(t, root, chainApp)
	has(t, walk(t, root, "model:Person"), `model App\Models\Person`, "table people")
	has(t, walk(t, root, "table:people"), `model App\Models\Person`)
	has(t, walk(t, root, "route:people.show"), `controller_method App\Http\Controllers\PersonController@show`,
		`model App\Models\Person`, "table people")
	has(t, walk(t, root, "model:Lead"), `model App\Domain\Crm\Lead`, "table leads")
	has(t, walk(t, root, "route:leads"), `model App\Domain\Crm\Lead`)
	has(t, walk(t, root, "controller:PersonController"), `controller App\Http\Controllers\PersonController`)
	if _, err := appgraph.WalkRoot(context.Background(), root, "model:PersonResource"); err == nil {
		t.Error("model:PersonResource: a JsonResource is no model")
	}
	_, err := appgraph.WalkRoot(context.Background(), root, "model:Wallet")
	if err == nil || !strings.Contains(err.Error(), `Vendor\Ledger\LedgerModel`) || !strings.Contains(err.Error(), "app/Domain/Billing/Wallet.php") {
		t.Errorf("model:Wallet: %v; want an error naming the base the index does not hold and where Wallet is", err)
	}
	// PHP's own classes end a chain: no role, nothing unresolved.
	if _, err := appgraph.WalkRoot(context.Background(), root, "model:LedgerException"); err == nil || strings.Contains(err.Error(), "RuntimeException") {
		t.Errorf("model:LedgerException: %v; want no model, and no chain left unresolved", err)
	}
}
