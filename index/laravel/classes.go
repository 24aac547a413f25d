package laravel

import (
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/lang"
	sitter "github.com/smacker/go-tree-sitter"
)

// roleByBase names the role of well-known Laravel base classes and
// interfaces, and of packages' classes known to extend them.
var roleByBase = sync.OnceValue(func() map[string]string {
	return map[string]string{
		`Illuminate\Database\Eloquent\Model`:                RoleModel,
		`Illuminate\Foundation\Auth\User`:                   RoleModel,
		`Illuminate\Database\Eloquent\Relations\Pivot`:      RoleModel,
		`Illuminate\Database\Eloquent\Relations\MorphPivot`: RoleModel,
		`Illuminate\Notifications\DatabaseNotification`:     RoleModel,
		`Illuminate\Routing\Controller`:                     RoleController,
		`Illuminate\Foundation\Http\FormRequest`:            RoleRequest,
		`Illuminate\Http\Resources\Json\JsonResource`:       RoleResource,
		`Illuminate\Http\Resources\Json\ResourceCollection`: RoleResource,
		`Illuminate\Contracts\Queue\ShouldQueue`:            RoleJob,
		`Illuminate\Database\Migrations\Migration`:          RoleMigration,
		`Illuminate\Foundation\Events\Dispatchable`:         RoleEvent,
		`Laravel\Lumen\Routing\Controller`:                  RoleController,
		`Laravel\Sanctum\PersonalAccessToken`:               RoleModel,
		`Laravel\Jetstream\Team`:                            RoleModel,
		`Laravel\Jetstream\Membership`:                      RoleModel,
		`MongoDB\Laravel\Eloquent\Model`:                    RoleModel,
		`Jenssegers\Mongodb\Eloquent\Model`:                 RoleModel,
		`Spatie\Permission\Models\Role`:                     RoleModel,
		`Spatie\Permission\Models\Permission`:               RoleModel,
	}
})

// roleByDir names the role of classes by the folder Laravel generates them in.
var roleByDir = []struct{ dir, role string }{
	{"/Http/Controllers/", RoleController}, {"/Http/Middleware/", RoleMiddleware}, {"/Http/Requests/", RoleRequest},
	{"/Http/Resources/", RoleResource}, {"/Models/", RoleModel}, {"/Jobs/", RoleJob}, {"/Events/", RoleEvent},
	{"/Listeners/", RoleListener}, {"/Policies/", RolePolicy}, {"/Services/", RoleService},
	{"database/migrations/", RoleMigration},
}

// Values of Class.RoleBy.
const (
	byBase   = "base"
	byFolder = "folder"
)

// role decides what a class's own declaration says of its role: its base
// class or interfaces when the framework (or a package known to extend
// it) defines them, else the folder Laravel generates such classes in,
// which the chain of bases overrides when the graph resolves it (see
// appgraph's inheritRoles). Names never decide: BaseResource may well
// extend Model.
func (e *x) role(name, base string, ifaces []string) (role, by string) {
	if r, ok := roleByBase()[base]; ok {
		return r, byBase
	}
	for _, i := range ifaces {
		if r := roleByBase()[i]; r != "" {
			if r == RoleJob && strings.Contains(e.path, "/Listeners/") {
				return RoleListener, byBase
			}
			return r, byBase
		}
	}
	if strings.HasPrefix(base, `Illuminate\`) {
		return "", byBase // a framework class that gives no role (Command, Mailable)
	}
	p := "/" + e.path
	for _, d := range roleByDir {
		if strings.Contains(p, "/"+strings.TrimPrefix(d.dir, "/")) {
			if d.role == RoleModel && base == "" {
				return "", "" // a plain class under Models/ (an enum, a value) is no model
			}
			if d.role == RoleController && !strings.HasSuffix(name, "Controller") {
				continue
			}
			if d.role == RolePolicy && !strings.HasSuffix(name, "Policy") {
				continue
			}
			return d.role, byFolder
		}
	}
	return "", ""
}

// class reads a class declaration (or an anonymous class, name "").
func (e *x) class(n *sitter.Node, name string, body *sitter.Node) {
	c := Class{Name: name, Span: e.span(n)}
	if name != "" {
		c.FQN = e.resolveDecl(name)
	}
	if b := childOf(n, "base_clause"); b != nil {
		if bn := firstNamed(b); bn != nil {
			c.Base = e.resolve(e.text(bn))
		}
	}
	var ifaces []string
	if ic := childOf(n, "class_interface_clause"); ic != nil {
		for _, i := range named(ic) {
			ifaces = append(ifaces, e.resolve(e.text(i)))
		}
	}
	c.Role, c.RoleBy = e.role(name, c.Base, ifaces)
	// A class without a role whose base is another class of the app may
	// inherit one through it (a model extending the app's BaseModel): the
	// graph decides (appgraph's inherited roles), so its properties and
	// methods are read as a model's and a controller's would be.
	// Tests (a TestCase's subclasses) never do, and are most of such
	// classes: they are left alone.
	// A trait's relations are those of the models that use it.
	trait := n.Type() == "trait_declaration"
	inherits := trait || c.Role == "" && c.RoleBy != byBase && c.Base != "" && name != "" &&
		!strings.HasSuffix(c.Base, "TestCase") && !lang.IsTestPath(e.path)
	if body != nil {
		for _, m := range named(body) {
			e.At = m.StartByte()
			switch m.Type() {
			case "property_declaration":
				if c.Role == RoleModel || inherits {
					e.modelProp(&c, m)
				}
			case "method_declaration":
				// Only these roles' method bodies say anything the graph
				// keeps: the models a controller names, a model's
				// relations, a migration's Schema:: operations.
				switch {
				case c.Role == RoleController || c.Role == RoleModel || c.Role == RoleMigration:
					e.method(&c, m)
				case strings.HasSuffix(name, "ServiceProvider"):
					if b := m.ChildByFieldName("body"); b != nil {
						e.providerRoutes(b)
					}
				case inherits:
					e.method(&c, m)
				}
			case "use_declaration": // traits
				for _, t := range named(m) {
					if t.Type() == "name" || t.Type() == "qualified_name" {
						r := e.resolve(e.text(t))
						if r == `Illuminate\Foundation\Events\Dispatchable` && c.Role == "" {
							c.Role, c.RoleBy = RoleEvent, byBase
						}
						if r != "" && !strings.HasPrefix(r, `Illuminate\`) {
							c.Mixins = append(c.Mixins, r)
						}
					}
				}
			}
		}
	}
	if (c.Role == RoleModel || inherits) && !trait && c.Table == "" && name != "" {
		c.Table = TableOf(name)
	}
	narrowed(c.Relations)
	if name == "" && c.Role != RoleMigration {
		return // an anonymous class that is no migration: nothing to name
	}
	e.f.Classes = append(e.f.Classes, c)
}

// resolveDecl is the fully qualified name of a class declared here.
func (e *x) resolveDecl(name string) string {
	if e.f.Namespace != "" {
		return e.f.Namespace + `\` + name
	}
	return name
}

// modelProp reads $table, $fillable and $casts.
func (e *x) modelProp(c *Class, n *sitter.Node) {
	for _, el := range named(n) {
		if el.Type() != "property_element" {
			continue
		}
		prop := strings.TrimPrefix(e.text(childOf(el, "variable_name")), "$")
		init := childOf(el, "property_initializer")
		if init == nil {
			continue
		}
		v := firstNamed(init)
		switch prop {
		case "table":
			if s, ok := e.str(v); ok && s != "" {
				c.Table, c.TableExplicit = s, true
			}
		case "fillable":
			c.Fillable = e.strs(v)
		case "casts":
			c.Casts = append(c.Casts, e.pairs(v)...)
		}
	}
}

// pairs reads ['a' => 'b', ...] as "a:b".
func (e *x) pairs(n *sitter.Node) []string {
	if n == nil || n.Type() != "array_creation_expression" {
		return nil
	}
	var out []string
	e.entries(n, func(k string, val *sitter.Node) {
		v, ok := e.str(val)
		if !ok {
			v = e.classRef(val)
			if v == "" {
				v = strings.Join(strings.Fields(e.text(val)), " ")
			}
		}
		out = append(out, k+":"+v)
	})
	return out
}

// entries calls f with the key and value node of each 'key' => value
// element of a PHP array; other elements are passed over.
func (e *x) entries(arr *sitter.Node, f func(k string, v *sitter.Node)) {
	for _, el := range named(arr) {
		vs := named(el)
		if el.Type() != "array_element_initializer" || len(vs) != 2 {
			continue
		}
		if k, ok := e.str(vs[0]); ok {
			f(k, vs[1])
		}
	}
}

// method reads a method: the classes it names, an Eloquent relation it
// returns (see relation), and the Schema:: operations it runs (a
// migration's up()).
func (e *x) method(c *Class, n *sitter.Node) {
	m := Method{Name: e.text(n.ChildByFieldName("name")), Span: e.span(n)}
	e.fn = m.Name
	defer func() { e.fn = "" }()
	seen := map[string]bool{}
	var rel *Relation
	eachNamed(n, func(k *sitter.Node) bool {
		if t := k.Type(); t == "member_call_expression" || t == "scoped_call_expression" {
			if head, links := e.chain(k); head == "Schema" {
				e.schema(k, links)
				return false
			}
		}
		switch k.Type() {
		case "class_constant_access_expression", "named_type":
			ref := ""
			if k.Type() == "named_type" {
				if nm := firstNamed(k); nm != nil {
					ref = e.classRef(nm)
				}
			} else {
				ref = e.classRef(k)
			}
			if ref != "" && !seen[ref] {
				seen[ref] = true
				m.Uses = append(m.Uses, ref)
			}
		case "scoped_call_expression", "object_creation_expression":
			var scope *sitter.Node
			if k.Type() == "scoped_call_expression" {
				scope = k.ChildByFieldName("scope")
			} else {
				scope = firstNamed(k)
			}
			if scope != nil && (scope.Type() == "name" || scope.Type() == "qualified_name") {
				if ref := e.classRef(scope); ref != "" && !seen[ref] {
					seen[ref] = true
					m.Uses = append(m.Uses, ref)
				}
			}
		case "member_call_expression":
			if rel == nil && (c.Role == RoleModel || c.Role == "") {
				rel = e.builtRelation(k, m, c.FQN)
			}
		}
		return true
	})
	if rel == nil && (c.Role == RoleModel || c.Role == "") {
		rel = e.declaredRelation(n, m)
	}
	if rel != nil {
		c.Relations = append(c.Relations, *rel)
	}
	slices.Sort(m.Uses)
	c.Methods = append(c.Methods, m)
}
