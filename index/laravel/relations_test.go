package laravel_test

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/appgraph"
)

// relationsApp has relations the body of their method does not build
// with an Eloquent builder: one narrowing another relation, one known by
// its return type only, and relations a model inherits from its base
// class and from traits (one used by the base).
var relationsApp = map[string]string{
	"composer.json": `{"require": {"laravel/framework": "^12.0"}}`,
	"app/Models/Concerns/HasComments.php": `<?php
namespace App\Models\Concerns;
use App\Models\Comment;
use Illuminate\Database\Eloquent\Relations\MorphMany;
trait HasComments
{
    public function comments(): MorphMany
    {
        return $this->morphMany(Comment::class, 'commentable');
    }
}
`,
	"app/Models/Concerns/Audited.php": `<?php
namespace App\Models\Concerns;
trait Audited
{
    public function audits() { return $this->hasMany(\App\Models\Audit::class); }
}
`,
	"app/Models/Document.php": `<?php
namespace App\Models;
use App\Models\Concerns\Audited;
use Illuminate\Database\Eloquent\Model;
abstract class Document extends Model
{
    use Audited;

    public function author() { return $this->belongsTo(User::class); }
}
`,
	"app/Models/Invoice.php": `<?php
namespace App\Models;
use App\Models\Concerns\HasComments;
use Illuminate\Database\Eloquent\Relations\HasMany;
use Illuminate\Database\Eloquent\Relations\BelongsTo;
class Invoice extends Document
{
    use HasComments;

    public function lines(): HasMany
    {
        return $this->hasMany(InvoiceLine::class);
    }

    public function paidLines(): HasMany
    {
        return $this->lines()->where('paid', true);
    }

    /** @return BelongsTo<Currency, $this> */
    public function currency(): BelongsTo
    {
        return $this->newBelongsTo($this->newQuery(), $this, 'currency_id', 'id', 'currency');
    }

    public function scopeOpen($query) { return $query->where('open', true); }

    public function recent() { return $this->query()->latest(); }

    public function original() { return $this->belongsTo(self::class, 'original_id'); }
}
`,
	"app/Models/User.php": `<?php
namespace App\Models;
use Illuminate\Foundation\Auth\User as Authenticatable;
class User extends Authenticatable {}
`,
	"app/Models/Loop.php": `<?php
namespace App\Models;
class Loop extends Knot
{
    use Loopy;
    public function a() { return $this->b()->where('x', 1); }
    public function b() { return $this->a()->where('y', 2); }
}
class Knot extends Loop {}
trait Loopy { use Loopy; }
`,
	"app/Models/InvoiceLine.php": `<?php
namespace App\Models;
use Illuminate\Database\Eloquent\Model;
class InvoiceLine extends Model {}
`,
}

// TestRelationsBeyondBuilders: model:Invoice lists the relation that
// narrows another (paidLines), the one declared by its return type
// (currency, target from its @return), and those inherited from its base
// (author) and from traits of its own and of its base (comments, audits),
// each where it is defined; methods that return no relation are none.
func TestRelationsBeyondBuilders(t *testing.T) {
	root := t.TempDir()
	writeApp(t, root, relationsApp)
	nodes := walk(t, root, "model:Invoice")
	at := map[string]appgraph.Node{}
	for _, n := range nodes {
		if n.Type == "model_relation" {
			at[n.Name] = n
		}
	}
	for name, want := range map[string]struct {
		path   string
		line   int
		detail string
	}{
		"Invoice::lines":     {"app/Models/Invoice.php", 10, `hasMany App\Models\InvoiceLine`},
		"Invoice::paidLines": {"app/Models/Invoice.php", 15, `hasMany App\Models\InvoiceLine (narrows lines)`},
		"Invoice::currency":  {"app/Models/Invoice.php", 21, `belongsTo App\Models\Currency`},
		"Invoice::comments":  {"app/Models/Concerns/HasComments.php", 7, `morphMany App\Models\Comment`},
		"Invoice::author":    {"app/Models/Document.php", 9, `belongsTo App\Models\User`},
		"Invoice::audits":    {"app/Models/Concerns/Audited.php", 5, `hasMany App\Models\Audit`},
		"Invoice::original":  {"app/Models/Invoice.php", 30, `belongsTo App\Models\Invoice`},
	} {
		n, ok := at[name]
		if !ok {
			t.Errorf("model:Invoice: no relation %s in %v", name, names(nodes))
			continue
		}
		if n.Path != want.path || n.StartLine != want.line || n.Detail != want.detail {
			t.Errorf("%s at %s:%d %q, want %s:%d %q", name, n.Path, n.StartLine, n.Detail, want.path, want.line, want.detail)
		}
	}
	for _, none := range []string{"Invoice::scopeOpen", "Invoice::recent"} {
		if _, ok := at[none]; ok {
			t.Errorf("%s is no relation", none)
		}
	}
	has(t, nodes, `model App\Models\InvoiceLine`)
	// A chain of bases, of traits or of narrowing relations that loops
	// ends: no relation, and the walk returns.
	for _, n := range names(walk(t, root, "model:Loop")) {
		if strings.HasPrefix(n, "model_relation") {
			t.Errorf("model:Loop: %s", n)
		}
	}
	// The table walk follows inherited relations too.
	has(t, walk(t, root, "table:users"), `model App\Models\Invoice`)
}
