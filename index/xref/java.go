package xref

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// Java: the package is File.Package; `import a.b.C` binds C (Spec the
// whole name, Member C), `import static a.b.C.m` binds m (Spec
// "a.b.C.m"), `import a.b.*` is a wildcard. Definitions are classes,
// interfaces, enums, records and annotation types (Container the outer
// type, Bases what they extend and implement), methods and constructors
// (named as their class), fields (const when static final), enum
// constants and record components.
//
// An unqualified call m() is Via Self (a method of the enclosing class or
// its bases) unless a static import binds m (Via Type, Qual the imported
// class); a member reached through this is Via Self, through super Via
// Super, through a local, parameter or field whose declared type the file
// shows Via Type, through a capitalised name that is no local (a static
// call Foo.m()) Via Type with Qual the name; through anything else Via
// Unknown. `var x = new Foo()` types x as Foo.

func init() { register(lang.Java, parseJava) }

type javaX struct {
	*builder
	vals  vals
	sc    *scope
	class string
	anon  bool
	// statics maps a static import's member to its class, as written.
	statics map[string]string
	// fieldTypes are the declared types of the fields of the classes
	// around ("Class.name"), read before a class's body, for overloads.
	fieldTypes map[string]string
	// tvars are the type variables in scope (class's, method's).
	tvars []string
}

func parseJava(src []byte) (*File, error) {
	tree, err := parse(lang.Java, src)
	if err != nil {
		return nil, err
	}
	x := &javaX{builder: newBuilder(src), sc: newScope(), statics: map[string]string{}, vals: vals{},
		fieldTypes: map[string]string{}}
	x.walk(tree.Root())
	return x.done(), nil
}

func (x *javaX) text(n *grammar.Node) string { return text(n, x.src) }

var javaClassKinds = map[string]string{"class_declaration": "class", "interface_declaration": "interface",
	"enum_declaration": "enum", "record_declaration": "record", "annotation_type_declaration": "interface"}

// capitalised reports whether s starts with an upper-case letter, as
// Java and C# type names do.
func capitalised(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

func (x *javaX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch t := n.Type(); t {
	case "line_comment", "block_comment", "string_literal", "character_literal", "text_block":
		return
	case "package_declaration":
		if c := childOfType(n, "scoped_identifier", "identifier"); c != nil {
			x.f.Package = x.text(c)
		}
	case "import_declaration":
		x.importDecl(n)
	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
		"annotation_type_declaration":
		x.classDecl(n, javaClassKinds[t])
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration",
		"annotation_type_element_declaration":
		x.method(n)
	case "field_declaration", "constant_declaration":
		x.fieldDecl(n)
	case "enum_constant":
		if name := field(n, "name"); name != nil && !x.anon {
			d := nodeDef(n, name, x.src, "const", x.class)
			d.Type = x.class
			x.def(d)
		}
		x.walk(field(n, "arguments"))
		x.anonBody(field(n, "body"))
	case "local_variable_declaration":
		x.varDecl(n, field(n, "type"))
	case "formal_parameter", "spread_parameter", "catch_formal_parameter", "resource":
		x.param(n)
	case "enhanced_for_statement":
		typ := field(n, "type")
		x.walk(typ)
		x.walk(field(n, "value"))
		if name := field(n, "name"); name != nil {
			x.sc.set(x.text(name), x.declared(typ, nil))
		}
		x.walk(field(n, "body"))
	case "lambda_expression":
		up := x.sc
		x.sc = up.push()
		params := field(n, "parameters")
		if params != nil && params.Type() == "identifier" {
			x.sc.set(x.text(params), Val{})
		} else {
			for _, p := range named(params) {
				if p.Type() == "identifier" {
					x.sc.set(x.text(p), Val{})
				} else {
					x.walk(p)
				}
			}
		}
		x.walk(field(n, "body"))
		x.sc = up
	case "block", "constructor_body", "switch_block", "for_statement", "try_with_resources_statement", "catch_clause":
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			x.walk(c)
		}
		x.sc = up
	case "method_invocation":
		x.invocation(n)
	case "explicit_constructor_invocation":
		if c := field(n, "constructor"); c != nil {
			via := Self
			if c.Type() == "super" {
				via = Super
			}
			if name := x.ctorName(via); name != "" {
				k := len(x.f.Refs)
				x.ref(Ref{Name: name, Start: int(c.StartByte()), Call: true, Via: via})
				x.setArgs(k, field(n, "arguments"))
			}
		}
		x.walk(field(n, "arguments"))
	case "method_reference":
		kids := named(n)
		if len(kids) == 2 && kids[1].Type() == "identifier" {
			x.walk(kids[0])
			k := len(x.f.Refs)
			x.member(x.text(kids[1]), int(kids[1].StartByte()), true, x.value(kids[0]))
			x.anyArgs(k) // Foo::bar: any overload may fit the functional interface
		}
	case "field_access":
		if x.packageQualified(n) != "" {
			return // a class written out with its package: a.b.C
		}
		obj, f := field(n, "object"), field(n, "field")
		x.walk(obj)
		if f != nil && f.Type() == "identifier" {
			x.member(x.text(f), int(f.StartByte()), false, x.value(obj))
		}
	case "object_creation_expression":
		typ := field(n, "type")
		k := len(x.f.Refs)
		x.typeRef(typ, true)
		x.setArgs(k, field(n, "arguments"))
		x.walk(field(n, "arguments"))
		x.anonBody(childOfType(n, "class_body"))
	case "identifier":
		x.mention(n)
	case "type_identifier", "scoped_type_identifier", "generic_type":
		x.typeRef(n, false)
	case "marker_annotation", "annotation":
		x.typeRef(field(n, "name"), false)
		x.walk(field(n, "arguments"))
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

func (x *javaX) importDecl(n *grammar.Node) {
	name := childOfType(n, "scoped_identifier", "identifier")
	if name == nil {
		return
	}
	spec := x.text(name)
	line := int(n.StartPoint().Row) + 1
	if childOfType(n, "asterisk") != nil {
		x.f.Imports = append(x.f.Imports, Import{Local: "*", Spec: spec + ".*", Line: line})
		return
	}
	_, last := splitQualified(spec, ".")
	x.f.Imports = append(x.f.Imports, Import{Local: last, Spec: spec, Member: last, Line: line})
	if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(x.text(n), "import")), "static") {
		class, _ := splitQualified(spec, ".")
		x.statics[last] = class
	}
}

// baseType is a type as written without its type arguments or array
// brackets: List for List<User>, a.b.C, Outer.Inner; "" for a primitive.
func (x *javaX) baseType(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "type_identifier", "scoped_type_identifier", "identifier", "scoped_identifier":
		s := x.text(n)
		if s == "var" {
			return ""
		}
		return s
	case "generic_type", "array_type", "annotated_type":
		if c := childOfType(n, "type_identifier", "scoped_type_identifier", "generic_type"); c != nil {
			return x.baseType(c)
		}
		return x.baseType(field(n, "element"))
	}
	return ""
}

// declared is the value of a variable of declared type typ, or of its
// initialiser when the type is var.
func (x *javaX) declared(typ, init *grammar.Node) Val {
	var v Val
	if t := x.baseType(typ); t != "" {
		v = typed(t)
	} else {
		v = x.value(init)
	}
	if v.decl = x.typeName(typ); v.decl == "" && init != nil {
		v.decl = x.argType(init)
	}
	return v
}

func (x *javaX) classDecl(n *grammar.Node, kind string) {
	name := field(n, "name")
	if name == nil {
		return
	}
	d := nodeDef(n, name, x.src, kind, x.class)
	var bases []*grammar.Node
	for _, c := range named(n) {
		switch c.Type() {
		case "superclass", "super_interfaces", "extends_interfaces":
			walk(c, func(b *grammar.Node) bool {
				switch b.Type() {
				case "type_identifier", "scoped_type_identifier", "generic_type":
					bases = append(bases, b)
					return false
				}
				return true
			})
		case "modifiers":
			x.walk(c)
		}
	}
	for _, b := range bases {
		d.Bases = append(d.Bases, x.baseType(b))
		x.walk(b)
	}
	if !x.anon {
		x.enter(x.def(d))
		defer x.leave()
	}
	outer := x.class
	x.class = d.Name
	defer func() { x.class = outer }()
	defer x.typeVars(field(n, "type_parameters"))()
	x.readFieldTypes(field(n, "body"))
	up := x.sc
	x.sc = newScope() // fields are reached through Self, not as locals
	defer func() { x.sc = up }()
	if kind == "record" {
		for _, p := range named(field(n, "parameters")) {
			if pn := field(p, "name"); pn != nil && !x.anon {
				f := nodeDef(p, pn, x.src, "field", d.Name)
				f.Type = x.baseType(field(p, "type"))
				x.def(f)
			}
			x.walk(field(p, "type"))
		}
	}
	x.walk(field(n, "type_parameters"))
	x.walk(field(n, "body"))
}

// anonBody walks the body of an anonymous class: its members are no
// definitions, its calls belong to the enclosing method.
func (x *javaX) anonBody(body *grammar.Node) {
	if body == nil {
		return
	}
	anon := x.anon
	x.anon = true
	x.walk(body)
	x.anon = anon
}

func (x *javaX) method(n *grammar.Node) {
	name := field(n, "name")
	if name == nil && n.Type() == "compact_constructor_declaration" {
		name = childOfType(n, "identifier")
	}
	defer x.typeVars(field(n, "type_parameters"))()
	if name != nil && !x.anon {
		d := nodeDef(n, name, x.src, "method", x.class)
		d.Type = x.baseType(field(n, "type"))
		d.Arity = javaArity(n)
		d.ParamTypes = x.paramTypes(n)
		x.enter(x.def(d))
		defer x.leave()
	}
	up := x.sc
	x.sc = up.push()
	defer func() { x.sc = up }()
	for _, c := range named(n) {
		if same(c, name) {
			continue
		}
		x.walk(c)
	}
}

func (x *javaX) param(n *grammar.Node) {
	typ := field(n, "type")
	if typ == nil {
		typ = childOfType(n, "catch_type", "type_identifier", "generic_type", "scoped_type_identifier")
	}
	if typ != nil && typ.Type() == "catch_type" {
		kids := named(typ)
		for _, k := range kids {
			x.walk(k)
		}
		if len(kids) == 1 {
			typ = kids[0]
		} else {
			typ = nil
		}
	} else {
		x.walk(typ)
	}
	name := field(n, "name")
	if name == nil {
		if d := childOfType(n, "variable_declarator"); d != nil {
			name = field(d, "name")
		}
	}
	x.walk(field(n, "value"))
	if name != nil {
		x.sc.set(x.text(name), x.declared(typ, field(n, "value")))
	}
}

func (x *javaX) varDecl(n, typ *grammar.Node) {
	x.walk(typ)
	for _, d := range childrenOfType(n, "variable_declarator") {
		init := field(d, "value")
		x.walk(init)
		if name := field(d, "name"); name != nil {
			x.sc.set(x.text(name), x.declared(typ, init))
		}
	}
}

func (x *javaX) fieldDecl(n *grammar.Node) {
	typ := field(n, "type")
	x.walk(childOfType(n, "modifiers"))
	x.walk(typ)
	mods := x.text(childOfType(n, "modifiers"))
	kind := "field"
	if strings.Contains(mods, "static") && strings.Contains(mods, "final") || n.Type() == "constant_declaration" {
		kind = "const"
	}
	decls := childrenOfType(n, "variable_declarator")
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
		x.walk(field(d, "value"))
	}
}

// ctorName is the constructor this(...) or super(...) calls.
func (x *javaX) ctorName(via Via) string {
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

func lastPart(s, sep string) string {
	_, last := splitQualified(s, sep)
	return last
}

// typeKinds reports whether kind is a class-like definition kind.
func typeKinds(kind string) bool {
	switch kind {
	case "class", "interface", "enum", "record", "struct", "trait":
		return true
	}
	return false
}

func (x *javaX) invocation(n *grammar.Node) {
	obj, name := field(n, "object"), field(n, "name")
	x.walk(field(n, "type_arguments"))
	if name == nil {
		return
	}
	x.walk(obj)
	k := len(x.f.Refs)
	switch {
	case obj == nil:
		if class, ok := x.statics[x.text(name)]; ok {
			x.ref(nameRef(name, x.src, true, Type, class))
		} else {
			x.ref(nameRef(name, x.src, true, Self, ""))
		}
	default:
		x.member(x.text(name), int(name.StartByte()), true, x.value(obj))
	}
	x.setArgs(k, field(n, "arguments"))
	x.walk(field(n, "arguments"))
}

// mention refers to a name read in an expression: a class (capitalised)
// or a field of the enclosing class, unless a local.
func (x *javaX) mention(n *grammar.Node) {
	name := x.text(n)
	if _, ok := x.sc.lookup(name); ok {
		return
	}
	if p := n.Parent(); p != nil {
		switch p.Type() {
		case "field_access", "method_invocation", "method_reference", "scoped_identifier",
			"labeled_statement", "break_statement", "continue_statement", "element_value_pair":
			if !capitalised(name) || p.Type() != "field_access" && p.Type() != "method_invocation" && p.Type() != "method_reference" {
				return
			}
		}
	}
	if capitalised(name) {
		x.ref(nameRef(n, x.src, false, Bare, ""))
		return
	}
	if x.class != "" {
		x.ref(nameRef(n, x.src, false, Self, ""))
	}
}

// typeRef refers to the type a type node names (Call for `new`).
func (x *javaX) typeRef(n *grammar.Node, call bool) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "type_identifier":
		if x.text(n) != "var" {
			x.ref(nameRef(n, x.src, call, Bare, ""))
		}
	case "scoped_type_identifier":
		qual, last := splitQualified(x.text(n), ".")
		x.ref(Ref{Name: last, Start: int(n.EndByte()) - len(last), Call: call, Via: Type, Qual: qual})
	case "generic_type":
		for _, c := range named(n) {
			if c.Type() == "type_arguments" {
				x.walk(c)
			} else {
				x.typeRef(c, call)
			}
		}
	default:
		x.walk(n)
	}
}

// value is what the syntax shows of the type of expression n.
func (x *javaX) value(n *grammar.Node) Val { return x.vals.of(n, x.valueOf) }

func (x *javaX) valueOf(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "this":
		return self()
	case "super":
		return reached(Super, "")
	case "identifier":
		name := x.text(n)
		if v, ok := x.sc.lookup(name); ok {
			return v
		}
		if capitalised(name) {
			return typed(name)
		}
		if x.class != "" {
			return self().Then(name)
		}
	case "field_access":
		if t := x.packageQualified(n); t != "" {
			return typed(t)
		}
		if f := field(n, "field"); f != nil {
			return x.value(field(n, "object")).Then(x.text(f))
		}
	case "method_invocation":
		obj, name := field(n, "object"), field(n, "name")
		if name == nil {
			return Val{}
		}
		if obj == nil {
			if class, ok := x.statics[x.text(name)]; ok {
				return typed(class).Then(x.text(name))
			}
			return self().Then(x.text(name))
		}
		return x.value(obj).Then(x.text(name))
	case "object_creation_expression":
		// An anonymous class's members are its base's or override them:
		// new TypeToken<T>() {}.getType() calls TypeToken's.
		return typed(x.baseType(field(n, "type")))
	case "cast_expression":
		return typed(x.baseType(field(n, "type")))
	case "parenthesized_expression":
		if kids := named(n); len(kids) == 1 {
			return x.value(kids[0])
		}
	}
	return Val{}
}

// packageQualified is the type a field access written a.b.C names (a
// package-qualified class: lower-case parts, then a capitalised one, the
// first no local), or "".
func (x *javaX) packageQualified(n *grammar.Node) string {
	var parts []string
	c := n
	for c != nil && c.Type() == "field_access" {
		parts = append([]string{x.text(field(c, "field"))}, parts...)
		c = field(c, "object")
	}
	if c == nil || c.Type() != "identifier" {
		return ""
	}
	if _, ok := x.sc.lookup(x.text(c)); ok {
		return ""
	}
	parts = append([]string{x.text(c)}, parts...)
	last := len(parts) - 1
	if last < 2 || !capitalised(parts[last]) {
		return ""
	}
	for _, p := range parts[:last] {
		if capitalised(p) {
			return ""
		}
	}
	return strings.Join(parts, ".")
}
