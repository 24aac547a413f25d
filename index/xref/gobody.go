package xref

import (
	"github.com/dossierhq/dossier/index/grammar"
)

// typeFields are the fields of Go nodes that hold a type, not an
// expression: their identifiers name types.
var typeFields = map[string]bool{"type": true, "type_arguments": true, "result": true}

// visit reads the statements and expressions under n, declaring locals as
// they come into scope and recording every reference.
func (g *goX) visit(n *grammar.Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "comment", "interpreted_string_literal", "raw_string_literal", "rune_literal", "int_literal",
		"float_literal", "imaginary_literal", "field_identifier", "package_identifier", "label_name",
		"true", "false", "nil", "iota", "blank_identifier":
		return
	case "block", "if_statement", "expression_switch_statement", "select_statement",
		"expression_case", "default_case", "communication_case":
		g.sc = g.sc.push()
		g.children(n)
		g.sc = g.sc.up
	case "for_statement":
		g.sc = g.sc.push()
		for _, c := range named(n) {
			if c.Type() == "range_clause" {
				g.rangeClause(c)
			} else {
				g.visit(c)
			}
		}
		g.sc = g.sc.up
	case "type_switch_statement":
		g.typeSwitch(n)
	case "func_literal":
		g.sc = g.sc.push()
		g.params(field(n, "parameters"))
		g.params(field(n, "result"))
		g.visit(field(n, "body"))
		g.sc = g.sc.up
	case "short_var_declaration":
		g.visit(field(n, "right"))
		g.declare(named(field(n, "left")), named(field(n, "right")))
	case "var_declaration", "const_declaration":
		g.localDecl(n)
	case "type_declaration":
		// A local type: its name shadows, its body mentions types.
		for _, s := range named(n) {
			g.sc.set(text(field(s, "name"), g.src), Val{})
			g.types(field(s, "type"), false)
		}
	case "call_expression":
		g.call(n)
	case "selector_expression":
		g.selector(n, false)
	case "composite_literal":
		g.types(field(n, "type"), true)
		g.literal(field(n, "body"))
	case "type_conversion_expression":
		g.types(field(n, "type"), true)
		g.visit(field(n, "operand"))
	case "identifier":
		name := text(n, g.src)
		if _, local := g.sc.lookup(name); !local && name != "_" {
			g.b.ref(Ref{Name: name, Start: int(n.StartByte())})
		}
	case "type_identifier", "qualified_type", "generic_type", "pointer_type", "slice_type", "array_type",
		"map_type", "channel_type", "function_type", "struct_type", "interface_type":
		g.types(n, false)
	case "labeled_statement":
		for _, c := range named(n) {
			g.visit(c)
		}
	default:
		g.children(n)
	}
}

// children visits n's children, reading those in type fields as types.
func (g *goX) children(n *grammar.Node) {
	for _, c := range n.Children() {
		if !c.IsNamed() {
			continue
		}
		if typeFields[c.Field()] {
			g.types(c, false)
		} else {
			g.visit(c)
		}
	}
}

// literal visits a composite literal's elements; a bare identifier as a
// key is a field name, not a reference.
func (g *goX) literal(body *grammar.Node) {
	for _, el := range named(body) {
		if el.Type() == "keyed_element" {
			kids := named(el)
			if len(kids) == 2 {
				if k := kids[0]; k.Type() == "literal_element" && k.NamedChildCount() == 1 && k.NamedChild(0).Type() == "identifier" {
					g.visit(kids[1])
					continue
				}
			}
		}
		if el.Type() == "literal_value" {
			g.literal(el)
			continue
		}
		g.visit(el)
	}
}

// call records a call: a bare function or conversion, a package's
// function, a method through its receiver's value. A call of a local (a
// closure, a func-typed parameter) is no reference.
func (g *goX) call(n *grammar.Node) {
	fn := field(n, "function")
	args := field(n, "arguments")
	if fn != nil && fn.Type() == "index_expression" { // F[T](x)
		g.visit(field(fn, "index"))
		fn = field(fn, "operand")
	}
	switch {
	case fn == nil:
	case fn.Type() == "identifier":
		name := text(fn, g.src)
		if _, local := g.sc.lookup(name); !local {
			switch name {
			case "new", "make":
				// Builtins whose first argument is a type.
				if kids := named(args); len(kids) > 0 {
					g.types(kids[0], false)
					for _, a := range kids[1:] {
						g.visit(a)
					}
				}
				return
			}
			g.b.ref(Ref{Name: name, Start: int(fn.StartByte()), Call: true})
		}
	case fn.Type() == "selector_expression":
		g.selector(fn, true)
	case fn.Type() == "parenthesized_expression" && isTypeNode(fn.NamedChild(0)):
		g.types(fn.NamedChild(0), true) // (*T)(x)
	default:
		g.visit(fn)
	}
	g.children(args)
	g.types(field(n, "type_arguments"), false)
}

func isTypeNode(n *grammar.Node) bool {
	if n == nil {
		return false
	}
	switch n.Type() {
	case "pointer_type", "slice_type", "array_type", "map_type", "channel_type", "function_type", "qualified_type":
		return true
	}
	return false
}

// selector records x.name: a package's member, or a member of x's value.
func (g *goX) selector(n *grammar.Node, call bool) {
	op, f := field(n, "operand"), field(n, "field")
	name, start := text(f, g.src), int(f.StartByte())
	if op.Type() == "identifier" {
		id := text(op, g.src)
		v, local := g.sc.lookup(id)
		switch {
		case local:
			g.b.member(name, start, call, v)
		case g.imports[id]:
			g.b.ref(Ref{Name: name, Start: start, Call: call, Via: Package, Qual: id})
		default:
			// A package-level variable or type, or an import whose
			// package name is not its path's last element: the resolver
			// tells which.
			g.b.ref(Ref{Name: id, Start: int(op.StartByte())})
			g.b.member(name, start, call, reached(Bare, "", id))
		}
		return
	}
	g.visit(op)
	g.b.member(name, start, call, g.valOf(op))
}

// valOf is what the syntax shows about the type of expression n.
func (g *goX) valOf(n *grammar.Node) Val { return g.vals.of(n, g.valOfNode) }

func (g *goX) valOfNode(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "identifier":
		id := text(n, g.src)
		if v, ok := g.sc.lookup(id); ok {
			return v
		}
		return reached(Bare, "", id)
	case "selector_expression":
		op, f := field(n, "operand"), text(field(n, "field"), g.src)
		if op.Type() == "identifier" {
			id := text(op, g.src)
			if _, local := g.sc.lookup(id); !local && g.imports[id] {
				return reached(Package, id, f)
			}
		}
		return g.valOf(op).Then(f)
	case "call_expression":
		fn := field(n, "function")
		if fn == nil {
			return Val{}
		}
		if fn.Type() == "index_expression" {
			fn = field(fn, "operand")
		}
		switch fn.Type() {
		case "identifier":
			name := text(fn, g.src)
			if v, local := g.sc.lookup(name); local {
				if v.ret {
					v.ret = false
					return v
				}
				return Val{}
			}
			if name == "new" || name == "make" {
				if kids := named(field(n, "arguments")); len(kids) > 0 {
					return g.typeVal(kids[0])
				}
				return Val{}
			}
			return reached(Bare, "", name)
		case "selector_expression":
			return g.valOf(fn)
		case "parenthesized_expression":
			if isTypeNode(fn.NamedChild(0)) {
				return g.typeVal(fn.NamedChild(0))
			}
		}
		return Val{}
	case "composite_literal":
		return g.typeVal(field(n, "type"))
	case "func_literal":
		// Calling it gives a value of its (first) result type.
		t, _ := g.resultType(field(n, "result"))
		if t == "" || g.tparams[t] {
			return Val{}
		}
		v := typed(t)
		v.ret = true
		return v
	case "type_conversion_expression":
		// F[T](x) is a generic function's call as often as a conversion.
		if t := field(n, "type"); t.Type() == "generic_type" {
			if inner := field(t, "type"); inner != nil && inner.Type() == "type_identifier" && !g.tparams[text(inner, g.src)] {
				return reached(Bare, "", text(inner, g.src))
			}
		}
		return g.typeVal(field(n, "type"))
	case "type_assertion_expression":
		return g.typeVal(field(n, "type"))
	case "unary_expression":
		switch text(field(n, "operator"), g.src) {
		case "&", "*":
			return g.valOf(field(n, "operand"))
		case "<-":
			if v := g.valOf(field(n, "operand")); v.coll == 'c' {
				v.coll = 0
				return v
			}
		}
		return Val{}
	case "parenthesized_expression":
		return g.valOf(n.NamedChild(0))
	case "index_expression":
		v := g.valOf(field(n, "operand"))
		v.coll = 0
		return v
	case "slice_expression":
		return g.valOf(field(n, "operand"))
	}
	return Val{}
}

// declare gives the names on the left of := or = their values.
func (g *goX) declare(left, right []*grammar.Node) {
	for i, l := range left {
		if l.Type() != "identifier" {
			continue
		}
		var v Val
		switch {
		case len(left) == len(right):
			v = g.valOf(right[i])
		case len(right) == 1 && i == 0:
			// x, err := f(); x, ok := y.(T); v, ok := m[k]
			v = g.valOf(right[0])
		case len(right) == 1 && right[0].Type() == "call_expression":
			// a, b, c := f(): the i-th result.
			v = g.valOf(right[0]).Result(i)
		}
		g.sc.set(text(l, g.src), v)
	}
}

// localDecl declares the names of a var or const declaration inside a
// function.
func (g *goX) localDecl(n *grammar.Node) {
	walk(n, func(s *grammar.Node) bool {
		if s.Type() != "var_spec" && s.Type() != "const_spec" {
			return true
		}
		t := field(s, "type")
		g.types(t, false)
		values := field(s, "value")
		g.visit(values)
		var names []*grammar.Node
		for _, c := range s.Children() {
			if c.Field() == "name" {
				names = append(names, c)
			}
		}
		if t != nil {
			v := g.typeVal(t)
			for _, id := range names {
				g.sc.set(text(id, g.src), v)
			}
		} else {
			g.declare(names, named(values))
		}
		return false
	})
}

// rangeClause declares the variables of for ... range x: the element of
// a slice, map or channel gets the element's type.
func (g *goX) rangeClause(n *grammar.Node) {
	right := field(n, "right")
	g.visit(right)
	left := named(field(n, "left"))
	v := g.valOf(right)
	coll := v.coll
	v.coll = 0
	// A value of a named type or reached through a field or a result has
	// its declared type's base: with two variables it is a slice's or a
	// map's element (the resolver goes from a named collection type to
	// its element's).
	reachedColl := coll == 0 && v.Known()
	for i, l := range left {
		var lv Val
		switch {
		case coll == 'c' && i == 0, (coll == 's' || coll == 'm' || reachedColl) && i == 1:
			lv = v
		}
		g.sc.set(text(l, g.src), lv)
	}
}

// typeSwitch declares the switch's alias in each case with the case's
// type when the case names one.
func (g *goX) typeSwitch(n *grammar.Node) {
	g.sc = g.sc.push()
	defer func() { g.sc = g.sc.up }()
	var alias string
	for _, a := range named(field(n, "alias")) {
		alias = text(a, g.src)
	}
	for _, c := range n.Children() {
		switch {
		case !c.IsNamed():
		case c.Field() == "alias":
		case c.Type() == "type_case" || c.Type() == "default_case":
			g.typeCase(c, alias)
		default:
			g.visit(c)
		}
	}
}

func (g *goX) typeCase(c *grammar.Node, alias string) {
	g.sc = g.sc.push()
	defer func() { g.sc = g.sc.up }()
	var types []*grammar.Node
	kids := c.Children()
	for _, k := range kids {
		if k.Field() == "type" {
			types = append(types, k)
		}
	}
	var v Val
	if len(types) == 1 {
		v = g.typeVal(types[0])
	}
	if alias != "" {
		g.sc.set(alias, v)
	}
	for _, k := range kids {
		if !k.IsNamed() {
			continue
		}
		if k.Field() == "type" {
			g.types(k, false)
		} else {
			g.visit(k)
		}
	}
}
