package xref

import (
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// Python: the module is the file (File.Package is ""). `import a.b` binds
// "a.b" (Local is the dotted name the code writes before a member; a.x is
// Via Package with Qual "a" too, a being bound as well),
// `import a.b as c` binds c, `from .m import x as y` binds y (Spec ".m",
// Member x), `from m import *` is a wildcard. Definitions are functions,
// classes (Bases: the superclasses, not keyword arguments), methods,
// class attributes and the attributes a method assigns to self (fields,
// with the type the syntax shows), module-level variables (const when
// written in capitals). Nested functions are locals of their function, not
// definitions.
//
// A member reached through a method's first parameter (self, cls) is Via
// Self, through super() Via Super, through an import binding Via Package,
// through a typed parameter (`x: Foo`, "Foo", Optional[Foo], Foo | None) Via
// Type, through a local assigned a call (`x = Foo()`) Via what that call
// reaches, with Chain; through a global name, Via Bare with Chain [name]
// (the resolver reads the name's definition); through anything else Via
// Unknown. A call of a local (a nested function, a parameter) is no
// reference.

func init() { register(lang.Python, parsePython) }

type pyX struct {
	*builder
	vals vals
	dots map[valKey][]string // names of dotted expressions (names)
	// moduleDepth is how many dotted parts the longest imported module
	// name has (os.path: 2).
	moduleDepth int
	sc          *scope
	class       string
	// method is set in a method's body, where self.x = v defines a field.
	method bool
	// fields are the attributes already defined, "Class.name".
	fields map[string]bool
	// modules are the dotted import bindings ("os.path", "np").
	modules map[string]bool
}

func parsePython(src []byte) (*File, error) {
	tree, err := parse(lang.Python, src)
	if err != nil {
		return nil, err
	}
	x := &pyX{builder: newBuilder(src), sc: newScope(), fields: map[string]bool{}, modules: map[string]bool{}, vals: vals{}, dots: map[valKey][]string{}}
	root := tree.Root()
	x.imports(root)
	x.walk(root)
	return x.done(), nil
}

func (x *pyX) text(n *grammar.Node) string { return text(n, x.src) }

// imports reads every import statement of the file, at any depth.
func (x *pyX) imports(root *grammar.Node) {
	walk(root, func(n *grammar.Node) bool {
		line := int(n.StartPoint().Row) + 1
		switch n.Type() {
		case "import_statement":
			for _, c := range named(n) {
				switch c.Type() {
				case "dotted_name":
					spec := x.text(c)
					x.f.Imports = append(x.f.Imports, Import{Local: spec, Spec: spec, Line: line})
					x.modules[spec] = true
					x.moduleDepth = max(x.moduleDepth, strings.Count(spec, ".")+1)
					if top, _, ok := strings.Cut(spec, "."); ok {
						x.modules[top] = true // import a.b binds a as well
					}
				case "aliased_import":
					spec, local := x.text(field(c, "name")), x.text(field(c, "alias"))
					x.f.Imports = append(x.f.Imports, Import{Local: local, Spec: spec, Line: line})
					x.modules[local] = true
				}
			}
			return false
		case "import_from_statement":
			mod := field(n, "module_name")
			spec := strings.Join(strings.Fields(x.text(mod)), "")
			for _, c := range named(n) {
				if same(c, mod) {
					continue
				}
				switch c.Type() {
				case "dotted_name":
					name := x.text(c)
					x.f.Imports = append(x.f.Imports, Import{Local: name, Spec: spec, Member: name, Line: line})
				case "aliased_import":
					x.f.Imports = append(x.f.Imports, Import{Local: x.text(field(c, "alias")), Spec: spec,
						Member: x.text(field(c, "name")), Line: line})
				case "wildcard_import":
					x.f.Imports = append(x.f.Imports, Import{Local: "*", Spec: spec, Line: line})
				}
			}
			return false
		case "module", "block", "if_statement", "elif_clause", "else_clause", "try_statement",
			"except_clause", "except_group_clause", "finally_clause", "with_statement", "for_statement",
			"while_statement", "function_definition", "class_definition", "decorated_definition":
			return true // statements that may hold an import
		}
		return false
	})
}

func (x *pyX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "comment", "import_statement", "import_from_statement", "future_import_statement",
		"global_statement", "nonlocal_statement", "string_start", "string_content", "string_end",
		"escape_sequence":
		return
	case "decorated_definition":
		for _, d := range childrenOfType(n, "decorator") {
			x.decorator(d)
		}
		x.walk(field(n, "definition"))
	case "class_definition":
		x.classDef(n)
	case "function_definition":
		x.funcDef(n)
	case "assignment":
		x.assign(n)
	case "augmented_assignment":
		x.walk(field(n, "right"))
		if left := field(n, "left"); left != nil && left.Type() != "identifier" {
			x.walk(left)
		}
	case "call":
		x.call(n)
	case "attribute":
		obj, attr := field(n, "object"), field(n, "attribute")
		if v, ok := x.dotted(n); ok {
			x.member(x.text(attr), int(attr.StartByte()), false, v)
			return
		}
		x.walk(obj)
		x.member(x.text(attr), int(attr.StartByte()), false, x.value(obj))
	case "identifier":
		x.mention(n)
	case "keyword_argument":
		x.walk(field(n, "value"))
	case "lambda":
		up := x.sc
		x.sc = up.push()
		x.bindAll(field(n, "parameters"))
		x.walk(field(n, "body"))
		x.sc = up
	case "list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression":
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			switch c.Type() {
			case "for_in_clause":
				x.walk(field(c, "right"))
				x.bindAll(field(c, "left"))
			case "if_clause":
				defer x.walk(c) // after the targets are bound
			}
		}
		x.walk(field(n, "body"))
		x.sc = up
	case "for_statement":
		x.walk(field(n, "right"))
		x.bindAll(field(n, "left"))
		x.walk(field(n, "body"))
		x.walk(field(n, "alternative"))
	case "as_pattern": // with ... as f, except E as e
		kids := named(n)
		if len(kids) == 0 {
			return
		}
		x.walk(kids[0])
		var v Val
		if n.Parent() != nil && n.Parent().Type() == "except_clause" {
			v = typed(x.typeName(kids[0]))
		} else if kids[0].Type() == "call" {
			// with Foo() as f: f is what Foo's __enter__ returns
			// (__aenter__ in an async with).
			enter := "__enter__"
			if w := withStatement(n); w != nil && strings.HasPrefix(x.text(w), "async") {
				enter = "__aenter__"
			}
			v = x.value(kids[0]).Then(enter)
		}
		for _, t := range childrenOfType(n, "as_pattern_target") {
			for _, id := range identifiers(t) {
				x.sc.set(x.text(id), v)
			}
		}
	case "type":
		x.typeRefs(n)
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

// identifiers lists the identifiers a binding target names.
func identifiers(n *grammar.Node) []*grammar.Node {
	var out []*grammar.Node
	walk(n, func(c *grammar.Node) bool {
		switch c.Type() {
		case "identifier":
			out = append(out, c)
		case "attribute", "subscript":
			return false
		}
		return true
	})
	return out
}

// bindAll declares the names a target or parameter list binds, of unknown
// types.
func (x *pyX) bindAll(n *grammar.Node) {
	for _, id := range identifiers(n) {
		x.sc.set(x.text(id), Val{})
	}
}

// mention refers to a name read in an expression, unless a local.
func (x *pyX) mention(n *grammar.Node) {
	name := x.text(n)
	if _, ok := x.sc.lookup(name); ok || name == "self" {
		return
	}
	x.ref(nameRef(n, x.src, false, Bare, ""))
}

func (x *pyX) decorator(d *grammar.Node) {
	for _, c := range named(d) {
		switch c.Type() {
		case "identifier":
			if _, ok := x.sc.lookup(x.text(c)); !ok {
				x.ref(nameRef(c, x.src, true, Bare, ""))
			}
		case "attribute":
			attr := field(c, "attribute")
			if v, ok := x.dotted(c); ok {
				x.member(x.text(attr), int(attr.StartByte()), true, v)
			} else {
				x.walk(field(c, "object"))
				x.member(x.text(attr), int(attr.StartByte()), true, x.value(field(c, "object")))
			}
		default:
			x.walk(c)
		}
	}
}

func (x *pyX) classDef(n *grammar.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	if x.sc.up != nil && !x.method && x.class == "" {
		// A class local to a function: a local name, no definition.
		x.sc.set(x.text(name), Val{})
	}
	d := nodeDef(n, name, x.src, "class", x.class)
	var bases []*grammar.Node
	for _, c := range named(field(n, "superclasses")) {
		switch c.Type() {
		case "identifier", "attribute":
			bases = append(bases, c)
			d.Bases = append(d.Bases, x.text(c))
		case "subscript": // Generic[T], Base[int]
			if v := field(c, "value"); v != nil {
				bases = append(bases, v)
				d.Bases = append(d.Bases, x.text(v))
			}
			x.walk(field(c, "subscript"))
		case "keyword_argument":
			x.walk(field(c, "value"))
		default:
			x.walk(c)
		}
	}
	for _, b := range bases {
		x.walk(b)
	}
	x.enter(x.def(d))
	defer x.leave()
	outer, method := x.class, x.method
	x.class, x.method = d.Name, false
	defer func() { x.class, x.method = outer, method }()
	up := x.sc
	x.sc = newScope() // a class body's names are no locals of its methods
	defer func() { x.sc = up }()
	body := field(n, "body")
	for _, c := range named(body) {
		if c.Type() == "expression_statement" {
			if a := childOfType(c, "assignment"); a != nil {
				x.classAttr(a)
				continue
			}
		}
		x.walk(c)
	}
}

// classAttr defines the attributes a class body assigns or annotates.
func (x *pyX) classAttr(a *grammar.Node) {
	left, typ, right := field(a, "left"), field(a, "type"), field(a, "right")
	x.walk(typ)
	x.walk(right)
	for _, id := range identifiers(left) {
		name := x.text(id)
		if x.fields[x.class+"."+name] {
			continue
		}
		x.fields[x.class+"."+name] = true
		kind := "field"
		if isConstName(name) {
			kind = "const"
		}
		d := nodeDef(a, id, x.src, kind, x.class)
		d.Type = x.typeName(typ)
		if d.Type == "" && right != nil && left.Type() == "identifier" {
			d.Type = x.resultType(right)
		}
		x.def(d)
	}
}

// isConstName reports whether name is written in capitals (MAX_SIZE).
func isConstName(name string) bool {
	return strings.ToUpper(name) == name && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

func (x *pyX) funcDef(n *grammar.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	nested := x.sc.up != nil
	if nested {
		x.sc.set(x.text(name), Val{}) // a nested function is a local name
	} else {
		kind := "function"
		if x.class != "" {
			kind = "method"
		}
		d := nodeDef(n, name, x.src, kind, x.class)
		d.Type = x.typeName(field(n, "return_type"))
		if x.class != "" && d.Type != "" && d.Type == x.selfAnnotation(n) {
			d.Type = x.class // def __enter__(self: T) -> T: the instance
		}
		x.enter(x.def(d))
		defer x.leave()
	}
	x.walk(field(n, "return_type"))
	up, method := x.sc, x.method
	x.sc = up.push()
	defer func() { x.sc, x.method = up, method }()
	isMethod := x.class != "" && !nested
	static := false
	if p := n.Parent(); p != nil && p.Type() == "decorated_definition" {
		for _, d := range childrenOfType(p, "decorator") {
			static = static || strings.TrimSpace(strings.TrimPrefix(x.text(d), "@")) == "staticmethod"
		}
	}
	for i, p := range named(field(n, "parameters")) {
		var id, typ, def *grammar.Node
		switch p.Type() {
		case "identifier":
			id = p
		case "typed_parameter":
			id, typ = childOfType(p, "identifier", "list_splat_pattern", "dictionary_splat_pattern"), field(p, "type")
		case "default_parameter", "typed_default_parameter":
			id, typ, def = field(p, "name"), field(p, "type"), field(p, "value")
		default:
			x.bindAll(p)
			continue
		}
		x.walk(typ)
		x.walk(def)
		if id == nil {
			continue
		}
		v := typed(x.typeName(typ))
		if i == 0 && isMethod && !static && id.Type() == "identifier" {
			v = self()
		}
		for _, name := range identifiers(id) {
			x.sc.set(x.text(name), v)
		}
	}
	x.method = isMethod
	x.walk(field(n, "body"))
}

// selfAnnotation is the annotation of a method's first parameter as
// typeName reads it (the T of `self: T`), or "".
func (x *pyX) selfAnnotation(fn *grammar.Node) string {
	params := named(field(fn, "parameters"))
	if len(params) == 0 || params[0].Type() != "typed_parameter" {
		return ""
	}
	return x.typeName(field(params[0], "type"))
}

// withStatement is the with statement an as_pattern of its items lies
// in, or nil.
func withStatement(n *grammar.Node) *grammar.Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "with_statement":
			return p
		case "with_item", "with_clause":
		default:
			return nil
		}
	}
	return nil
}

func (x *pyX) assign(n *grammar.Node) {
	left, typ, right := field(n, "left"), field(n, "type"), field(n, "right")
	x.walk(typ)
	x.walk(right)
	if left == nil {
		return
	}
	switch left.Type() {
	case "identifier":
		name := x.text(left)
		if x.sc.up == nil && x.class == "" {
			// A module-level variable: a definition, and a known value for
			// the code after it.
			kind := "var"
			if isConstName(name) {
				kind = "const"
			}
			if !x.fields["."+name] {
				x.fields["."+name] = true
				d := nodeDef(n, left, x.src, kind, "")
				d.Type = x.typeName(typ)
				if d.Type == "" {
					d.Type = x.resultType(right)
				}
				x.def(d)
			}
		}
		v := typed(x.typeName(typ))
		if !v.Known() {
			v = x.value(right)
		}
		x.sc.set(name, v)
	case "attribute":
		obj, attr := field(left, "object"), field(left, "attribute")
		if x.method && obj != nil && obj.Type() == "identifier" {
			if v, ok := x.sc.lookup(x.text(obj)); ok && v.Via == Self && len(v.Chain) == 0 {
				key := x.class + "." + x.text(attr)
				if !x.fields[key] {
					x.fields[key] = true
					d := nodeDef(n, attr, x.src, "field", x.class)
					d.Type = x.typeName(typ)
					if d.Type == "" {
						if rv := x.value(right); rv.Via == Type && len(rv.Chain) == 0 {
							d.Type = rv.Qual
						} else {
							d.Type = x.resultType(right)
						}
					}
					x.def(d)
				}
			}
		}
		x.walk(left)
	default:
		for _, id := range identifiers(left) {
			x.sc.set(x.text(id), Val{})
		}
		walk(left, func(c *grammar.Node) bool {
			if c.Type() == "attribute" || c.Type() == "subscript" {
				x.walk(c)
				return false
			}
			return true
		})
	}
}

// resultType is the type a call written `Foo(...)` or `mod.Foo(...)`
// gives a variable, as written: the callee's name, which the resolver
// reads as a class or a function whose result type it knows.
func (x *pyX) resultType(n *grammar.Node) string {
	if n == nil || n.Type() != "call" {
		return ""
	}
	fn := field(n, "function")
	if fn == nil {
		return ""
	}
	switch fn.Type() {
	case "identifier":
		if _, ok := x.sc.lookup(x.text(fn)); ok {
			return ""
		}
		return x.text(fn)
	case "attribute":
		if _, ok := x.dotted(fn); ok {
			return x.text(fn)
		}
	}
	return ""
}

func (x *pyX) call(n *grammar.Node) {
	fn, args := field(n, "function"), field(n, "arguments")
	switch {
	case fn == nil:
	case fn.Type() == "identifier":
		name := x.text(fn)
		if _, ok := x.sc.lookup(name); !ok {
			x.ref(nameRef(fn, x.src, true, Bare, ""))
		}
	case fn.Type() == "attribute":
		obj, attr := field(fn, "object"), field(fn, "attribute")
		if v, ok := x.dotted(fn); ok {
			x.member(x.text(attr), int(attr.StartByte()), true, v)
			break
		}
		x.walk(obj)
		x.member(x.text(attr), int(attr.StartByte()), true, x.value(obj))
	default:
		x.walk(fn)
	}
	x.walk(args)
}

// dotted is the value of an attribute expression whose object is an
// import binding or a dotted prefix of one (os.path.join): Via Package,
// Qual the binding, with the members between it and the name as Chain.
func (x *pyX) dotted(attr *grammar.Node) (Val, bool) {
	parts := x.names(field(attr, "object"))
	// No module name has more parts than the deepest import.
	for k := min(len(parts), max(x.moduleDepth, 1)); k >= 1; k-- {
		if q := strings.Join(parts[:k], "."); x.modules[q] {
			return reached(Package, q, parts[k:]...), true
		}
	}
	return Val{}, false
}

// names are the names of a dotted expression a.b.c whose root is no local,
// root first; nil for any other expression. Each attribute's are worked
// out once from its object's, so a long chain costs its length.
func (x *pyX) names(n *grammar.Node) []string {
	if n == nil {
		return nil
	}
	k := valKey{n.StartByte(), n.EndByte(), n.Type()}
	if parts, ok := x.dots[k]; ok {
		return parts
	}
	var parts []string
	switch n.Type() {
	case "identifier":
		root := x.text(n)
		if _, local := x.sc.lookup(root); !local {
			parts = []string{root}
		}
	case "attribute":
		if obj := x.names(field(n, "object")); obj != nil {
			parts = append(slices.Clip(obj), x.text(field(n, "attribute")))
		}
	}
	x.dots[k] = parts
	return parts
}

// value is what the syntax shows of the type of expression n.
func (x *pyX) value(n *grammar.Node) Val { return x.vals.of(n, x.valueOf) }

func (x *pyX) valueOf(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "identifier":
		name := x.text(n)
		if v, ok := x.sc.lookup(name); ok {
			return v
		}
		if x.modules[name] {
			return reached(Package, name)
		}
		return reached(Bare, "", name)
	case "attribute":
		if v, ok := x.dotted(n); ok {
			return v.Then(x.text(field(n, "attribute")))
		}
		return x.value(field(n, "object")).Then(x.text(field(n, "attribute")))
	case "call":
		fn := field(n, "function")
		if fn != nil && fn.Type() == "identifier" && x.text(fn) == "super" {
			return reached(Super, "")
		}
		if fn != nil && fn.Type() == "identifier" {
			if v, ok := x.sc.lookup(x.text(fn)); ok && v.Via == Self && len(v.Chain) == 0 {
				return v // cls(): an instance of the class
			}
		}
		return x.value(fn)
	case "parenthesized_expression", "await":
		if kids := named(n); len(kids) == 1 {
			return x.value(kids[0])
		}
	}
	return Val{}
}

// typeName is the class an annotation names, as written: Foo, "Foo",
// mod.Foo, Optional[Foo], Foo | None; "" for anything else (list[Foo],
// Union[A, B], a scalar).
func (x *pyX) typeName(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "type":
		if kids := named(n); len(kids) == 1 {
			return x.typeName(kids[0])
		}
	case "identifier", "attribute":
		switch s := x.text(n); s {
		case "Self", "typing.Self", "typing_extensions.Self":
			return x.class
		case "None", "int", "str", "float", "bool", "bytes", "object", "Any", "dict", "list", "set", "tuple":
			return ""
		default:
			return s
		}
	case "string":
		s := strings.Trim(x.text(n), `"'`)
		if isDottedName(s) {
			return s
		}
	case "generic_type", "subscript":
		if head := x.text(childOfType(n, "identifier", "attribute")); head == "Optional" || head == "typing.Optional" {
			if p := childOfType(n, "type_parameter"); p != nil {
				if kids := named(p); len(kids) == 1 {
					return x.typeName(kids[0])
				}
			}
		}
	case "union_type", "binary_operator":
		var one string
		count := 0
		for _, c := range named(n) {
			if t := x.typeName(c); t != "" {
				one, count = t, count+1
			} else if x.text(c) != "None" {
				count += 2
			}
		}
		if count == 1 {
			return one
		}
	case "none":
		return ""
	}
	return ""
}

func isDottedName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// typeRefs refers to the classes an annotation names.
func (x *pyX) typeRefs(n *grammar.Node) {
	walk(n, func(c *grammar.Node) bool {
		switch c.Type() {
		case "identifier":
			x.mention(c)
		case "attribute":
			x.walk(c)
			return false
		case "string":
			if s := strings.Trim(x.text(c), `"'`); isDottedName(s) {
				qual, last := splitQualified(s, ".")
				start := int(c.StartByte()) + 1 + len(s) - len(last)
				switch {
				case qual == "":
					if _, ok := x.sc.lookup(s); !ok {
						x.ref(Ref{Name: last, Start: start, Via: Bare})
					}
				case x.modules[qual]:
					x.ref(Ref{Name: last, Start: start, Via: Package, Qual: qual})
				}
			}
			return false
		}
		return true
	})
}
