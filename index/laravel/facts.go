// Package laravel reads what a PHP file of a Laravel application says about
// the application, from the tree-sitter parse the chunker already made:
// routes (group prefixes, names and middleware applied, resources
// expanded), models (table, relations, fillable, casts), migrations
// (Schema::create/table/drop with columns, indexes and foreign keys),
// controllers and the other classes Laravel gives a role by base class,
// and config files by top-level key. A class's role is decided by its
// chain of bases, which may cross files: a file says what its own
// declaration decides (RoleBy), and appgraph follows the chain; the
// relations a model inherits from bases and traits, and those narrowing
// another relation (Relation.Of), are joined there too. Extraction is pure; anything it does
// not recognise is left to the plain code chunks. The facts are
// appgraph's, which joins every file's into the application's graph.
package laravel

import "github.com/dossierhq/dossier/index/appgraph"

// The fact types, shared by every framework through appgraph.
type (
	Facts     = appgraph.Facts
	Span      = appgraph.Span
	RouteFile = appgraph.RouteFile
	Class     = appgraph.Class
	Method    = appgraph.Method
	Relation  = appgraph.Relation
	Route     = appgraph.Route
	Migration = appgraph.Migration
	Column    = appgraph.Column
	Foreign   = appgraph.Foreign
	ConfigKey = appgraph.ConfigKey
)

// The roles Laravel gives classes.
const (
	RoleModel      = appgraph.RoleModel
	RoleController = appgraph.RoleController
	RoleJob        = appgraph.RoleJob
	RoleEvent      = appgraph.RoleEvent
	RoleListener   = appgraph.RoleListener
	RolePolicy     = appgraph.RolePolicy
	RoleMiddleware = appgraph.RoleMiddleware
	RoleRequest    = appgraph.RoleRequest
	RoleResource   = appgraph.RoleResource
	RoleService    = appgraph.RoleService
	RoleMigration  = appgraph.RoleMigration
)
