package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"
)

// Classes, interfaces, type aliases and enums of JavaScript and
// TypeScript, and the type names their annotations show.

// class walks a class declaration or expression named name ("" for an
// anonymous one). Outside a function body it and its members are
// definitions; `this` in its members is the class (Via Self).
func (x *jsExtractor) class(n *grammar.Node, name string) {
	isDef := x.atDefScope() && name != ""
	this := Val{}
	if isDef {
		id, start := field(n, "name"), n
		if id == nil {
			id = n // const X = class {...}: the name is the variable's
			if p := n.Parent(); p != nil && p.Type() == "variable_declarator" {
				id, start = field(p, "name"), p
			}
		}
		i := x.b.def(Def{Name: name, Kind: "class", Container: x.ns, Start: int(start.StartByte()), End: int(n.EndByte()),
			NameStart: int(id.StartByte()), Bases: x.heritage(n)})
		x.b.enter(i)
		defer x.b.leave()
		this = self()
		saved := x.cls
		x.cls = name
		defer func() { x.cls = saved }()
	} else if x.sc != nil && name != "" && n.Type() != "class" {
		x.sc.set(name, Val{})
	}
	x.pushTypeParams(n)
	defer func() { x.tparams = x.tparams[:len(x.tparams)-1] }()
	x.this = append(x.this, this)
	defer func() { x.this = x.this[:len(x.this)-1] }()
	for _, c := range named(n) {
		if c.Type() == "class_heritage" {
			x.heritageExprs(c)
		}
	}
	body := field(n, "body")
	var decorators []*grammar.Node
	for _, m := range named(body) {
		if m.Type() == "decorator" {
			decorators = append(decorators, m)
			continue
		}
		x.classMember(m, name, isDef, this, decorators)
		decorators = nil
	}
	for _, d := range decorators {
		x.expr(d)
	}
}

// classMember walks one member of a class body; decorators are those
// written before it, walked inside it.
func (x *jsExtractor) classMember(m *grammar.Node, class string, isDef bool, this Val, decorators []*grammar.Node) {
	enter := func(d Def) func() {
		if !isDef {
			return func() {}
		}
		x.b.enter(x.b.def(d))
		return x.b.leave
	}
	id := field(m, "name")
	if id == nil {
		id = field(m, "property") // JavaScript's field_definition
	}
	base := Def{Name: x.text(id), Container: class, Start: int(m.StartByte()), End: int(m.EndByte())}
	if id != nil {
		base.NameStart = int(id.StartByte())
	}
	nameOK := id != nil && (id.Type() == "property_identifier" || id.Type() == "private_property_identifier")
	switch m.Type() {
	case "method_definition":
		if !nameOK {
			x.walkAll(decorators)
			x.expr(id)
			x.function(m, this)
			return
		}
		if base.Name == "constructor" && isDef {
			x.parameterProperties(m, class)
		}
		base.Kind, base.Type = "method", x.resultType(m)
		leave := enter(base)
		x.walkAll(decorators)
		x.function(m, this)
		leave()
	case "method_signature", "abstract_method_signature":
		// An overload (the implementation is the definition) or an
		// abstract method.
		if !nameOK || !isDef || x.implemented(m, base.Name) {
			return
		}
		base.Kind, base.Type = "method", x.resultType(m)
		x.b.def(base)
	case "public_field_definition", "field_definition":
		value := field(m, "value")
		inner := unwrapJS(value)
		if !nameOK {
			x.walkAll(decorators)
			x.expr(id)
			x.expr(value)
			return
		}
		if inner != nil && isFunctionNode(inner) {
			// fetch = (req) => ..., text: TextRespond = (...) => ...
			base.Kind, base.Type = "method", x.resultType(inner)
			leave := enter(base)
			x.walkAll(decorators)
			x.function(inner, this)
			leave()
			return
		}
		base.Kind = "field"
		base.Type = x.typeName(field(m, "type"))
		if v := x.val(value); base.Type == "" && v.Via == Type && len(v.Chain) == 0 && v.Known() {
			base.Type = v.Qual
		}
		leave := enter(base)
		x.walkAll(decorators)
		x.expr(value)
		leave()
	case "class_static_block":
		x.walkAll(decorators)
		x.this = append(x.this, this)
		x.block(field(m, "body"))
		x.this = x.this[:len(x.this)-1]
	default:
		x.walkAll(decorators)
	}
}

func (x *jsExtractor) walkAll(ns []*grammar.Node) {
	for _, n := range ns {
		x.expr(n)
	}
}

// implemented reports whether a class body defines method name with a body.
func (x *jsExtractor) implemented(m *grammar.Node, name string) bool {
	for _, s := range named(m.Parent()) {
		if s.Type() == "method_definition" && x.text(field(s, "name")) == name {
			return true
		}
	}
	return false
}

// parameterProperties adds the fields a constructor declares with its
// parameters: constructor(private repo: Repo).
func (x *jsExtractor) parameterProperties(ctor *grammar.Node, class string) {
	for _, p := range named(field(ctor, "parameters")) {
		if p.Type() != "required_parameter" && p.Type() != "optional_parameter" {
			continue
		}
		prop := false
		for _, c := range named(p) {
			if c.Type() == "accessibility_modifier" || c.Type() == "override_modifier" {
				prop = true
			}
		}
		for _, c := range p.Children() {
			if c.Type() == "readonly" {
				prop = true
			}
		}
		pat := field(p, "pattern")
		if !prop || pat == nil || pat.Type() != "identifier" {
			continue
		}
		x.b.def(Def{Name: x.text(pat), Kind: "field", Container: class, Start: int(p.StartByte()), End: int(p.EndByte()),
			NameStart: int(pat.StartByte()), Type: x.typeName(field(p, "type"))})
	}
}

// heritage lists the types a class extends and implements, as written.
func (x *jsExtractor) heritage(n *grammar.Node) []string {
	var out []string
	add := func(t *grammar.Node) {
		if s := x.typeName(t); s != "" {
			out = append(out, s)
		}
	}
	for _, c := range named(n) {
		if c.Type() != "class_heritage" {
			continue
		}
		for _, h := range named(c) {
			switch h.Type() {
			case "extends_clause":
				add(field(h, "value"))
			case "implements_clause":
				for _, t := range named(h) {
					add(t)
				}
			default: // JavaScript: class_heritage holds the expression
				add(h)
			}
		}
	}
	return out
}

// heritageExprs walks the expressions of an extends clause (a mixin call).
func (x *jsExtractor) heritageExprs(c *grammar.Node) {
	for _, h := range named(c) {
		switch h.Type() {
		case "extends_clause":
			x.expr(field(h, "value"))
		case "implements_clause":
		default:
			x.expr(h)
		}
	}
}

// iface adds an interface and its method and property signatures.
func (x *jsExtractor) iface(n *grammar.Node) {
	id := field(n, "name")
	if !x.atDefScope() || id == nil {
		return
	}
	name := x.text(id)
	var bases []string
	for _, c := range named(n) {
		if c.Type() == "extends_type_clause" || c.Type() == "extends_clause" {
			for _, t := range named(c) {
				if s := x.typeName(t); s != "" {
					bases = append(bases, s)
				}
			}
		}
	}
	i := x.b.def(Def{Name: name, Kind: "interface", Container: x.ns, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(id.StartByte()), Bases: bases})
	x.b.enter(i)
	x.pushTypeParams(n)
	x.typeMembers(field(n, "body"), name)
	x.tparams = x.tparams[:len(x.tparams)-1]
	x.b.leave()
}

// typeMembers adds the method and property signatures of an interface
// body or object type as members of container.
func (x *jsExtractor) typeMembers(body *grammar.Node, container string) {
	for _, m := range named(body) {
		id := field(m, "name")
		if id == nil || (id.Type() != "property_identifier" && id.Type() != "private_property_identifier") {
			continue
		}
		d := Def{Name: x.text(id), Container: container, Start: int(m.StartByte()), End: int(m.EndByte()), NameStart: int(id.StartByte())}
		switch m.Type() {
		case "method_signature":
			d.Kind, d.Type = "method", x.resultType(m)
		case "property_signature":
			d.Kind, d.Type = "field", x.typeName(field(m, "type"))
		default:
			continue
		}
		x.b.def(d)
	}
}

// typeAlias adds a type alias; an object type's members are its members,
// the types it names or intersects are its Bases.
func (x *jsExtractor) typeAlias(n *grammar.Node) {
	id := field(n, "name")
	if !x.atDefScope() || id == nil {
		return
	}
	name := x.text(id)
	x.pushTypeParams(n)
	defer func() { x.tparams = x.tparams[:len(x.tparams)-1] }()
	value := field(n, "value")
	var bases []string
	var objects []*grammar.Node
	parts := []*grammar.Node{value}
	if value != nil && value.Type() == "intersection_type" {
		parts = named(value)
	}
	for _, p := range parts {
		if p == nil {
			continue
		}
		if p.Type() == "object_type" {
			objects = append(objects, p)
		} else if s := x.typeName(p); s != "" {
			bases = append(bases, s)
		}
	}
	i := x.b.def(Def{Name: name, Kind: "type", Container: x.ns, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(id.StartByte()), Bases: bases})
	x.b.enter(i)
	for _, o := range objects {
		x.typeMembers(o, name)
	}
	x.b.leave()
}

// enum adds an enum and its members (kind const).
func (x *jsExtractor) enum(n *grammar.Node) {
	id := field(n, "name")
	if id == nil {
		return
	}
	if !x.atDefScope() {
		if x.sc != nil {
			x.sc.set(x.text(id), Val{})
		}
		return
	}
	name := x.text(id)
	i := x.b.def(Def{Name: name, Kind: "enum", Container: x.ns, Start: int(n.StartByte()), End: int(n.EndByte()), NameStart: int(id.StartByte())})
	x.b.enter(i)
	for _, m := range named(field(n, "body")) {
		mid, value := m, (*grammar.Node)(nil)
		if m.Type() == "enum_assignment" {
			mid, value = field(m, "name"), field(m, "value")
		}
		if mid == nil || mid.Type() != "property_identifier" {
			continue
		}
		j := x.b.def(Def{Name: x.text(mid), Kind: "const", Container: name, Start: int(m.StartByte()), End: int(m.EndByte()),
			NameStart: int(mid.StartByte())})
		if value != nil {
			x.b.enter(j)
			x.expr(value)
			x.b.leave()
		}
	}
	x.b.leave()
}

// pushTypeParams makes the type parameters of n known until the matching
// pop: a value typed T extends Base is a Base.
func (x *jsExtractor) pushTypeParams(n *grammar.Node) {
	m := map[string]string{}
	x.tparams = append(x.tparams, m)
	for _, p := range named(field(n, "type_parameters")) {
		if p.Type() != "type_parameter" {
			continue
		}
		c := ""
		if k := field(p, "constraint"); k != nil {
			if kn := named(k); len(kn) > 0 {
				c = x.typeName(kn[0])
			}
		}
		m[x.text(field(p, "name"))] = c
	}
}

func (x *jsExtractor) typeParam(name string) (string, bool) {
	for i := len(x.tparams) - 1; i >= 0; i-- {
		if c, ok := x.tparams[i][name]; ok {
			return c, true
		}
	}
	return "", false
}

// resultType is the declared result type of a function-like node,
// through a Promise.
func (x *jsExtractor) resultType(fn *grammar.Node) string {
	if fn == nil {
		return ""
	}
	return x.typeName(field(fn, "return_type"))
}

// typeName is the name of the type an annotation shows, "" when it shows
// no single named type (a primitive, an array, a function or object type,
// a union of several).
func (x *jsExtractor) typeName(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "type_annotation", "opting_type_annotation", "omitting_type_annotation", "parenthesized_type", "readonly_type":
		if n.Type() == "readonly_type" {
			return ""
		}
		if k := named(n); len(k) > 0 {
			return x.typeName(k[0])
		}
	case "this_type":
		return x.cls // a method returning this: the class, for a chain
	case "type_identifier", "identifier":
		name := x.text(n)
		if c, ok := x.typeParam(name); ok {
			return c
		}
		return name
	case "nested_type_identifier", "member_expression":
		return strings.Join(strings.Fields(x.text(n)), "")
	case "generic_type":
		name := x.typeName(field(n, "name"))
		if name == "Promise" || name == "PromiseLike" {
			if args := named(field(n, "type_arguments")); len(args) == 1 {
				return x.typeName(args[0])
			}
			return ""
		}
		return name
	case "union_type":
		out := ""
		for _, c := range named(n) {
			switch t := x.text(c); {
			case t == "null" || t == "undefined" || t == "void":
			case out != "":
				return ""
			default:
				if out = x.typeName(c); out == "" {
					return ""
				}
			}
		}
		return out
	}
	return ""
}
