package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// C and C++: #include is a wildcard import (Local "*": what the header
// defines, its inline functions, types and macros, is the file's; a
// function it only declares is matched to its unique definition elsewhere,
// marked as a guess). Definitions
// are functions (Type: the result's type name) and methods (Container the
// class, in its body or as Class::name outside it), structs, classes,
// unions and enums with their fields and enumerators, typedefs (Bases: the
// type they name), global variables and object-like macros (const).
// Prototypes are declarations, not definitions.
//
// A call through this-> is Via Self, through Class:: Via Type; an
// unqualified call in a method to a member the class declares in the file
// is Via Self, otherwise Bare; obj.m() and p->m() are Via Type when obj or
// p is a parameter, local or field whose declared type the file shows
// (T x; T *p; T x(...); auto p = new T; std::make_unique<T>()), else Via
// Unknown. A call of a local (a function pointer) is no reference.

func init() {
	register(lang.C, parseC)
	register(lang.CPP, parseCPP)
}

type cX struct {
	*builder
	sc    *scope
	class string
	// members are the members the file's classes declare, "Class.name".
	members map[string]bool
}

func parseC(src []byte) (*File, error)   { return parseCFamily(lang.C, src) }
func parseCPP(src []byte) (*File, error) { return parseCFamily(lang.CPP, src) }

func parseCFamily(language string, src []byte) (*File, error) {
	tree, err := parse(language, src)
	if err != nil {
		return nil, err
	}
	x := &cX{builder: newBuilder(src), sc: newScope(), members: map[string]bool{}}
	root := tree.Root()
	walk(root, func(n *grammar.Node) bool {
		switch n.Type() {
		case "class_specifier", "struct_specifier", "union_specifier":
			class := x.text(field(n, "name"))
			for _, m := range named(field(n, "body")) {
				if name := x.declName(field(m, "declarator")); name != nil {
					x.members[class+"."+x.text(name)] = true
				}
			}
		case "compound_statement", "expression_statement", "return_statement", "preproc_include", "comment":
			return false // no class is declared in a function body worth a member
		}
		return true
	})
	x.walk(root)
	return x.done(), nil
}

func (x *cX) text(n *grammar.Node) string { return text(n, x.src) }

// declName is the identifier a declarator declares (through pointers,
// references, arrays, function declarators, initialisers).
func (x *cX) declName(n *grammar.Node) *grammar.Node {
	for n != nil {
		switch n.Type() {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier", "destructor_name",
			"operator_name":
			return n
		case "parenthesized_declarator":
			kids := named(n)
			if len(kids) == 0 {
				return nil
			}
			n = kids[0]
		default:
			n = field(n, "declarator")
		}
	}
	return nil
}

// isFuncDecl reports whether a declarator declares a function.
func isFuncDecl(n *grammar.Node) bool {
	for n != nil {
		switch n.Type() {
		case "function_declarator":
			// (*fp)(int) declares a pointer to a function: a variable.
			d := field(n, "declarator")
			return d == nil || d.Type() != "parenthesized_declarator"
		case "identifier", "field_identifier", "qualified_identifier":
			return false
		case "parenthesized_declarator":
			return false // a pointer to a function is a variable
		}
		n = field(n, "declarator")
	}
	return false
}

// typeName is the type a type node names, without qualifiers or template
// arguments ("" for a primitive).
func (x *cX) typeName(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "type_identifier":
		return x.text(n)
	case "qualified_identifier":
		s := x.text(n)
		if i := strings.Index(s, "<"); i >= 0 {
			s = s[:i]
		}
		return s
	case "template_type":
		return x.typeName(field(n, "name"))
	case "struct_specifier", "class_specifier", "union_specifier", "enum_specifier":
		return x.text(field(n, "name"))
	}
	return ""
}

func (x *cX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch t := n.Type(); t {
	case "comment", "string_literal", "raw_string_literal", "char_literal", "system_lib_string":
		return
	case "preproc_include":
		if p := field(n, "path"); p != nil {
			x.f.Imports = append(x.f.Imports, Import{Local: "*", Spec: strings.Trim(x.text(p), `"<> `),
				Line: int(n.StartPoint().Row) + 1})
		}
	case "preproc_def":
		if name := field(n, "name"); name != nil {
			x.def(nodeDef(n, name, x.src, "const", ""))
		}
	case "preproc_function_def":
		return
	case "function_definition":
		x.function(n)
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		x.typeSpec(n, "")
	case "type_definition":
		typ := field(n, "type")
		typedef := ""
		for _, d := range named(n) {
			if same(d, typ) || d.Type() == "type_qualifier" {
				continue
			}
			if name := x.declName(d); name != nil && typedef == "" {
				typedef = x.text(name)
			}
		}
		inner := x.text(field(typ, "name"))
		if typ != nil && field(typ, "body") != nil {
			x.typeSpec(typ, typedef)
		} else {
			x.typeRef(typ)
		}
		for _, d := range named(n) {
			if same(d, typ) || d.Type() == "type_qualifier" {
				continue
			}
			if name := x.declName(d); name != nil && (inner != "" || field(typ, "body") == nil) && x.text(name) != inner {
				def := nodeDef(n, name, x.src, "type", "")
				def.Type = x.typeName(typ)
				if def.Type != "" {
					def.Bases = []string{def.Type}
				}
				x.def(def)
			}
		}
	case "declaration", "field_declaration":
		x.declaration(n)
	case "parameter_declaration", "optional_parameter_declaration":
		typ := field(n, "type")
		x.typeRef(typ)
		x.walk(field(n, "default_value"))
		if name := x.declName(field(n, "declarator")); name != nil {
			x.sc.set(x.text(name), typed(x.typeName(typ)))
		}
	case "compound_statement", "for_statement", "for_range_loop", "lambda_expression":
		up := x.sc
		x.sc = up.push()
		for _, c := range named(n) {
			x.walk(c)
		}
		x.sc = up
	case "call_expression":
		x.call(n)
	case "field_expression":
		arg, f := field(n, "argument"), field(n, "field")
		x.walk(arg)
		if f != nil && f.Type() == "field_identifier" {
			x.member(x.text(f), int(f.StartByte()), false, x.value(arg))
		}
	case "new_expression":
		if typ := field(n, "type"); typ != nil {
			x.typeRefCall(typ, true)
		}
		x.walk(field(n, "arguments"))
	case "identifier":
		name := x.text(n)
		if _, ok := x.sc.lookup(name); ok {
			return
		}
		if x.class != "" && x.members[x.class+"."+name] {
			x.ref(nameRef(n, x.src, false, Self, ""))
			return
		}
		x.ref(nameRef(n, x.src, false, Bare, ""))
	case "type_identifier", "qualified_identifier", "template_type":
		x.typeRef(n)
	case "namespace_definition", "linkage_specification":
		x.walk(field(n, "body"))
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

func (x *cX) typeSpec(n *grammar.Node, typedef string) {
	name := field(n, "name")
	body := field(n, "body")
	if body == nil {
		x.typeRef(name)
		return
	}
	kind := map[string]string{"class_specifier": "class", "struct_specifier": "struct", "union_specifier": "struct",
		"enum_specifier": "enum"}[n.Type()]
	var d Def
	switch {
	case name != nil:
		d = nodeDef(n, name, x.src, kind, "")
	case typedef != "":
		// typedef struct { ... } name_t: the struct is known by the typedef.
		d = Def{Name: typedef, Kind: kind, Start: int(n.StartByte()), End: int(n.EndByte())}
		d.NameStart = strings.Index(string(x.src[n.EndByte():]), typedef) + int(n.EndByte())
	default:
		for _, c := range named(body) {
			x.walk(c)
		}
		return
	}
	for _, b := range named(childOfType(n, "base_class_clause")) {
		if t := x.typeName(b); t != "" {
			d.Bases = append(d.Bases, t)
			x.typeRef(b)
		}
	}
	x.enter(x.def(d))
	defer x.leave()
	outer := x.class
	x.class = d.Name
	defer func() { x.class = outer }()
	for _, c := range named(body) {
		if c.Type() == "enumerator" {
			if en := field(c, "name"); en != nil {
				e := nodeDef(c, en, x.src, "const", d.Name)
				e.Type = d.Name
				x.def(e)
			}
			x.walk(field(c, "value"))
			continue
		}
		x.walk(c)
	}
}

func (x *cX) declaration(n *grammar.Node) {
	typ := field(n, "type")
	if typ != nil && field(typ, "body") != nil {
		x.typeSpec(typ, "")
	} else {
		x.typeRef(typ)
	}
	declared := x.typeName(typ)
	for _, d := range named(n) {
		if same(d, typ) || d.Type() == "storage_class_specifier" || d.Type() == "type_qualifier" ||
			d.Type() == "attribute_declaration" || d.Type() == "virtual" || d.Type() == "bitfield_clause" {
			continue
		}
		if isFuncDecl(d) {
			// A prototype: its parameter types are mentions.
			up := x.sc
			x.sc = up.push()
			walk(d, func(c *grammar.Node) bool {
				if c.Type() == "parameter_list" {
					x.walk(c)
					return false
				}
				return true
			})
			x.sc = up
			continue
		}
		name := x.declName(d)
		var init *grammar.Node
		if d.Type() == "init_declarator" {
			init = field(d, "value")
			x.walk(init)
		}
		for _, c := range named(d) { // constructor arguments, member initialisers
			if !same(c, init) && (c.Type() == "initializer_list" || c.Type() == "argument_list") {
				x.walk(c)
			}
		}
		if name == nil {
			continue
		}
		v := typed(declared)
		if typ != nil && typ.Type() == "placeholder_type_specifier" {
			v = x.value(init)
		}
		switch {
		case x.sc.up != nil:
			x.sc.set(x.text(name), v)
		case n.Type() == "field_declaration" && x.class != "":
			f := nodeDef(n, name, x.src, "field", x.class)
			f.Type = declared
			x.def(f)
		case n.Type() == "declaration":
			g := nodeDef(n, name, x.src, "var", "")
			g.Type = declared
			x.def(g)
		}
	}
}

func (x *cX) function(n *grammar.Node) {
	decl := field(n, "declarator")
	name := x.declName(decl)
	up := x.sc
	x.sc = up.push()
	defer func() { x.sc = up }()
	outer := x.class
	defer func() { x.class = outer }()
	if name != nil {
		container := x.class
		nameNode := name
		if name.Type() == "qualified_identifier" {
			container = lastPart(x.text(field(name, "scope")), "::")
			nameNode = field(name, "name")
			for nameNode != nil && nameNode.Type() == "qualified_identifier" {
				container = lastPart(x.text(field(nameNode, "scope")), "::")
				nameNode = field(nameNode, "name")
			}
		}
		if nameNode != nil {
			kind := "function"
			if container != "" {
				kind = "method"
			}
			d := nodeDef(n, nameNode, x.src, kind, container)
			if strings.HasPrefix(d.Name, "~") {
				d.NameStart++
				d.Name = d.Name[1:]
			}
			d.Type = x.typeName(field(n, "type"))
			x.enter(x.def(d))
			defer x.leave()
			x.class = container
		}
	}
	x.typeRef(field(n, "type"))
	walk(decl, func(c *grammar.Node) bool {
		if c.Type() == "parameter_list" {
			x.walk(c)
			return false
		}
		return true
	})
	for _, c := range named(n) {
		if c.Type() == "field_initializer_list" {
			for _, fi := range named(c) {
				for _, a := range named(fi) {
					if a.Type() != "field_identifier" {
						x.walk(a)
					}
				}
			}
		}
	}
	x.walk(field(n, "body"))
}

func (x *cX) call(n *grammar.Node) {
	fn := field(n, "function")
	switch {
	case fn == nil:
	case fn.Type() == "identifier":
		name := x.text(fn)
		if _, ok := x.sc.lookup(name); ok {
			break
		}
		if x.class != "" && x.members[x.class+"."+name] {
			x.ref(nameRef(fn, x.src, true, Self, ""))
		} else {
			x.ref(nameRef(fn, x.src, true, Bare, ""))
		}
	case fn.Type() == "field_expression":
		arg, f := field(fn, "argument"), field(fn, "field")
		x.walk(arg)
		if f != nil {
			x.member(x.text(f), int(f.StartByte()), true, x.value(arg))
		}
	case fn.Type() == "qualified_identifier":
		scope, name := field(fn, "scope"), field(fn, "name")
		for name != nil && name.Type() == "qualified_identifier" {
			scope, name = fn, field(name, "name")
		}
		if name != nil && name.Type() == "template_function" {
			name = field(name, "name")
		}
		if name != nil {
			qual := strings.TrimSuffix(x.text(fn)[:int(name.StartByte())-int(fn.StartByte())], "::")
			_ = scope
			x.ref(nameRef(name, x.src, true, Type, qual))
		}
	case fn.Type() == "template_function":
		if name := field(fn, "name"); name != nil {
			x.ref(nameRef(name, x.src, true, Bare, ""))
		}
	default:
		x.walk(fn)
	}
	x.walk(field(n, "arguments"))
}

// typeRef refers to the named types of a type node.
func (x *cX) typeRef(n *grammar.Node) { x.typeRefCall(n, false) }

func (x *cX) typeRefCall(n *grammar.Node, call bool) {
	walk(n, func(c *grammar.Node) bool {
		switch c.Type() {
		case "type_identifier":
			x.ref(nameRef(c, x.src, call, Bare, ""))
			call = false
			return false
		case "qualified_identifier":
			name := field(c, "name")
			for name != nil && name.Type() == "qualified_identifier" {
				name = field(name, "name")
			}
			if name != nil && name.Type() == "template_type" {
				x.walk(field(name, "arguments"))
				name = field(name, "name")
			}
			if name != nil {
				qual := strings.TrimSuffix(x.text(c)[:int(name.StartByte())-int(c.StartByte())], "::")
				x.ref(nameRef(name, x.src, call, Type, qual))
				call = false
			}
			return false
		case "primitive_type", "sized_type_specifier":
			return false
		}
		return true
	})
}

// value is what the syntax shows of the type of expression n.
func (x *cX) value(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "this":
		return self()
	case "identifier":
		name := x.text(n)
		if v, ok := x.sc.lookup(name); ok {
			return v
		}
		if x.class != "" && x.members[x.class+"."+name] {
			return self().Then(name)
		}
		return reached(Bare, "", name)
	case "field_expression":
		if f := field(n, "field"); f != nil {
			return x.value(field(n, "argument")).Then(x.text(f))
		}
	case "new_expression":
		return typed(x.typeName(field(n, "type")))
	case "pointer_expression", "parenthesized_expression":
		if kids := named(n); len(kids) > 0 {
			return x.value(kids[len(kids)-1])
		}
	case "call_expression":
		fn := field(n, "function")
		if fn != nil && fn.Type() == "qualified_identifier" {
			// std::make_unique<T>(...), std::make_shared<T>(...)
			if name := field(fn, "name"); name != nil && name.Type() == "template_function" {
				switch x.text(field(name, "name")) {
				case "make_unique", "make_shared":
					if args := named(field(name, "arguments")); len(args) == 1 {
						return typed(x.typeName(field(args[0], "type")))
					}
				}
			}
		}
		if fn != nil && fn.Type() == "identifier" {
			if _, ok := x.sc.lookup(x.text(fn)); !ok {
				return reached(Bare, "", x.text(fn))
			}
		}
	}
	return Val{}
}
