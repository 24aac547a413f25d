package xref

import (
	"regexp"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// PHP: the namespace is File.Package; `use` clauses are imports (Spec the
// namespace, Member the class, function or constant, Local its alias or
// last part). Definitions are classes, interfaces, traits and enums (Bases:
// extends, implements and the traits they use), functions, methods,
// properties with their declared types (constructor promotion included, and
// an untyped property takes the type of what a method assigns to it:
// `$this->repo = $repo` with a typed parameter, `$this->x = new X`), class
// constants and enum cases.
//
// A member reached through $this, self:: or static:: is Via Self, through
// parent:: Via Super, through Foo:: Via Type with Foo as written (the
// resolver maps it through `use` and the namespace); through a variable,
// Via what its value shows (a typed parameter, `$x = new Foo`, the result of
// a call, a property: Chain); otherwise Via Unknown. A qualified name
// (Foo\bar(), new A\B) is Via Package with the namespace part as Qual, `\`
// for the global namespace.

func init() { register(lang.PHP, parsePHP) }

type phpX struct {
	*builder
	vals  vals
	sc    *scope
	class string
	// anon is set inside an anonymous class, whose members are no
	// definitions anyone can name.
	anon bool
	// assigned maps "Class.prop" to the type a method assigns to $this->prop.
	assigned map[string]string
	// typedParams are the parameters (and @var-annotated variables) of the
	// current function that declare a class: assigning one the result of a call (`$song =
	// Song::query()->create()`, whose type only a vendor class shows)
	// keeps the declared type.
	typedParams map[string]bool
	// docParams are the @param types of the function being declared.
	docParams map[string]string
}

func parsePHP(src []byte) (*File, error) {
	tree, err := parse(lang.PHP, src)
	if err != nil {
		return nil, err
	}
	x := &phpX{builder: newBuilder(src), sc: newScope(), assigned: map[string]string{}, vals: vals{}}
	x.walk(tree.Root())
	for i := range x.f.Defs {
		if d := &x.f.Defs[i]; d.Kind == "field" && d.Type == "" {
			d.Type = x.assigned[d.Container+"."+d.Name]
		}
	}
	return x.done(), nil
}

// phpClassKinds maps the class-like declarations to their symbol kinds.
var phpClassKinds = map[string]string{"class_declaration": "class", "interface_declaration": "interface",
	"trait_declaration": "trait", "enum_declaration": "enum"}

func (x *phpX) text(n *grammar.Node) string { return text(n, x.src) }

// phpDocVar and phpDocParam read the types docblocks declare: @var T
// [$name] and @param T $name.
var (
	phpDocVar   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@var\s+([?\\\w|]+)(?:\s+\$(\w+))?`) })
	phpDocParam = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@param\s+([?\\\w|]+)\s+(?:\.\.\.)?\$(\w+)`) })
)

// phpDocType is the class a docblock type names (T, ?T, T|null), "" for
// a scalar, an array or a union of classes.
func phpDocType(s string) string {
	var one string
	for _, part := range strings.Split(strings.TrimPrefix(s, "?"), "|") {
		switch strings.ToLower(part) {
		case "null", "":
			continue
		case "int", "string", "bool", "float", "array", "mixed", "void", "object", "callable", "iterable",
			"true", "false", "self", "static", "$this", "resource", "never":
			return ""
		}
		if one != "" {
			return ""
		}
		one = part
	}
	return one
}

// docComment is the doc comment right before n, or "".
func (x *phpX) docComment(n *grammar.Node) string {
	for p := n.PrevSibling(); p != nil; p = p.PrevSibling() {
		switch p.Type() {
		case "comment":
			return x.text(p)
		case "attribute_list":
			continue
		}
		return ""
	}
	return ""
}

// phpVar drops the $ of a variable name.
func phpVar(s string) string { return strings.TrimPrefix(s, "$") }

func isPHPName(n *grammar.Node) bool {
	return n != nil && (n.Type() == "name" || n.Type() == "qualified_name")
}

// typeOf is the class a type annotation names, as written: the T of ?T,
// of a union with null, of self/static (the enclosing class); "" for a
// scalar type or a union of classes.
func (x *phpX) typeOf(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "named_type":
		s := x.text(n)
		switch strings.ToLower(s) {
		case "self", "static", "$this":
			return x.class
		case "null", "mixed", "object", "iterable", "callable":
			return ""
		}
		return s
	case "optional_type":
		return x.typeOf(childOfType(n, "named_type"))
	case "union_type", "type_list":
		var one string
		count := 0
		for _, c := range named(n) {
			if t := x.typeOf(c); t != "" {
				one, count = t, count+1
			}
		}
		if count == 1 {
			return one
		}
	}
	return ""
}

func (x *phpX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch t := n.Type(); t {
	case "comment":
		// /** @var Song $song */ types a variable for the code after it.
		for _, m := range phpDocVar().FindAllStringSubmatch(x.text(n), -1) {
			if t := phpDocType(m[1]); t != "" && m[2] != "" {
				x.sc.set(m[2], typed(t))
				if x.typedParams != nil {
					x.typedParams[m[2]] = true // the assignment it annotates keeps it
				}
			}
		}
		return
	case "string", "heredoc", "nowdoc", "string_content":
		return
	case "namespace_definition":
		x.f.Package = strings.TrimPrefix(x.text(field(n, "name")), `\`)
		x.walk(field(n, "body"))
	case "namespace_use_declaration":
		x.imports(n)
	case "class_declaration", "interface_declaration", "trait_declaration", "enum_declaration":
		x.classDecl(n, phpClassKinds[t])
	case "function_definition":
		x.funcDecl(n, "function", "")
	case "method_declaration":
		x.funcDecl(n, "method", x.class)
	case "property_declaration":
		x.property(n)
	case "const_declaration":
		for _, c := range childrenOfType(n, "const_element") {
			if name := childOfType(c, "name"); name != nil && !x.anon {
				x.def(nodeDef(c, name, x.src, "const", x.class))
			}
			for _, v := range named(c) {
				if v.Type() != "name" {
					x.walk(v)
				}
			}
		}
	case "enum_case":
		if name := field(n, "name"); name != nil && !x.anon {
			d := nodeDef(n, name, x.src, "const", x.class)
			d.Type = x.class
			x.def(d)
		}
		x.walk(field(n, "value"))
	case "use_declaration": // traits used in a class body: Bases of the class
		for _, c := range named(n) {
			if !isPHPName(c) {
				x.walk(c)
			}
		}
	case "function_call_expression":
		x.call(n)
	case "member_call_expression", "nullsafe_member_call_expression",
		"member_access_expression", "nullsafe_member_access_expression":
		obj, name := field(n, "object"), field(n, "name")
		x.walk(obj)
		if name != nil && name.Type() == "name" {
			x.member(x.text(name), int(name.StartByte()), strings.HasSuffix(t, "call_expression"), x.value(obj))
		} else {
			x.walk(name)
		}
		x.walk(field(n, "arguments"))
	case "scoped_call_expression":
		scope, name := field(n, "scope"), field(n, "name")
		x.walkScope(scope)
		if name != nil && name.Type() == "name" {
			x.member(x.text(name), int(name.StartByte()), true, x.scopeValue(scope))
		} else {
			x.walk(name)
		}
		x.walk(field(n, "arguments"))
	case "class_constant_access_expression":
		kids := named(n)
		if len(kids) != 2 {
			for _, c := range kids {
				x.walk(c)
			}
			return
		}
		scope, name := kids[0], kids[1]
		x.walkScope(scope)
		if x.text(name) == "class" {
			return // Foo::class mentions Foo, walked as the scope
		}
		x.member(x.text(name), int(name.StartByte()), false, x.scopeValue(scope))
	case "scoped_property_access_expression":
		scope := field(n, "scope")
		x.walkScope(scope)
		if v := childOfType(field(n, "name"), "name"); v != nil {
			x.member(x.text(v), int(v.StartByte()), false, x.scopeValue(scope))
		}
	case "object_creation_expression":
		x.newExpr(n)
	case "assignment_expression":
		left, right := field(n, "left"), field(n, "right")
		x.walk(right)
		switch {
		case left != nil && left.Type() == "variable_name":
			name, v := phpVar(x.text(left)), x.value(right)
			if x.typedParams[name] && (v.Via != Type || len(v.Chain) > 0) {
				break
			}
			x.sc.set(name, v)
		case left != nil && left.Type() == "member_access_expression" && x.text(field(left, "object")) == "$this":
			if v := x.value(right); v.Via == Type && len(v.Chain) == 0 && x.class != "" {
				x.assigned[x.class+"."+x.text(field(left, "name"))] = v.Qual
			}
			x.walk(left)
		default:
			x.walk(left)
		}
	case "anonymous_function_creation_expression", "arrow_function":
		up, typedParams := x.sc, x.typedParams
		x.sc, x.typedParams = up.push(), map[string]bool{}
		x.params(field(n, "parameters"), false)
		x.walk(field(n, "return_type"))
		x.walk(field(n, "body"))
		x.sc, x.typedParams = up, typedParams
	case "catch_clause":
		typ := field(n, "type")
		x.walk(typ)
		if name := field(n, "name"); name != nil {
			x.sc.set(phpVar(x.text(name)), typed(x.typeOf(typ)))
		}
		x.walk(field(n, "body"))
	case "binary_expression":
		x.walk(field(n, "left"))
		right := field(n, "right")
		if op := field(n, "operator"); op != nil && x.text(op) == "instanceof" && isPHPName(right) {
			x.typeRef(right, false)
			return
		}
		x.walk(right)
	case "named_type":
		if c := childOfType(n, "name", "qualified_name"); c != nil {
			x.typeRef(c, false)
		}
	case "attribute":
		for _, c := range named(n) {
			if isPHPName(c) {
				x.typeRef(c, false)
			} else {
				x.walk(c)
			}
		}
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

// walkScope walks the scope of a static access: Foo:: mentions the class
// Foo, $x:: is an expression.
func (x *phpX) walkScope(n *grammar.Node) {
	switch {
	case n == nil || n.Type() == "relative_scope":
	case isPHPName(n):
		x.typeRef(n, false)
	default:
		x.walk(n)
	}
}

// imports reads `use A\B\C [as D];`, `use function ...`, `use const ...`
// and group use `use A\{B, C as D}`.
func (x *phpX) imports(n *grammar.Node) {
	add := func(prefix string, clause *grammar.Node) {
		target := childOfType(clause, "qualified_name", "namespace_name", "name")
		if target == nil {
			return
		}
		full := strings.Trim(x.text(target), `\ `)
		if prefix != "" {
			full = prefix + `\` + full
		}
		spec, member := splitQualified(full, `\`)
		local := member
		if alias := childOfType(clause, "namespace_aliasing_clause"); alias != nil {
			local = x.text(childOfType(alias, "name"))
		} else if names := childrenOfType(clause, "name"); len(names) == 2 {
			local = x.text(names[1]) // an older grammar: `as` then a bare name
		}
		x.f.Imports = append(x.f.Imports, Import{Local: local, Spec: spec, Member: member,
			Line: int(clause.StartPoint().Row) + 1})
	}
	prefix := ""
	for _, c := range named(n) {
		switch c.Type() {
		case "namespace_name":
			prefix = strings.Trim(x.text(c), `\ `)
		case "namespace_use_clause":
			add("", c)
		case "namespace_use_group":
			for _, g := range childrenOfType(c, "namespace_use_group_clause") {
				add(prefix, g)
			}
		}
	}
}

func (x *phpX) classDecl(n *grammar.Node, kind string) {
	name := field(n, "name")
	if name == nil {
		for _, c := range named(n) {
			x.walk(c)
		}
		return
	}
	var bases []*grammar.Node
	for _, clause := range childrenOfType(n, "base_clause", "class_interface_clause") {
		for _, c := range named(clause) {
			if isPHPName(c) {
				bases = append(bases, c)
			}
		}
	}
	body := field(n, "body")
	for _, c := range childrenOfType(body, "use_declaration") {
		for _, q := range named(c) {
			if isPHPName(q) {
				bases = append(bases, q)
			}
		}
	}
	d := nodeDef(n, name, x.src, kind, "")
	for _, b := range bases {
		d.Bases = append(d.Bases, x.text(b))
	}
	idx := -1
	if !x.anon {
		idx = x.def(d)
		x.enter(idx)
		defer x.leave()
	}
	outer := x.class
	x.class = d.Name
	defer func() { x.class = outer }()
	for _, b := range bases {
		x.typeRef(b, false)
	}
	for _, c := range childrenOfType(n, "attribute_list") {
		x.walk(c)
	}
	x.walk(body)
}

func (x *phpX) funcDecl(n *grammar.Node, kind, container string) {
	name := field(n, "name")
	if name != nil && !x.anon {
		d := nodeDef(n, name, x.src, kind, container)
		d.Type = x.typeOf(field(n, "return_type"))
		x.enter(x.def(d))
		defer x.leave()
	}
	up, typedParams := x.sc, x.typedParams
	x.sc, x.typedParams = up.push(), map[string]bool{}
	defer func() { x.sc, x.typedParams = up, typedParams }()
	for _, c := range childrenOfType(n, "attribute_list") {
		x.walk(c)
	}
	x.docParams = map[string]string{}
	for _, m := range phpDocParam().FindAllStringSubmatch(x.docComment(n), -1) {
		if t := phpDocType(m[1]); t != "" {
			x.docParams[m[2]] = t
		}
	}
	x.params(field(n, "parameters"), kind == "method")
	x.docParams = nil
	x.walk(field(n, "return_type"))
	x.walk(field(n, "body"))
}

// params binds the parameters of a function in the current scope with
// their declared types; promoted constructor parameters are also fields.
func (x *phpX) params(list *grammar.Node, method bool) {
	for _, p := range named(list) {
		typ := field(p, "type")
		x.walk(typ)
		x.walk(field(p, "default_value"))
		for _, c := range childrenOfType(p, "attribute_list") {
			x.walk(c)
		}
		name := field(p, "name")
		if name == nil {
			continue
		}
		declared := x.typeOf(typ)
		if declared == "" {
			declared = x.docParams[phpVar(x.text(name))]
		}
		x.sc.set(phpVar(x.text(name)), typed(declared))
		if declared != "" && x.typedParams != nil {
			x.typedParams[phpVar(x.text(name))] = true
		}
		if p.Type() == "property_promotion_parameter" && method && !x.anon {
			if v := childOfType(name, "name"); v != nil {
				d := nodeDef(p, v, x.src, "field", x.class)
				d.Type = declared
				x.def(d)
			}
		}
	}
}

func (x *phpX) property(n *grammar.Node) {
	typ := field(n, "type")
	x.walk(typ)
	declared := x.typeOf(typ)
	if declared == "" {
		if m := phpDocVar().FindStringSubmatch(x.docComment(n)); m != nil {
			declared = phpDocType(m[1])
		}
	}
	for _, c := range childrenOfType(n, "attribute_list") {
		x.walk(c)
	}
	elems := childrenOfType(n, "property_element")
	for _, e := range elems {
		if v := childOfType(childOfType(e, "variable_name"), "name"); v != nil && !x.anon {
			span := n
			if len(elems) > 1 {
				span = e
			}
			d := nodeDef(span, v, x.src, "field", x.class)
			d.Type = declared
			x.def(d)
		}
		x.walk(childOfType(e, "property_initializer"))
	}
}

// call handles f(), A\f(), \f(), and calls of variables and expressions.
func (x *phpX) call(n *grammar.Node) {
	switch fn := field(n, "function"); {
	case fn == nil:
	case isPHPName(fn):
		x.typeRef(fn, true)
	default:
		x.walk(fn) // $f(), ($this->x)(): no name of a definition
	}
	x.walk(field(n, "arguments"))
}

// typeRef refers to the class or function a name or qualified name
// written in the file denotes.
func (x *phpX) typeRef(n *grammar.Node, call bool) {
	s := x.text(n)
	switch strings.ToLower(s) {
	case "self", "static", "parent":
		return
	}
	qual, last := splitQualified(s, `\`)
	start := int(n.EndByte()) - len(last)
	switch {
	case qual == "" && strings.HasPrefix(s, `\`):
		x.ref(Ref{Name: last, Start: start, Call: call, Via: Package, Qual: `\`})
	case qual == "":
		x.ref(Ref{Name: last, Start: start, Call: call, Via: Bare})
	default:
		x.ref(Ref{Name: last, Start: start, Call: call, Via: Package, Qual: qual})
	}
}

func (x *phpX) newExpr(n *grammar.Node) {
	for _, c := range named(n) {
		switch c.Type() {
		case "name", "qualified_name":
			switch strings.ToLower(x.text(c)) {
			case "static", "self":
				if x.class != "" {
					x.ref(Ref{Name: x.class, Start: int(c.StartByte()), Call: true, Via: Bare})
				}
			case "parent":
				x.ref(Ref{Name: "__construct", Start: int(c.StartByte()), Call: true, Via: Super})
			default:
				x.typeRef(c, true)
			}
		case "declaration_list": // new class(...) extends X { ... }
			anon := x.anon
			x.anon = true
			x.walk(c)
			x.anon = anon
		case "base_clause", "class_interface_clause":
			for _, b := range named(c) {
				if isPHPName(b) {
					x.typeRef(b, false)
				}
			}
		default:
			x.walk(c)
		}
	}
}

// scopeValue is what a static access reaches: self:: and static:: the
// enclosing class, parent:: its bases, Foo:: the class as written, $x::
// the type of $x.
func (x *phpX) scopeValue(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	if n.Type() == "relative_scope" || isPHPName(n) {
		switch s := x.text(n); strings.ToLower(s) {
		case "self", "static":
			return self()
		case "parent":
			return reached(Super, "")
		default:
			return typed(s)
		}
	}
	return x.value(n)
}

// value is what the syntax shows of the type of expression n.
func (x *phpX) value(n *grammar.Node) Val { return x.vals.of(n, x.valueOf) }

func (x *phpX) valueOf(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "variable_name":
		name := phpVar(x.text(n))
		if name == "this" {
			return self()
		}
		v, _ := x.sc.lookup(name)
		return v
	case "parenthesized_expression", "clone_expression":
		if kids := named(n); len(kids) == 1 {
			return x.value(kids[0])
		}
	case "object_creation_expression":
		c := childOfType(n, "name", "qualified_name")
		if c == nil {
			return Val{}
		}
		switch s := x.text(c); strings.ToLower(s) {
		case "static", "self":
			return self()
		case "parent":
			return Val{}
		default:
			return typed(s)
		}
	case "member_access_expression", "nullsafe_member_access_expression",
		"member_call_expression", "nullsafe_member_call_expression":
		if name := field(n, "name"); name != nil && name.Type() == "name" {
			return x.value(field(n, "object")).Then(x.text(name))
		}
	case "scoped_call_expression":
		if name := field(n, "name"); name != nil && name.Type() == "name" {
			return x.scopeValue(field(n, "scope")).Then(x.text(name))
		}
	case "function_call_expression":
		if fn := field(n, "function"); isPHPName(fn) {
			if t := x.containerMake(fn, field(n, "arguments")); t != "" {
				return typed(t)
			}
			qual, last := splitQualified(x.text(fn), `\`)
			if qual == "" {
				return reached(Bare, "", last)
			}
			return reached(Package, qual, last)
		}
	}
	return Val{}
}

// containerMake is the class app(Foo::class) or resolve(Foo::class)
// returns from Laravel's container: the class the argument names.
func (x *phpX) containerMake(fn, args *grammar.Node) string {
	switch strings.TrimPrefix(x.text(fn), `\`) {
	case "app", "resolve":
	default:
		return ""
	}
	list := childrenOfType(args, "argument")
	if len(list) == 0 {
		return ""
	}
	c := childOfType(list[0], "class_constant_access_expression")
	if kids := named(c); len(kids) == 2 && x.text(kids[1]) == "class" && isPHPName(kids[0]) {
		return x.text(kids[0])
	}
	return ""
}
