// Package appgraph holds what an application's files say about it (seed
// 002): routes, controllers and their methods, models and their relations,
// migrations and the tables they shape, config keys. Framework extractors
// (index/laravel, and the others registered in index/framework.go) read
// them from the chunker's parse; graph.go joins the facts of every file
// into the application's graph and walks it.
package appgraph

import (
	"bytes"
	"fmt"
)

// Span locates a fact in its file (bytes half-open, lines 1-based inclusive).
type Span struct {
	StartByte int `json:"sb"`
	EndByte   int `json:"eb"`
	StartLine int `json:"sl"`
	EndLine   int `json:"el"`
}

// Facts is what one file says about the application.
type Facts struct {
	// Framework names the framework whose extractor read the facts
	// (laravel); the index sets it.
	Framework  string      `json:"fw,omitempty"`
	Namespace  string      `json:"ns,omitempty"`
	Classes    []Class     `json:"classes,omitempty"`
	Routes     []Route     `json:"routes,omitempty"`
	Migrations []Migration `json:"migrations,omitempty"`
	Config     []ConfigKey `json:"config,omitempty"`
	// RouteFiles are the route files this file loads with a prefix or
	// middleware (a RouteServiceProvider's ->group(base_path(...)),
	// bootstrap/app.php's withRouting).
	RouteFiles []RouteFile `json:"route_files,omitempty"`
	// Stmts are the spans of the file's top-level statements, so a
	// describer can keep the code between recognised facts.
	Stmts []Span `json:"-"`
	// Notes are what the extractor saw but could not read (an f-string
	// route whose prefix is no module constant); the index reports them
	// with the file.
	Notes []Note `json:"-"`
}

// Note is one thing an extractor could not read, at a line of the file.
type Note struct {
	Line int
	Text string
}

// Empty reports whether f holds nothing worth keeping.
func (f *Facts) Empty() bool {
	return f == nil || len(f.Classes) == 0 && len(f.Routes) == 0 && len(f.Migrations) == 0 && len(f.Config) == 0 && len(f.RouteFiles) == 0
}

// RouteFile is a route file and what the code loading it applies to its routes.
type RouteFile struct {
	File       string   `json:"file"` // relative to the application root: routes/api.php
	Prefix     string   `json:"prefix,omitempty"`
	Middleware []string `json:"middleware,omitempty"`
	// Name is the name prefix (->name('api.')) of the file's named routes.
	Name string `json:"name,omitempty"`
	// Include marks a Django include(): File is the included module
	// (blog/urls.py, found wherever the project's root is), its routes are
	// mounted once per include and includes chain (a module included by
	// a module the root URLconf includes).
	Include bool `json:"include,omitempty"`
}

// Roles of classes, by base class, interface or (failing those) folder.
const (
	RoleModel      = "model"
	RoleController = "controller"
	RoleJob        = "job"
	RoleEvent      = "event"
	RoleListener   = "listener"
	RolePolicy     = "policy"
	RoleMiddleware = "middleware"
	RoleRequest    = "request"
	RoleResource   = "resource"
	RoleService    = "service"
	RoleMigration  = "migration"
)

// Class is a class declaration with the role Laravel gives it.
type Class struct {
	Name string `json:"name"`
	FQN  string `json:"fqn"`
	Base string `json:"base,omitempty"` // fully qualified as resolved through `use`
	Role string `json:"role,omitempty"`
	// RoleBy says what gave Role, for the graph to follow the chain of
	// bases (see Graph.inheritRoles): "base" when the base class or an
	// interface decided it (Eloquent's Model; a framework class that
	// gives none decides "" too), "folder" when only the folder the
	// framework generates such classes in did, "" otherwise (a non-empty
	// Role is then decided).
	RoleBy string `json:"role_by,omitempty"`
	// Mixins are the classes mixed into the class besides Base, fully
	// qualified: a PHP class's traits, a Python class's other bases.
	Mixins []string `json:"mixins,omitempty"`
	Table  string   `json:"table,omitempty"` // models: $table, or the convention
	// TableExplicit is set when $table names the table.
	TableExplicit bool       `json:"table_explicit,omitempty"`
	Fillable      []string   `json:"fillable,omitempty"`
	Casts         []string   `json:"casts,omitempty"` // "column:cast"
	Relations     []Relation `json:"relations,omitempty"`
	Methods       []Method   `json:"methods,omitempty"`
	// Fields are a Django model's fields with their types.
	Fields []Column `json:"fields,omitempty"`
	// Uses are the classes the class body names outside its methods (a
	// Django view's model and queryset, a serializer's or form's
	// Meta.model); a walk reaching the class through a route whose
	// action is inherited, or through a method that names the class,
	// follows them.
	Uses []string `json:"uses,omitempty"`
	Span
}

// Method is a method and the classes its body names (static calls, new,
// ::class, parameter and return types), fully qualified.
type Method struct {
	Name string   `json:"name"`
	Uses []string `json:"uses,omitempty"`
	Span
}

// Relation is an Eloquent relation method.
type Relation struct {
	Method string `json:"method"`
	Type   string `json:"type"`   // hasMany, belongsTo, ...
	Target string `json:"target"` // the related model, fully qualified ("" for morphTo)
	// Of is the relation method of the same class (or a base or trait)
	// this one narrows (return $this->lines()->where(...)); the graph
	// gives it that relation's Type and Target when they are "".
	Of string `json:"of,omitempty"`
	Span
}

// Route is one HTTP route.
type Route struct {
	Methods    []string `json:"methods"` // GET, POST, ... (ANY for Route::any)
	URI        string   `json:"uri"`     // leading "/", group prefixes applied
	Name       string   `json:"name,omitempty"`
	Middleware []string `json:"middleware,omitempty"`
	Controller string   `json:"controller,omitempty"` // fully qualified
	Action     string   `json:"action,omitempty"`     // the method; __invoke for invokables, "closure"
	Span
}

// Migration is one Schema:: operation on a table.
type Migration struct {
	Table   string    `json:"table"`
	Op      string    `json:"op"` // create, table, drop, rename
	To      string    `json:"to,omitempty"`
	Columns []Column  `json:"columns,omitempty"`
	Indexes []string  `json:"indexes,omitempty"`
	Foreign []Foreign `json:"foreign,omitempty"`
	Dropped []string  `json:"dropped,omitempty"` // columns dropped or renamed away
	// Down marks an operation of a migration's down(): a rollback, not
	// part of the table's history.
	Down bool `json:"down,omitempty"`
	// Call is the operation as the code names it (CreateModel) where it
	// is no Schema:: call.
	Call string `json:"call,omitempty"`
	// Model is the model a Django operation names (blog.post), whose
	// table an earlier migration may have set (db_table,
	// AlterModelTable); Table is then the convention's until the graph
	// applies it.
	Model string `json:"model,omitempty"`
	Span
}

// Column is a column a migration adds or changes, or a model's field.
type Column struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Modifiers []string `json:"mods,omitempty"`
	// Line is where a model's field is defined (a migration's columns
	// have their operation's span).
	Line int `json:"line,omitempty"`
}

// Foreign is a foreign key.
type Foreign struct {
	Column    string `json:"column"`
	RefTable  string `json:"ref_table"`
	RefColumn string `json:"ref_column,omitempty"`
}

// ConfigKey is a top-level key of a config/*.php file.
type ConfigKey struct {
	File string `json:"file"` // the config name: "app" for config/app.php
	Key  string `json:"key"`
	Span
}

// Failure is an extractor's panic with the line of the source it was
// reading: an extractor that knows where it is panics again with one, so
// the index reports the file and line whose facts it left out (see the
// index's frameworkHook: a failed extractor costs its facts, never the
// file's chunks and symbols).
type Failure struct {
	Line int // 1-based; 0 when not known
	Err  any // the extractor's panic
}

func (f Failure) Error() string { return fmt.Sprint(f.Err) }

// Where is the byte offset of the construct an extractor's walk is
// reading: the walk sets At as it goes into each statement, class member
// or route, and Located gives a failure that line.
type Where struct{ At uint32 }

// Located, deferred by an extractor's entry point, turns a panic of its
// walk over src into a Failure at the line of w.At; a Failure already
// located keeps its line.
func (w *Where) Located(src []byte) {
	v := recover()
	if v == nil {
		return
	}
	if _, ok := v.(Failure); ok {
		panic(v)
	}
	at := min(int(w.At), len(src))
	panic(Failure{Line: 1 + bytes.Count(src[:at], []byte("\n")), Err: v})
}
