package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// C#: the namespace is File.Package; `using A.B;` is a wildcard import of
// the namespace (Local "*"), `using X = A.B.C;` binds X, `using static
// A.B.C;` a wildcard of the class. Definitions are classes, structs,
// interfaces, enums and records (Bases: the base list), methods and
// constructors (named as their class), fields and properties (const for
// const fields), enum members and record parameters.
//
// C# writes types and members alike in capitals, so a receiver that is no
// local is a member of the enclosing class when the file declares one of
// that name (Via Self), otherwise a type or a global reached by name (Via
// Bare, Chain [name]: Order.Create()). An unqualified call is Via Self;
// this. is Self, base. Super; a local, parameter, field or property whose
// declared type the file shows (var x = new T(), T x = ...) is Via Type.

func init() { register(lang.CSharp, parseCSharp) }

type csX struct {
	*builder
	vals  vals
	sc    *scope
	class string
	anon  bool
	// members are the member names each class of the file declares,
	// "Class.Name".
	members map[string]bool
}

func parseCSharp(src []byte) (*File, error) {
	tree, err := parse(lang.CSharp, src)
	if err != nil {
		return nil, err
	}
	x := &csX{builder: newBuilder(src), sc: newScope(), members: map[string]bool{}, vals: vals{}}
	root := tree.Root()
	x.scanMembers(root, "")
	x.walk(root)
	return x.done(), nil
}

func (x *csX) text(n *grammar.Node) string { return text(n, x.src) }

var csClassKinds = map[string]string{"class_declaration": "class", "struct_declaration": "struct",
	"interface_declaration": "interface", "enum_declaration": "enum", "record_declaration": "record",
	"record_struct_declaration": "record"}

// scanMembers records the member names of the file's classes.
func (x *csX) scanMembers(n *grammar.Node, class string) {
	walk(n, func(c *grammar.Node) bool {
		switch t := c.Type(); {
		case csClassKinds[t] != "":
			if same(c, n) {
				return true
			}
			x.scanMembers(c, x.text(field(c, "name")))
			return false
		case t == "method_declaration" || t == "property_declaration" || t == "event_declaration":
			x.members[class+"."+x.text(field(c, "name"))] = true
			return false
		case t == "variable_declarator" && class != "":
			if p := c.Parent(); p != nil && p.Parent() != nil && strings.HasSuffix(p.Parent().Type(), "field_declaration") {
				x.members[class+"."+x.text(field(c, "name"))] = true
			}
		case t == "block" || t == "arrow_expression_clause":
			return false
		}
		return true
	})
}

func (x *csX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch t := n.Type(); t {
	case "comment", "string_literal", "verbatim_string_literal", "raw_string_literal", "character_literal":
		return
	case "using_directive":
		x.using(n)
	case "namespace_declaration", "file_scoped_namespace_declaration":
		x.f.Package = x.text(field(n, "name"))
		x.walk(field(n, "body"))
	case "class_declaration", "struct_declaration", "interface_declaration", "enum_declaration",
		"record_declaration", "record_struct_declaration":
		x.classDecl(n, csClassKinds[t])
	case "method_declaration", "constructor_declaration", "destructor_declaration", "operator_declaration",
		"conversion_operator_declaration":
		x.method(n)
	case "local_function_statement":
		if name := field(n, "name"); name != nil {
			x.sc.set(x.text(name), Val{})
		}
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			if !same(c, field(n, "name")) {
				x.walk(c)
			}
		}
		x.sc = up
	case "field_declaration", "event_field_declaration":
		x.fieldDecl(n)
	case "property_declaration":
		typ := field(n, "type")
		x.typeRef(typ, false)
		if name := field(n, "name"); name != nil && !x.anon {
			d := nodeDef(n, name, x.src, "field", x.class)
			d.Type = x.baseType(typ)
			x.def(d)
		}
		x.walk(field(n, "accessors"))
		x.walk(field(n, "value"))
		x.walk(childOfType(n, "arrow_expression_clause"))
	case "enum_member_declaration":
		if name := field(n, "name"); name != nil && !x.anon {
			d := nodeDef(n, name, x.src, "const", x.class)
			d.Type = x.class
			x.def(d)
		}
		x.walk(field(n, "value"))
	case "variable_declaration":
		typ := field(n, "type")
		x.typeRef(typ, false)
		for _, d := range childrenOfType(n, "variable_declarator") {
			init := x.initOf(d)
			x.walk(init)
			if name := field(d, "name"); name != nil {
				x.sc.set(x.text(name), x.declared(typ, init))
			}
		}
	case "parameter":
		typ := field(n, "type")
		x.typeRef(typ, false)
		for _, c := range childrenOfType(n, "equals_value_clause", "attribute_list") {
			x.walk(c)
		}
		if name := field(n, "name"); name != nil {
			x.sc.set(x.text(name), typed(x.baseType(typ)))
		}
	case "foreach_statement":
		typ := field(n, "type")
		x.typeRef(typ, false)
		x.walk(field(n, "right"))
		up := x.sc
		x.sc = up.push()
		for _, id := range identifiers(field(n, "left")) {
			x.sc.set(x.text(id), typed(x.baseType(typ)))
		}
		x.walk(field(n, "body"))
		x.sc = up
	case "catch_declaration":
		typ := field(n, "type")
		x.typeRef(typ, false)
		if name := field(n, "name"); name != nil {
			x.sc.set(x.text(name), typed(x.baseType(typ)))
		}
	case "declaration_pattern": // x is Foo f
		typ := field(n, "type")
		x.typeRef(typ, false)
		names := field(n, "designation")
		if names == nil {
			names = field(n, "name")
		}
		for _, id := range identifiers(names) {
			x.sc.set(x.text(id), typed(x.baseType(typ)))
		}
	case "lambda_expression", "anonymous_method_expression":
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			switch c.Type() {
			case "implicit_parameter", "identifier":
				if !same(c, field(n, "body")) {
					x.sc.set(x.text(c), Val{})
					continue
				}
			}
			x.walk(c)
		}
		x.sc = up
	case "block":
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			x.walk(c)
		}
		x.sc = up
	case "invocation_expression":
		x.invocation(n)
	case "constructor_initializer":
		via := Self
		if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(x.text(n), ":")), "base") {
			via = Super
		}
		start := int(n.StartByte())
		if i := strings.IndexAny(x.text(n), "bt"); i >= 0 {
			start += i // at base or this
		}
		if name := x.ctorName(via); name != "" {
			x.ref(Ref{Name: name, Start: start, Call: true, Via: via})
		}
		for _, c := range named(n) {
			x.walk(c)
		}
	case "member_access_expression":
		obj, name := field(n, "expression"), field(n, "name")
		x.walk(obj)
		if name != nil {
			x.member(x.text(csSimple(name, x.src)), int(name.StartByte()), false, x.value(obj))
		}
	case "conditional_access_expression":
		cond := field(n, "condition")
		x.walk(cond)
		for _, c := range named(n) {
			if same(c, cond) {
				continue
			}
			if c.Type() == "member_binding_expression" {
				if name := field(c, "name"); name != nil {
					x.member(x.text(csSimple(name, x.src)), int(name.StartByte()), false, x.value(cond))
				}
				continue
			}
			x.walk(c)
		}
	case "object_creation_expression":
		x.typeRef(field(n, "type"), true)
		x.walk(field(n, "arguments"))
		x.walk(field(n, "initializer"))
	case "identifier":
		x.mention(n)
	case "generic_name", "qualified_name", "nullable_type", "array_type", "predefined_type":
		x.typeRef(n, false)
	case "attribute":
		x.typeRef(field(n, "name"), false)
		for _, c := range named(n) {
			if !same(c, field(n, "name")) {
				x.walk(c)
			}
		}
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

// csSimple is the identifier of a simple or generic name.
func csSimple(n *grammar.Node, src []byte) *grammar.Node {
	if n.Type() == "generic_name" {
		if id := childOfType(n, "identifier"); id != nil {
			return id
		}
	}
	return n
}

func (x *csX) using(n *grammar.Node) {
	target := childOfType(n, "qualified_name", "identifier", "alias_qualified_name")
	alias := field(n, "name")
	if alias != nil {
		for _, c := range named(n) {
			if !same(c, alias) && (c.Type() == "qualified_name" || c.Type() == "identifier" || c.Type() == "generic_name") {
				target = c
			}
		}
	}
	if target == nil {
		return
	}
	spec := x.text(target)
	line := int(n.StartPoint().Row) + 1
	if alias != nil {
		x.f.Imports = append(x.f.Imports, Import{Local: x.text(alias), Spec: spec, Line: line})
		return
	}
	x.f.Imports = append(x.f.Imports, Import{Local: "*", Spec: spec, Line: line})
}

// baseType is a type as written without type arguments, nullability or
// array brackets; "" for a predefined type or var.
func (x *csX) baseType(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "identifier", "qualified_name":
		if s := x.text(n); s != "var" && s != "dynamic" {
			return s
		}
	case "generic_name":
		return x.text(childOfType(n, "identifier"))
	case "nullable_type", "array_type", "pointer_type", "ref_type":
		if c := named(n); len(c) > 0 {
			return x.baseType(c[0])
		}
	}
	return ""
}

func (x *csX) declared(typ, init *grammar.Node) Val {
	if t := x.baseType(typ); t != "" {
		return typed(t)
	}
	return x.value(init)
}

// initOf is the initialiser of a variable declarator.
func (x *csX) initOf(d *grammar.Node) *grammar.Node {
	if v := childOfType(d, "equals_value_clause"); v != nil {
		if c := named(v); len(c) > 0 {
			return c[0]
		}
	}
	kids := named(d)
	if len(kids) > 1 && !same(kids[len(kids)-1], field(d, "name")) {
		return kids[len(kids)-1]
	}
	return nil
}

func (x *csX) classDecl(n *grammar.Node, kind string) {
	name := field(n, "name")
	if name == nil {
		return
	}
	d := nodeDef(n, name, x.src, kind, x.class)
	bases := childOfType(n, "base_list")
	for _, b := range named(bases) {
		if t := x.baseType(b); t != "" {
			d.Bases = append(d.Bases, t)
		}
		x.typeRef(b, false)
	}
	for _, c := range childrenOfType(n, "attribute_list") {
		x.walk(c)
	}
	if !x.anon {
		x.enter(x.def(d))
		defer x.leave()
	}
	outer := x.class
	x.class = d.Name
	defer func() { x.class = outer }()
	up := x.sc
	x.sc = newScope()
	defer func() { x.sc = up }()
	if kind == "record" {
		for _, p := range childrenOfType(childOfType(n, "parameter_list"), "parameter") {
			if pn := field(p, "name"); pn != nil {
				f := nodeDef(p, pn, x.src, "field", d.Name)
				f.Type = x.baseType(field(p, "type"))
				x.def(f)
				x.members[d.Name+"."+f.Name] = true
			}
			x.typeRef(field(p, "type"), false)
		}
	}
	x.walk(field(n, "body"))
}

func (x *csX) method(n *grammar.Node) {
	name := field(n, "name")
	if name != nil && !x.anon && name.Type() == "identifier" {
		d := nodeDef(n, name, x.src, "method", x.class)
		d.Type = x.baseType(field(n, "returns"))
		x.enter(x.def(d))
		defer x.leave()
	}
	x.typeRef(field(n, "returns"), false)
	up := x.sc
	x.sc = up.push()
	defer func() { x.sc = up }()
	for _, c := range named(n) {
		if same(c, name) || same(c, field(n, "returns")) {
			continue
		}
		x.walk(c)
	}
}

func (x *csX) fieldDecl(n *grammar.Node) {
	kind := "field"
	for _, m := range childrenOfType(n, "modifier") {
		if x.text(m) == "const" {
			kind = "const"
		}
	}
	for _, c := range childrenOfType(n, "attribute_list") {
		x.walk(c)
	}
	v := childOfType(n, "variable_declaration")
	if v == nil {
		return
	}
	typ := field(v, "type")
	x.typeRef(typ, false)
	decls := childrenOfType(v, "variable_declarator")
	for _, d := range decls {
		if name := field(d, "name"); name != nil && !x.anon {
			span := n
			if len(decls) > 1 {
				span = d
			}
			f := nodeDef(span, name, x.src, kind, x.class)
			f.Type = x.baseType(typ)
			x.def(f)
		}
		x.walk(x.initOf(d))
	}
}

// ctorName is the constructor this(...) or base(...) calls.
func (x *csX) ctorName(via Via) string {
	if via == Self {
		return x.class
	}
	for i := len(x.f.Defs) - 1; i >= 0; i-- {
		if d := x.f.Defs[i]; d.Name == x.class && typeKinds(d.Kind) && len(d.Bases) > 0 {
			return lastPart(d.Bases[0], ".")
		}
	}
	return ""
}

func (x *csX) invocation(n *grammar.Node) {
	fn := field(n, "function")
	switch {
	case fn == nil:
	case fn.Type() == "identifier" || fn.Type() == "generic_name":
		id := csSimple(fn, x.src)
		if _, ok := x.sc.lookup(x.text(id)); !ok {
			x.ref(nameRef(id, x.src, true, Self, ""))
		}
		if fn.Type() == "generic_name" {
			x.walk(childOfType(fn, "type_argument_list"))
		}
	case fn.Type() == "member_access_expression":
		obj, name := field(fn, "expression"), field(fn, "name")
		x.walk(obj)
		if name != nil {
			id := csSimple(name, x.src)
			x.member(x.text(id), int(id.StartByte()), true, x.value(obj))
			if name.Type() == "generic_name" {
				x.walk(childOfType(name, "type_argument_list"))
			}
		}
	case fn.Type() == "conditional_access_expression":
		cond := field(fn, "condition")
		x.walk(cond)
		if b := childOfType(fn, "member_binding_expression"); b != nil {
			if name := field(b, "name"); name != nil {
				id := csSimple(name, x.src)
				x.member(x.text(id), int(id.StartByte()), true, x.value(cond))
			}
		}
	default:
		x.walk(fn)
	}
	x.walk(field(n, "arguments"))
}

// mention refers to a name read in an expression: a member of the
// enclosing class the file declares, or a type or global by name.
func (x *csX) mention(n *grammar.Node) {
	name := x.text(n)
	if _, ok := x.sc.lookup(name); ok {
		return
	}
	if p := n.Parent(); p != nil {
		switch p.Type() {
		case "name_equals", "name_colon", "labeled_statement", "goto_statement", "assignment_expression":
			if p.Type() != "assignment_expression" {
				return
			}
		}
	}
	if x.members[x.class+"."+name] {
		x.ref(nameRef(n, x.src, false, Self, ""))
		return
	}
	x.ref(nameRef(n, x.src, false, Bare, ""))
}

// typeRef refers to the type a type node names (Call for `new`).
func (x *csX) typeRef(n *grammar.Node, call bool) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "identifier":
		if s := x.text(n); s != "var" && s != "dynamic" {
			x.ref(nameRef(n, x.src, call, Bare, ""))
		}
	case "qualified_name":
		qual, last := splitQualified(x.text(n), ".")
		x.ref(Ref{Name: last, Start: int(n.EndByte()) - len(last), Call: call, Via: Type, Qual: qual})
	case "generic_name":
		x.typeRef(childOfType(n, "identifier"), call)
		for _, a := range named(childOfType(n, "type_argument_list")) {
			x.typeRef(a, false)
		}
	case "nullable_type", "array_type", "pointer_type", "ref_type", "tuple_type", "tuple_element":
		for _, c := range named(n) {
			x.typeRef(c, call)
		}
	case "predefined_type", "implicit_type":
	default:
		x.walk(n)
	}
}

// value is what the syntax shows of the type of expression n.
func (x *csX) value(n *grammar.Node) Val { return x.vals.of(n, x.valueOf) }

func (x *csX) valueOf(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "this_expression", "this":
		return self()
	case "base_expression", "base":
		return reached(Super, "")
	case "identifier":
		name := x.text(n)
		if v, ok := x.sc.lookup(name); ok {
			return v
		}
		if x.members[x.class+"."+name] {
			return self().Then(name)
		}
		return reached(Bare, "", name)
	case "member_access_expression":
		if name := field(n, "name"); name != nil {
			return x.value(field(n, "expression")).Then(x.text(csSimple(name, x.src)))
		}
	case "invocation_expression":
		fn := field(n, "function")
		if fn != nil && (fn.Type() == "identifier" || fn.Type() == "generic_name") {
			id := x.text(csSimple(fn, x.src))
			if _, ok := x.sc.lookup(id); ok {
				return Val{}
			}
			return self().Then(id)
		}
		return x.value(fn)
	case "object_creation_expression":
		return typed(x.baseType(field(n, "type")))
	case "cast_expression":
		return typed(x.baseType(field(n, "type")))
	case "parenthesized_expression", "await_expression":
		if kids := named(n); len(kids) == 1 {
			return x.value(kids[0])
		}
	}
	return Val{}
}
