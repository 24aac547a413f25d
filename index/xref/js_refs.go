package xref

import (
	"unicode"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/grammar"
)

// The references of JavaScript and TypeScript: every call, `new`, tagged
// template and JSX element, with what the syntax shows about its receiver.

// expr walks an expression (or any node below a statement) for references.
func (x *jsExtractor) expr(n *grammar.Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "comment", "string", "regex", "number", "property_identifier", "identifier", "this", "super",
		"type_annotation", "type_arguments", "type_parameters", "type_predicate_annotation", "asserts_annotation",
		"jsx_closing_element", "jsx_text", "html_comment":
		return
	case "call_expression":
		x.call(n)
	case "new_expression":
		x.newExpr(n)
	case "jsx_opening_element", "jsx_self_closing_element":
		x.jsxTag(n)
	case "arrow_function", "function_expression", "function", "generator_function":
		x.function(n, Val{})
	case "class":
		x.class(n, "")
	case "method_definition":
		x.function(n, Val{}) // a method of an object literal no name binds
	case "statement_block":
		x.block(n)
	case "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration",
		"lexical_declaration", "variable_declaration", "interface_declaration", "type_alias_declaration",
		"enum_declaration", "export_statement", "import_statement", "function_signature", "ambient_declaration":
		x.statement(n)
	case "for_in_statement":
		x.scoped(func() {
			x.bindPattern(field(n, "left"))
			x.expr(field(n, "right"))
			x.statement(field(n, "body"))
		})
	case "for_statement":
		x.scoped(func() {
			for _, c := range named(n) {
				x.statement(c)
			}
		})
	case "catch_clause":
		x.scoped(func() {
			x.bindPattern(field(n, "parameter"))
			x.statement(field(n, "body"))
		})
	case "if_statement", "ternary_expression":
		x.narrowing(n)
	case "as_expression", "satisfies_expression", "non_null_expression":
		if k := named(n); len(k) > 0 {
			x.expr(k[0])
		}
	case "pair":
		if k := field(n, "key"); k != nil && k.Type() == "computed_property_name" {
			x.expr(k)
		}
		x.expr(field(n, "value"))
	case "member_expression":
		x.expr(field(n, "object"))
	default:
		for _, c := range named(n) {
			x.expr(c)
		}
	}
}

// scoped runs fn in a block scope of its own (inside a function).
func (x *jsExtractor) scoped(fn func()) {
	if x.sc == nil {
		fn()
		return
	}
	saved := x.sc
	x.sc = x.sc.push()
	fn()
	x.sc = saved
}

// local reports whether name is a local (a parameter, a variable or
// function of an enclosing function or block).
func (x *jsExtractor) local(name string) bool {
	_, ok := x.sc.lookup(name)
	return ok
}

// call records the reference a call makes and walks its parts.
func (x *jsExtractor) call(n *grammar.Node) {
	fn, args := field(n, "function"), field(n, "arguments")
	inner := unwrapJS(fn)
	switch {
	case inner == nil:
	case inner.Type() == "identifier":
		if _, ok := x.requireSpec(n); !ok {
			x.bare(inner)
		}
	case inner.Type() == "member_expression":
		x.memberRef(inner)
	case inner.Type() == "import" || inner.Type() == "super":
	default:
		x.expr(fn)
	}
	x.expr(args)
}

// newExpr records `new C()` as a call of C.
func (x *jsExtractor) newExpr(n *grammar.Node) {
	ctor := unwrapJS(field(n, "constructor"))
	switch {
	case ctor == nil:
	case ctor.Type() == "identifier":
		x.bare(ctor)
	case ctor.Type() == "member_expression":
		x.memberRef(ctor)
	default:
		x.expr(ctor)
	}
	x.expr(field(n, "arguments"))
}

// jsxTag records <Comp /> and <ns.Item /> as calls; intrinsic elements
// (<div>) are not references.
func (x *jsExtractor) jsxTag(n *grammar.Node) {
	name := field(n, "name")
	switch {
	case name == nil:
	case name.Type() == "identifier":
		if r, _ := utf8.DecodeRuneInString(x.text(name)); unicode.IsUpper(r) {
			x.bare(name)
		}
	case name.Type() == "member_expression":
		x.memberRef(name)
	}
	for _, c := range named(n) {
		if c != name {
			x.expr(c)
		}
	}
}

// bare records a call of the unqualified name id, unless a local of that
// name (a parameter, a closure) is what is called.
func (x *jsExtractor) bare(id *grammar.Node) {
	name := x.text(id)
	if x.local(name) {
		return
	}
	x.b.ref(Ref{Name: name, Start: int(id.StartByte()), Call: true, Via: Bare})
}

// memberRef records a call of recv.name with how recv's type is reached,
// and walks recv.
func (x *jsExtractor) memberRef(m *grammar.Node) {
	obj, prop := field(m, "object"), field(m, "property")
	if o := unwrapJS(obj); o != nil && prop != nil && o.Type() == "identifier" && !x.local(x.text(o)) {
		if target, ok := x.aliases[x.text(o)][x.text(prop)]; ok {
			// const actions = { add }: actions.add() calls add.
			x.b.ref(Ref{Name: target, Start: int(prop.StartByte()), Call: true, Via: Bare})
			return
		}
	}
	if prop != nil && (prop.Type() == "property_identifier" || prop.Type() == "private_property_identifier") {
		x.b.member(x.text(prop), int(prop.StartByte()), true, x.val(obj))
	}
	x.expr(obj)
}

// then is the value reached through member name of v.
func then(v Val, name string) Val {
	if !v.known {
		return v
	}
	return Val{Via: v.Via, Qual: v.Qual, Chain: append(append([]string(nil), v.Chain...), name), known: true}
}

// val is what the syntax shows about the type of the value of n.
func (x *jsExtractor) val(n *grammar.Node) Val { return x.vals.of(n, x.valOf) }

func (x *jsExtractor) valOf(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "as_expression", "type_assertion":
		k := named(n)
		if len(k) < 2 {
			return Val{}
		}
		expr, t := k[0], k[1]
		if n.Type() == "type_assertion" {
			t, expr = k[0], k[1]
			if t.Type() == "type_arguments" {
				if a := named(t); len(a) == 1 {
					t = a[0]
				}
			}
		}
		if s := x.typeName(t); s != "" {
			return typed(s)
		}
		return x.val(expr)
	case "parenthesized_expression", "non_null_expression", "await_expression", "satisfies_expression":
		if k := named(n); len(k) > 0 {
			return x.val(k[0])
		}
	case "this":
		return x.thisVal()
	case "super":
		return Val{Via: Super, known: true}
	case "identifier":
		if v, ok := x.sc.lookup(x.text(n)); ok {
			return v
		}
		return x.globals[x.text(n)]
	case "member_expression":
		if prop := field(n, "property"); prop != nil && (prop.Type() == "property_identifier" || prop.Type() == "private_property_identifier") {
			return then(x.val(field(n, "object")), x.text(prop))
		}
	case "call_expression":
		fn := unwrapJS(field(n, "function"))
		switch {
		case fn == nil:
		case fn.Type() == "identifier":
			if x.local(x.text(fn)) {
				return Val{}
			}
			if v, ok := x.globals[x.text(fn)]; ok && v.Via == Package {
				return Val{} // a namespace import called: nothing known
			}
			return reached(Bare, "", x.text(fn))
		case fn.Type() == "member_expression":
			return x.val(fn)
		}
	case "new_expression":
		ctor := unwrapJS(field(n, "constructor"))
		if ctor == nil || ctor.Type() == "identifier" && x.local(x.text(ctor)) {
			return Val{}
		}
		if ctor.Type() == "identifier" || ctor.Type() == "member_expression" {
			return typed(x.typeName(ctor))
		}
	}
	return Val{}
}

// declVal is the value a variable declarator binds: its annotation, else
// what its initializer shows.
func (x *jsExtractor) declVal(d *grammar.Node) Val {
	if t := x.typeName(field(d, "type")); t != "" {
		return typed(t)
	}
	v := unwrapJS(field(d, "value"))
	if v == nil {
		return Val{}
	}
	switch v.Type() {
	case "new_expression", "call_expression", "identifier", "member_expression", "await_expression", "this":
		return x.val(field(d, "value"))
	}
	if s := field(d, "value"); s != nil && (s.Type() == "as_expression" || s.Type() == "type_assertion") {
		return x.val(s)
	}
	return Val{}
}

// narrowing walks an if statement or a conditional expression: where its
// condition tests `v instanceof T`, v is a T in the consequence.
func (x *jsExtractor) narrowing(n *grammar.Node) {
	cond, cons := field(n, "condition"), field(n, "consequence")
	x.expr(cond)
	types := map[string]string{}
	x.instanceofs(cond, types)
	if len(types) > 0 && x.sc != nil {
		x.scoped(func() {
			for name, t := range types {
				x.sc.set(name, typed(t))
			}
			x.statement(cons)
		})
	} else {
		x.statement(cons)
	}
	x.statement(field(n, "alternative"))
}

// instanceofs collects the `v instanceof T` tests that hold when cond
// does (joined by &&).
func (x *jsExtractor) instanceofs(cond *grammar.Node, out map[string]string) {
	if cond == nil {
		return
	}
	switch cond.Type() {
	case "parenthesized_expression":
		for _, c := range named(cond) {
			x.instanceofs(c, out)
		}
	case "binary_expression":
		op := field(cond, "operator")
		left, right := field(cond, "left"), field(cond, "right")
		switch {
		case op == nil:
		case op.Type() == "&&":
			x.instanceofs(left, out)
			x.instanceofs(right, out)
		case op.Type() == "instanceof" && left != nil && left.Type() == "identifier" && right != nil &&
			(right.Type() == "identifier" || right.Type() == "member_expression"):
			if !x.local(x.text(right)) {
				out[x.text(left)] = x.typeName(right)
			}
		}
	}
}
