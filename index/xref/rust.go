package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// Rust: every leaf of a `use` tree is an import (Spec the whole path,
// Member its last part, Local the alias or the last part; `self` in a list
// binds the module; a glob is a wildcard). Definitions are functions,
// methods (Container the impl's type, or the trait), structs with their
// fields, enums with their variants (const), traits (Bases: their bounds),
// consts and statics, type aliases; `impl Trait for T` adds Trait to T's
// Bases when T is defined in the file.
//
// A call through self is Via Self, through Self:: Via Self; Type::f() is
// Via Type (Qual as written), module::f() Via Package; a local whose type
// the syntax shows (x: T, let x = T::new(), T { .. }) gives Via Type with
// the call chain; a result type Self is the impl's type, and Result,
// Option, Box, Rc and Arc stand for what they hold (so `T::open()?` is a
// T), as do unwrap, expect and clone.

func init() { register(lang.Rust, parseRust) }

type rustX struct {
	*builder
	vals vals
	sc   *scope
	impl string // the type of the enclosing impl or trait
	// bases are the traits implemented for each type of the file.
	bases map[string][]string
}

func parseRust(src []byte) (*File, error) {
	tree, err := parse(lang.Rust, src)
	if err != nil {
		return nil, err
	}
	x := &rustX{builder: newBuilder(src), sc: newScope(), bases: map[string][]string{}, vals: vals{}}
	x.walk(tree.Root())
	for i := range x.f.Defs {
		if d := &x.f.Defs[i]; typeKinds(d.Kind) {
			d.Bases = append(d.Bases, x.bases[d.Name]...)
		}
	}
	return x.done(), nil
}

func (x *rustX) text(n *grammar.Node) string { return text(n, x.src) }

// rustWrappers stand for the type they hold, for method calls on values.
var rustWrappers = map[string]bool{"Result": true, "Option": true, "Box": true, "Rc": true, "Arc": true,
	"RefCell": true, "Mutex": true, "RwLock": true, "Cow": true}

// rustPassThrough are methods whose result is (a view of) their receiver.
var rustPassThrough = map[string]bool{"unwrap": true, "expect": true, "clone": true, "as_ref": true,
	"as_mut": true, "borrow": true, "borrow_mut": true, "lock": true, "read": true, "write": true,
	"unwrap_or_default": true, "to_owned": true}

// typeName is the type a type node names, as written: T for &T, &mut T,
// Box<T>, Result<T, E>; the impl's type for Self; "" for a primitive.
func (x *rustX) typeName(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "type_identifier", "scoped_type_identifier":
		s := x.text(n)
		if s == "Self" {
			return x.impl
		}
		return s
	case "reference_type", "pointer_type":
		return x.typeName(field(n, "type"))
	case "generic_type":
		t := x.typeName(field(n, "type"))
		if rustWrappers[lastPart(t, "::")] {
			if args := named(field(n, "type_arguments")); len(args) > 0 {
				return x.typeName(args[0])
			}
		}
		return t
	}
	return ""
}

func (x *rustX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch t := n.Type(); t {
	case "line_comment", "block_comment", "string_literal", "raw_string_literal", "char_literal":
		return
	case "use_declaration":
		x.use(field(n, "argument"), "", int(n.StartPoint().Row)+1)
	case "function_item", "function_signature_item":
		x.function(n)
	case "struct_item", "union_item":
		x.typeDef(n, "struct")
	case "enum_item":
		x.typeDef(n, "enum")
	case "trait_item":
		x.typeDef(n, "trait")
	case "type_item":
		if name := field(n, "name"); name != nil {
			d := nodeDef(n, name, x.src, "type", "")
			d.Type = x.typeName(field(n, "type"))
			x.def(d)
		}
		x.typeRefs(field(n, "type"))
	case "const_item", "static_item":
		if name := field(n, "name"); name != nil {
			kind := "const"
			if t == "static_item" {
				kind = "var"
			}
			d := nodeDef(n, name, x.src, kind, x.impl)
			d.Type = x.typeName(field(n, "type"))
			x.def(d)
		}
		x.typeRefs(field(n, "type"))
		x.walk(field(n, "value"))
	case "impl_item":
		typ := x.typeName(field(n, "type"))
		if tr := field(n, "trait"); tr != nil {
			x.bases[typ] = append(x.bases[typ], x.typeName(tr))
			x.typeRefs(tr)
		}
		x.typeRefs(field(n, "type"))
		outer := x.impl
		x.impl = typ
		x.walk(field(n, "body"))
		x.impl = outer
	case "let_declaration":
		value := field(n, "value")
		x.walk(value)
		x.walk(field(n, "alternative"))
		typ := field(n, "type")
		x.typeRefs(typ)
		pat := field(n, "pattern")
		if pat != nil && pat.Type() == "identifier" {
			v := typed(x.typeName(typ))
			if !v.Known() {
				v = x.value(value)
			}
			x.sc.set(x.text(pat), v)
			return
		}
		x.bindPattern(pat)
	case "let_condition":
		x.walk(field(n, "value"))
		x.bindPattern(field(n, "pattern"))
	case "for_expression":
		x.walk(field(n, "value"))
		up := x.sc
		x.sc = up.push()
		x.bindPattern(field(n, "pattern"))
		x.walk(field(n, "body"))
		x.sc = up
	case "match_arm":
		up := x.sc
		x.sc = up.push()
		x.bindPattern(field(n, "pattern"))
		x.walk(field(n, "value"))
		x.sc = up
	case "closure_expression":
		up := x.sc
		x.sc = up.push()
		for _, p := range named(field(n, "parameters")) {
			if p.Type() == "parameter" {
				x.typeRefs(field(p, "type"))
				if pat := field(p, "pattern"); pat != nil && pat.Type() == "identifier" {
					x.sc.set(x.text(pat), typed(x.typeName(field(p, "type"))))
					continue
				}
				x.bindPattern(field(p, "pattern"))
				continue
			}
			x.bindPattern(p)
		}
		x.walk(field(n, "body"))
		x.sc = up
	case "block":
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			x.walk(c)
		}
		x.sc = up
	case "call_expression":
		x.call(n)
	case "field_expression":
		obj, f := field(n, "value"), field(n, "field")
		x.walk(obj)
		if f != nil && f.Type() == "field_identifier" {
			x.member(x.text(f), int(f.StartByte()), false, x.value(obj))
		}
	case "struct_expression":
		name := field(n, "name")
		x.pathRef(name, true)
		x.walk(field(n, "body"))
	case "shorthand_field_initializer":
		for _, c := range named(n) {
			x.walk(c)
		}
	case "field_initializer":
		x.walk(field(n, "value"))
	case "identifier":
		if _, ok := x.sc.lookup(x.text(n)); !ok {
			x.ref(nameRef(n, x.src, false, Bare, ""))
		}
	case "scoped_identifier":
		x.pathRef(n, false)
	case "type_identifier", "scoped_type_identifier", "generic_type":
		x.typeRefs(n)
	case "macro_invocation", "attribute_item", "inner_attribute_item":
		// Token trees are not parsed: the calls in a macro's arguments
		// are not seen, and a macro is no function.
	case "mod_item":
		x.walk(field(n, "body"))
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

// bindPattern declares the names a pattern binds, of unknown types.
func (x *rustX) bindPattern(n *grammar.Node) {
	walk(n, func(c *grammar.Node) bool {
		switch c.Type() {
		case "identifier":
			if p := c.Parent(); p != nil && (p.Type() == "tuple_struct_pattern" || p.Type() == "struct_pattern") && same(field(p, "type"), c) {
				return false
			}
			x.sc.set(x.text(c), Val{})
		case "scoped_identifier", "type_identifier", "scoped_type_identifier":
			return false
		}
		return true
	})
}

// use reads one use tree under prefix.
func (x *rustX) use(n *grammar.Node, prefix string, line int) {
	if n == nil {
		return
	}
	join := func(s string) string {
		if prefix == "" {
			return s
		}
		return prefix + "::" + s
	}
	switch n.Type() {
	case "identifier", "scoped_identifier", "crate", "self", "super":
		spec := join(x.text(n))
		last := lastPart(spec, "::")
		if last == "self" {
			spec = strings.TrimSuffix(spec, "::self")
			last = lastPart(spec, "::")
		}
		x.f.Imports = append(x.f.Imports, Import{Local: last, Spec: spec, Member: last, Line: line})
	case "use_as_clause":
		spec := join(x.text(field(n, "path")))
		x.f.Imports = append(x.f.Imports, Import{Local: x.text(field(n, "alias")), Spec: spec,
			Member: lastPart(spec, "::"), Line: line})
	case "use_wildcard":
		base := ""
		if kids := named(n); len(kids) > 0 {
			base = x.text(kids[0])
		}
		x.f.Imports = append(x.f.Imports, Import{Local: "*", Spec: join(base) + "::*", Line: line})
	case "scoped_use_list":
		p := join(x.text(field(n, "path")))
		if field(n, "path") == nil {
			p = prefix
		}
		x.use(field(n, "list"), p, line)
	case "use_list":
		for _, c := range named(n) {
			x.use(c, prefix, line)
		}
	}
}

func (x *rustX) function(n *grammar.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	kind := "function"
	if x.impl != "" {
		kind = "method"
	}
	if x.sc.up != nil {
		x.sc.set(x.text(name), Val{}) // a function local to a block
	}
	d := nodeDef(n, name, x.src, kind, x.impl)
	d.Type = x.typeName(field(n, "return_type"))
	if x.sc.up == nil {
		x.enter(x.def(d))
		defer x.leave()
	}
	up := x.sc
	x.sc = up.push()
	defer func() { x.sc = up }()
	for _, p := range named(field(n, "parameters")) {
		switch p.Type() {
		case "self_parameter":
			x.sc.set("self", self())
		case "parameter":
			typ := field(p, "type")
			x.typeRefs(typ)
			if pat := field(p, "pattern"); pat != nil && pat.Type() == "identifier" {
				x.sc.set(x.text(pat), typed(x.typeName(typ)))
			} else {
				x.bindPattern(pat)
			}
		}
	}
	x.typeRefs(field(n, "return_type"))
	x.walk(field(n, "body"))
}

func (x *rustX) typeDef(n *grammar.Node, kind string) {
	name := field(n, "name")
	if name == nil {
		return
	}
	d := nodeDef(n, name, x.src, kind, "")
	for _, b := range named(field(n, "bounds")) {
		if t := x.typeName(b); t != "" {
			d.Bases = append(d.Bases, t)
		}
	}
	x.typeRefs(field(n, "bounds"))
	x.enter(x.def(d))
	defer x.leave()
	body := field(n, "body")
	for _, c := range named(body) {
		switch c.Type() {
		case "field_declaration":
			if fn := field(c, "name"); fn != nil {
				f := nodeDef(c, fn, x.src, "field", d.Name)
				f.Type = x.typeName(field(c, "type"))
				x.def(f)
			}
			x.typeRefs(field(c, "type"))
		case "enum_variant":
			if vn := field(c, "name"); vn != nil {
				v := nodeDef(c, vn, x.src, "const", d.Name)
				v.Type = d.Name
				x.def(v)
			}
			x.typeRefs(field(c, "body"))
		case "ordered_field_declaration_list":
			x.typeRefs(c)
		default:
			outer := x.impl
			x.impl = d.Name
			x.walk(c)
			x.impl = outer
		}
	}
}

func (x *rustX) call(n *grammar.Node) {
	fn := field(n, "function")
	switch {
	case fn == nil:
	case fn.Type() == "identifier":
		if _, ok := x.sc.lookup(x.text(fn)); !ok {
			x.ref(nameRef(fn, x.src, true, Bare, ""))
		}
	case fn.Type() == "scoped_identifier":
		x.pathRef(fn, true)
	case fn.Type() == "field_expression":
		obj, f := field(fn, "value"), field(fn, "field")
		x.walk(obj)
		if f != nil {
			x.member(x.text(f), int(f.StartByte()), true, x.value(obj))
		}
	case fn.Type() == "generic_function":
		inner := field(fn, "function")
		if inner != nil && inner.Type() == "field_expression" {
			x.walk(field(inner, "value"))
			if f := field(inner, "field"); f != nil {
				x.member(x.text(f), int(f.StartByte()), true, x.value(field(inner, "value")))
			}
		} else if inner != nil && inner.Type() == "identifier" {
			x.ref(nameRef(inner, x.src, true, Bare, ""))
		} else {
			x.pathRef(inner, true)
		}
	default:
		x.walk(fn)
	}
	x.walk(field(n, "arguments"))
}

// pathQual is how a path's qualifier reaches its name: Self:: is Self, a
// type (capitalised last part) is Via Type, a module Via Package.
func pathQual(qual string) (Via, string) {
	switch {
	case qual == "Self":
		return Self, ""
	case capitalised(lastPart(qual, "::")):
		return Type, qual
	default:
		return Package, qual
	}
}

// pathRef refers to the name a path (a::b::c, T::f, Self::new) ends in.
func (x *rustX) pathRef(n *grammar.Node, call bool) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "identifier", "type_identifier":
		if _, ok := x.sc.lookup(x.text(n)); !ok {
			x.ref(nameRef(n, x.src, call, Bare, ""))
		}
		return
	case "scoped_identifier", "scoped_type_identifier":
	case "generic_type":
		x.pathRef(field(n, "type"), call)
		return
	default:
		x.walk(n)
		return
	}
	name, path := field(n, "name"), field(n, "path")
	if name == nil {
		return
	}
	if path == nil {
		x.ref(nameRef(name, x.src, call, Bare, ""))
		return
	}
	qual := x.text(path)
	if i := strings.Index(qual, "<"); i >= 0 {
		qual = qual[:i] // Vec::<T>::new
	}
	via, q := pathQual(qual)
	x.ref(nameRef(name, x.src, call, via, q))
}

// typeRefs refers to the named types of a type node.
func (x *rustX) typeRefs(n *grammar.Node) {
	walk(n, func(c *grammar.Node) bool {
		switch c.Type() {
		case "type_identifier":
			if s := x.text(c); s != "Self" {
				x.ref(nameRef(c, x.src, false, Bare, ""))
			}
			return false
		case "scoped_type_identifier":
			x.pathRef(c, false)
			return false
		case "lifetime", "primitive_type":
			return false
		}
		return true
	})
}

// value is what the syntax shows of the type of expression n.
func (x *rustX) value(n *grammar.Node) Val { return x.vals.of(n, x.valueOf) }

func (x *rustX) valueOf(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "self":
		return self()
	case "identifier":
		if v, ok := x.sc.lookup(x.text(n)); ok {
			return v
		}
		return reached(Bare, "", x.text(n))
	case "field_expression":
		if f := field(n, "field"); f != nil {
			return x.value(field(n, "value")).Then(x.text(f))
		}
	case "call_expression":
		fn := field(n, "function")
		if fn != nil && fn.Type() == "generic_function" {
			fn = field(fn, "function")
		}
		if fn == nil {
			return Val{}
		}
		switch fn.Type() {
		case "field_expression":
			recv := x.value(field(fn, "value"))
			name := x.text(field(fn, "field"))
			if rustPassThrough[name] {
				return recv
			}
			return recv.Then(name)
		case "scoped_identifier":
			name, path := x.text(field(fn, "name")), field(fn, "path")
			if path == nil {
				return reached(Bare, "", name)
			}
			qual := x.text(path)
			if i := strings.Index(qual, "<"); i >= 0 {
				qual = qual[:i]
			}
			switch via, q := pathQual(qual); via {
			case Self:
				return self().Then(name)
			case Type:
				return typed(q).Then(name)
			default:
				return reached(Package, q, name)
			}
		case "identifier":
			if _, ok := x.sc.lookup(x.text(fn)); ok {
				return Val{}
			}
			return reached(Bare, "", x.text(fn))
		}
	case "struct_expression":
		if t := x.typeName(field(n, "name")); t != "" {
			return typed(t)
		}
	case "reference_expression", "try_expression", "parenthesized_expression", "unary_expression", "await_expression":
		if kids := named(n); len(kids) > 0 {
			return x.value(kids[len(kids)-1])
		}
	}
	return Val{}
}
