package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// JavaScript, TypeScript and TSX share one extractor: the grammars agree
// on every node this file reads, TypeScript adds types.
//
// Definitions are what a selector can name from outside a function body:
// top-level functions, classes, variables, interfaces, type aliases, enums
// and their members, namespaces; class members (methods, property
// functions `fetch = (req) => ...`, #private members, accessors, fields,
// constructor parameter properties); interface and object-type members;
// the methods and function properties of an object literal bound to a
// top-level name (Container is that name, the object's kind "object").
// Inside a function body, declarations are locals.
//
// Imports record, besides import statements and require calls, what a
// file re-exports, so a resolver can follow a barrel: `export {a as b}
// from "./x"` is Local b, Member a, Spec ./x; `export * from "./x"` is
// Local "*"; the default export and a local rename (`export {a as b}`)
// have Spec "" (this file): Local "default", Member the exported name.
// A default import is Member "default".

func init() {
	for _, l := range []string{lang.JavaScript, lang.TypeScript, lang.TSX} {
		language := l
		register(language, func(src []byte) (*File, error) { return extractJS(language, src) })
	}
}

// jsExtractor walks one file.
type jsExtractor struct {
	b    *builder
	vals vals
	src  []byte
	// globals are the file's top-level names (definitions and import
	// bindings) and how a member reached through them resolves.
	globals map[string]Val
	// sc holds the locals of the function or block being walked; nil at
	// the top level.
	sc *scope
	// this is the value of `this` in each enclosing function.
	this []Val
	// tparams maps the type parameters in scope to their constraints.
	tparams []map[string]string
	// fnDepth > 0 inside a function body, where declarations are locals.
	fnDepth int
	// ns is the enclosing namespace, the Container of its members.
	ns string
	// aliases maps a top-level object literal's name to the members that
	// merely name another top-level value: const api = { get, post: send }.
	aliases map[string]map[string]string
	// cls is the class whose body is walked ("" outside a class
	// definition): the type `this` names.
	cls string
	// overloaded holds the start of each function signature that its
	// implementation follows in the same block (see overloads).
	overloaded map[uint32]bool
}

func extractJS(language string, src []byte) (*File, error) {
	tree, err := parse(language, src)
	if err != nil {
		return nil, err
	}
	x := &jsExtractor{b: newBuilder(src), src: src, globals: map[string]Val{}, aliases: map[string]map[string]string{}, vals: vals{}}
	root := tree.Root()
	x.collectGlobals(root)
	x.statements(root)
	return x.b.done(), nil
}

func (x *jsExtractor) text(n *grammar.Node) string { return text(n, x.src) }

func (x *jsExtractor) line(n *grammar.Node) int { return int(n.StartPoint().Row) + 1 }

// collectGlobals records the top-level names before the walk, so a
// reference made before a definition (hoisting) sees it.
func (x *jsExtractor) collectGlobals(root *grammar.Node) {
	var visit func(n *grammar.Node)
	visit = func(n *grammar.Node) {
		switch n.Type() {
		case "export_statement", "ambient_declaration", "expression_statement":
			for _, c := range named(n) {
				visit(c)
			}
		case "import_statement":
			x.importStatement(n)
		case "function_declaration", "generator_function_declaration", "function_signature",
			"class_declaration", "abstract_class_declaration", "enum_declaration", "internal_module":
			if name := x.text(field(n, "name")); name != "" {
				x.globals[name] = reached(Bare, "", name)
			}
		case "lexical_declaration", "variable_declaration":
			for _, d := range named(n) {
				if d.Type() != "variable_declarator" {
					continue
				}
				if x.requireImport(d) {
					continue
				}
				if id := field(d, "name"); id != nil && id.Type() == "identifier" {
					x.globals[x.text(id)] = reached(Bare, "", x.text(id))
					x.objectAliases(x.text(id), unwrapJS(field(d, "value")))
				}
			}
		}
	}
	for _, c := range named(root) {
		visit(c)
	}
	for _, imp := range x.b.f.Imports {
		switch {
		case imp.Local == "" || imp.Local == "*" || imp.Spec == "":
		case imp.Member == "":
			x.globals[imp.Local] = reached(Package, imp.Local)
		default:
			x.globals[imp.Local] = reached(Bare, "", imp.Local)
		}
	}
}

func (x *jsExtractor) addImport(local, spec, member string, n *grammar.Node) {
	x.b.f.Imports = append(x.b.f.Imports, Import{Local: local, Spec: spec, Member: member, Line: x.line(n)})
}

func (x *jsExtractor) importStatement(n *grammar.Node) {
	spec := unquoteJS(x.text(field(n, "source")))
	bound := false
	for _, c := range named(n) {
		switch c.Type() {
		case "import_clause":
			for _, k := range named(c) {
				switch k.Type() {
				case "identifier":
					x.addImport(x.text(k), spec, "default", k)
					bound = true
				case "namespace_import":
					for _, id := range named(k) {
						x.addImport(x.text(id), spec, "", k)
						bound = true
					}
				case "named_imports":
					for _, s := range named(k) {
						if s.Type() != "import_specifier" {
							continue
						}
						name := x.text(field(s, "name"))
						local := name
						if a := field(s, "alias"); a != nil {
							local = x.text(a)
						}
						x.addImport(local, spec, name, s)
						bound = true
					}
				}
			}
		case "import_require_clause":
			// import x = require("./x")
			if id := named(c); len(id) > 0 && id[0].Type() == "identifier" {
				x.addImport(x.text(id[0]), unquoteJS(x.text(field(c, "source"))), "", c)
				return
			}
		}
	}
	if !bound {
		x.addImport("", spec, "", n)
	}
}

// requireImport records `const x = require("m")`, `const {a, b: c} =
// require("m")` and `const x = require("m").a` as imports.
func (x *jsExtractor) requireImport(d *grammar.Node) bool {
	v := field(d, "value")
	member := ""
	if v != nil && v.Type() == "member_expression" {
		member = x.text(field(v, "property"))
		v = field(v, "object")
	}
	spec, ok := x.requireSpec(v)
	if !ok {
		return false
	}
	id := field(d, "name")
	switch id.Type() {
	case "identifier":
		x.addImport(x.text(id), spec, member, d)
	case "object_pattern":
		if member != "" {
			return true
		}
		for _, p := range named(id) {
			switch p.Type() {
			case "shorthand_property_identifier_pattern":
				x.addImport(x.text(p), spec, x.text(p), p)
			case "pair_pattern":
				if val := field(p, "value"); val != nil && val.Type() == "identifier" {
					x.addImport(x.text(val), spec, x.text(field(p, "key")), p)
				}
			}
		}
	}
	return true
}

// isRequire reports whether declarator d binds a require call.
func (x *jsExtractor) isRequire(d *grammar.Node) bool {
	v := field(d, "value")
	if v != nil && v.Type() == "member_expression" {
		v = field(v, "object")
	}
	_, ok := x.requireSpec(v)
	return ok
}

// requireSpec is the module of a require("m") call.
func (x *jsExtractor) requireSpec(v *grammar.Node) (string, bool) {
	if v == nil || v.Type() != "call_expression" || x.text(field(v, "function")) != "require" {
		return "", false
	}
	args := named(field(v, "arguments"))
	if len(args) != 1 || args[0].Type() != "string" {
		return "", false
	}
	return unquoteJS(x.text(args[0])), true
}

// exportStatement records re-exports and the default export, then walks
// the declaration or value.
func (x *jsExtractor) exportStatement(n *grammar.Node) {
	src := field(n, "source")
	spec := unquoteJS(x.text(src))
	isDefault := false
	for _, c := range n.Children() {
		if !c.IsNamed() && c.Type() == "default" {
			isDefault = true
		}
	}
	for _, c := range named(n) {
		switch c.Type() {
		case "export_clause":
			for _, s := range named(c) {
				if s.Type() != "export_specifier" {
					continue
				}
				name := x.text(field(s, "name"))
				local := name
				if a := field(s, "alias"); a != nil {
					local = x.text(a)
				}
				if src != nil || local != name {
					x.addImport(local, spec, name, s)
				}
			}
		case "namespace_export":
			for _, id := range named(c) {
				x.addImport(x.text(id), spec, "", c)
			}
		}
	}
	if src != nil && field(n, "declaration") == nil && len(named(n)) == 1 {
		x.addImport("*", spec, "", n) // export * from "m"
	}
	if d := field(n, "declaration"); d != nil {
		if isDefault {
			if name := x.text(field(d, "name")); name != "" {
				x.addImport("default", "", name, d)
			}
		}
		x.statement(d)
	}
	if v := field(n, "value"); v != nil {
		if isDefault && v.Type() == "identifier" {
			x.addImport("default", "", x.text(v), v)
		}
		if isDefault && (v.Type() == "class" || v.Type() == "function_expression") && field(v, "name") != nil {
			x.addImport("default", "", x.text(field(v, "name")), v)
		}
		x.expr(v)
	}
}

func unquoteJS(s string) string { return strings.Trim(s, "\"'`") }

// statements walks the statements of a program, block or namespace body.
func (x *jsExtractor) statements(n *grammar.Node) {
	x.hoist(n)
	kids := named(n)
	x.overloads(kids)
	for _, c := range kids {
		x.statement(c)
	}
}

// overloads marks in x.overloaded the function signatures of a block
// (its statements, kids), exported or not, that an implementation of the
// same name follows, found in one pass from the end: a look ahead from
// every signature was quadratic in a file of them.
func (x *jsExtractor) overloads(kids []*grammar.Node) {
	var impl map[string]bool
	for i := len(kids) - 1; i >= 0; i-- {
		d := kids[i]
		if d.Type() == "export_statement" {
			d = field(d, "declaration")
		}
		switch {
		case d == nil:
		case d.Type() == "function_declaration" || d.Type() == "generator_function_declaration":
			if impl == nil {
				impl = map[string]bool{}
			}
			impl[x.text(field(d, "name"))] = true
		case d.Type() == "function_signature" && impl[x.text(field(d, "name"))]:
			if x.overloaded == nil {
				x.overloaded = map[uint32]bool{}
			}
			x.overloaded[d.StartByte()] = true
		}
	}
}

// hoist declares, at the start of a block inside a function, the names
// its declarations bind, so a call made before one is a local's.
func (x *jsExtractor) hoist(n *grammar.Node) {
	if x.sc == nil {
		return
	}
	for _, c := range named(n) {
		switch c.Type() {
		case "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration":
			x.sc.set(x.text(field(c, "name")), Val{})
		case "lexical_declaration", "variable_declaration":
			for _, d := range named(c) {
				if d.Type() == "variable_declarator" {
					x.bindPattern(field(d, "name"))
				}
			}
		}
	}
}

// statement walks one statement.
func (x *jsExtractor) statement(n *grammar.Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "import_statement", "comment":
		// Imports were read with the globals.
	case "export_statement":
		x.exportStatement(n)
	case "ambient_declaration":
		for _, c := range named(n) {
			x.statement(c)
		}
	case "expression_statement":
		for _, c := range named(n) {
			if c.Type() == "internal_module" {
				x.namespace(c)
			} else {
				x.expr(c)
			}
		}
	case "internal_module", "module":
		x.namespace(n)
	case "function_declaration", "generator_function_declaration":
		x.functionDecl(n)
	case "function_signature":
		x.functionSignature(n)
	case "class_declaration", "abstract_class_declaration":
		x.class(n, x.text(field(n, "name")))
	case "lexical_declaration", "variable_declaration":
		x.varDecl(n)
	case "interface_declaration":
		x.iface(n)
	case "type_alias_declaration":
		x.typeAlias(n)
	case "enum_declaration":
		x.enum(n)
	case "statement_block":
		x.block(n)
	default:
		x.expr(n)
	}
}

// block walks a block with a scope of its own.
func (x *jsExtractor) block(n *grammar.Node) {
	if x.sc == nil {
		x.statements(n)
		return
	}
	saved := x.sc
	x.sc = x.sc.push()
	x.statements(n)
	x.sc = saved
}

// atDefScope reports whether a declaration here is a definition.
func (x *jsExtractor) atDefScope() bool { return x.fnDepth == 0 }

func (x *jsExtractor) namespace(n *grammar.Node) {
	name := x.text(field(n, "name"))
	body := field(n, "body")
	if n.Type() == "module" || !x.atDefScope() || strings.ContainsAny(name, `"'`) {
		// declare module "x" { ... }: ambient declarations of another module.
		if body != nil && x.atDefScope() {
			saved := x.ns
			x.statements(body)
			x.ns = saved
		}
		return
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	i := x.b.def(Def{Name: name, Kind: "namespace", Container: x.ns, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(field(n, "name").StartByte())})
	x.b.enter(i)
	saved := x.ns
	x.ns = name
	if body != nil {
		x.statements(body)
	}
	x.ns = saved
	x.b.leave()
}

func (x *jsExtractor) functionDecl(n *grammar.Node) {
	id := field(n, "name")
	if !x.atDefScope() {
		if x.sc != nil {
			x.sc.set(x.text(id), Val{})
		}
		x.function(n, Val{})
		return
	}
	i := x.b.def(Def{Name: x.text(id), Kind: "function", Container: x.ns, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(id.StartByte()), Type: x.resultType(n)})
	x.b.enter(i)
	x.function(n, Val{})
	x.b.leave()
}

// functionSignature is an overload or an ambient declaration: a
// definition only when no implementation follows in the same block.
func (x *jsExtractor) functionSignature(n *grammar.Node) {
	id := field(n, "name")
	if !x.atDefScope() || id == nil {
		return
	}
	name := x.text(id)
	if x.overloaded[n.StartByte()] {
		return
	}
	x.b.def(Def{Name: name, Kind: "function", Container: x.ns, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(id.StartByte()), Type: x.resultType(n)})
}

// varDecl walks const/let/var: at the top level each name is a
// definition (a function when bound to one, an object when bound to an
// object literal, whose members are definitions too).
func (x *jsExtractor) varDecl(n *grammar.Node) {
	kind := "var"
	if n.Type() == "lexical_declaration" && n.ChildCount() > 0 && n.Child(0).Type() == "const" {
		kind = "const"
	}
	for _, d := range named(n) {
		if d.Type() != "variable_declarator" {
			continue
		}
		id, value := field(d, "name"), field(d, "value")
		if x.sc == nil && x.isRequire(d) {
			continue // read with the globals
		}
		v := x.declVal(d)
		if !x.atDefScope() || id.Type() != "identifier" {
			if x.sc != nil {
				x.bindPattern(id)
				if id.Type() == "identifier" {
					x.sc.set(x.text(id), v)
				}
			}
			if value != nil {
				x.expr(value)
			}
			continue
		}
		name := x.text(id)
		if x.sc == nil && v.Known() {
			x.globals[name] = v
		} else if x.sc != nil {
			x.sc.set(name, v)
		}
		inner := unwrapJS(value)
		def := Def{Name: name, Kind: kind, Container: x.ns, Start: int(d.StartByte()), End: int(d.EndByte()),
			NameStart: int(id.StartByte())}
		if v.Via == Type && len(v.Chain) == 0 {
			def.Type = v.Qual
		}
		switch {
		case inner == nil:
		case isFunctionNode(inner):
			def.Kind, def.Type = "function", x.resultType(inner)
		case inner.Type() == "object":
			def.Kind = "object"
		case inner.Type() == "class":
			x.class(inner, name)
			continue
		}
		i := x.b.def(def)
		x.b.enter(i)
		switch {
		case inner == nil:
		case isFunctionNode(inner):
			x.function(inner, Val{})
		case inner.Type() == "object":
			x.object(inner, name)
		default:
			x.expr(value)
		}
		x.b.leave()
	}
}

// object walks an object literal bound to the top-level name container:
// its methods and function properties are definitions.
func (x *jsExtractor) object(n *grammar.Node, container string) {
	for _, m := range named(n) {
		switch m.Type() {
		case "method_definition":
			x.member(m, field(m, "name"), container, "method", m, self())
		case "pair":
			key, value := field(m, "key"), unwrapJS(field(m, "value"))
			if key != nil && key.Type() == "property_identifier" && value != nil && isFunctionNode(value) {
				this := self()
				if value.Type() == "arrow_function" {
					this = x.thisVal()
				}
				x.member(m, key, container, "method", value, this)
				continue
			}
			x.expr(field(m, "value"))
		default:
			x.expr(m)
		}
	}
}

// member adds a method-like definition named by id in container and walks
// fn (a function node, or a method definition) with `this` as given.
func (x *jsExtractor) member(n, id *grammar.Node, container, kind string, fn *grammar.Node, this Val) {
	if id == nil {
		x.expr(fn)
		return
	}
	i := x.b.def(Def{Name: x.text(id), Kind: kind, Container: container, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(id.StartByte()), Type: x.resultType(fn)})
	x.b.enter(i)
	x.function(fn, this)
	x.b.leave()
}

func isFunctionNode(n *grammar.Node) bool {
	switch n.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// unwrapJS strips parentheses, type assertions and `satisfies` around an
// expression.
func unwrapJS(n *grammar.Node) *grammar.Node {
	for n != nil {
		switch n.Type() {
		case "parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression", "type_assertion":
			k := named(n)
			if len(k) == 0 {
				return n
			}
			if n.Type() == "type_assertion" {
				n = k[len(k)-1]
			} else {
				n = k[0]
			}
		default:
			return n
		}
	}
	return nil
}

// function walks a function-like node (declaration, expression, arrow,
// method definition): its parameters and body, in a scope of its own.
// this is the value of `this` inside, when the function binds it.
func (x *jsExtractor) function(n *grammar.Node, this Val) {
	if n.Type() == "arrow_function" {
		this = x.thisVal()
	}
	savedSc := x.sc
	if x.sc == nil {
		x.sc = newScope()
	} else {
		x.sc = x.sc.push()
	}
	x.pushTypeParams(n)
	x.this = append(x.this, this)
	x.fnDepth++
	if name := field(n, "name"); name != nil && n.Type() == "function_expression" {
		x.sc.set(x.text(name), Val{}) // a named function expression sees itself
	}
	x.params(field(n, "parameters"))
	if p := field(n, "parameter"); p != nil { // x => ...
		x.sc.set(x.text(p), Val{})
	}
	if body := field(n, "body"); body != nil {
		if body.Type() == "statement_block" {
			x.statements(body)
		} else {
			x.expr(body)
		}
	}
	x.fnDepth--
	x.this = x.this[:len(x.this)-1]
	x.tparams = x.tparams[:len(x.tparams)-1]
	x.sc = savedSc
}

// thisVal is the value of `this` where the walk is.
func (x *jsExtractor) thisVal() Val {
	if len(x.this) == 0 {
		return Val{}
	}
	return x.this[len(x.this)-1]
}

// params declares a function's parameters with their declared types and
// walks default values.
func (x *jsExtractor) params(n *grammar.Node) {
	for _, p := range named(n) {
		switch p.Type() {
		case "required_parameter", "optional_parameter":
			pat := field(p, "pattern")
			if pat != nil && pat.Type() == "identifier" {
				x.sc.set(x.text(pat), typed(x.typeName(field(p, "type"))))
			} else {
				x.bindPattern(pat)
			}
			x.expr(field(p, "value"))
		case "assignment_pattern":
			x.bindPattern(field(p, "left"))
			x.expr(field(p, "right"))
		default:
			x.bindPattern(p)
		}
	}
}

// bindPattern declares every name a binding pattern binds, types unknown.
func (x *jsExtractor) bindPattern(n *grammar.Node) {
	if n == nil || x.sc == nil {
		return
	}
	switch n.Type() {
	case "identifier", "shorthand_property_identifier_pattern":
		x.sc.set(x.text(n), Val{})
	case "object_pattern", "array_pattern", "rest_pattern", "pair_pattern", "assignment_pattern",
		"object_assignment_pattern":
		for _, c := range named(n) {
			if n.Type() == "pair_pattern" && c == field(n, "key") {
				continue
			}
			if (n.Type() == "assignment_pattern" || n.Type() == "object_assignment_pattern") && c == field(n, "right") {
				x.expr(c)
				continue
			}
			x.bindPattern(c)
		}
	}
}

// objectAliases records the members of the object literal obj, bound to
// the top-level name, that only name another value ({ get, post: send }):
// a call of api.get is a call of get.
func (x *jsExtractor) objectAliases(name string, obj *grammar.Node) {
	if obj == nil || obj.Type() != "object" {
		return
	}
	m := map[string]string{}
	for _, p := range named(obj) {
		switch p.Type() {
		case "shorthand_property_identifier":
			m[x.text(p)] = x.text(p)
		case "pair":
			if k, v := field(p, "key"), field(p, "value"); k != nil && k.Type() == "property_identifier" && v != nil && v.Type() == "identifier" {
				m[x.text(k)] = x.text(v)
			}
		}
	}
	if len(m) > 0 {
		x.aliases[name] = m
	}
}
