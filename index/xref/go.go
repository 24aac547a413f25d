package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

func init() {
	register(lang.Go, func(src []byte) (*File, error) { return parseGo(src, false) })
	registerDefs(lang.Go, func(src []byte) (*File, error) { return parseGo(src, true) })
}

// goX extracts one Go file. Locals (parameters, receivers, variables) live
// in scopes with the value the syntax shows for them; a name that is no
// local is a package-level name or an import binding.
type goX struct {
	b       *builder
	src     []byte
	sc      *scope
	imports map[string]bool // names the imports bind
	tparams map[string]bool // type parameters of the enclosing function
	vals    vals
	// defsOnly skips function bodies and initializers: no references.
	defsOnly bool
}

func parseGo(src []byte, defsOnly bool) (*File, error) {
	tree, err := parse(lang.Go, src)
	if err != nil {
		return nil, err
	}
	g := &goX{b: newBuilder(src), src: src, sc: newScope(), imports: map[string]bool{}, defsOnly: defsOnly, vals: vals{}}
	root := tree.Root()
	top := named(root)
	for _, n := range top {
		switch n.Type() {
		case "package_clause":
			for _, c := range named(n) {
				g.b.f.Package = text(c, src)
			}
		case "import_declaration":
			g.importDecl(n)
		}
	}
	for _, n := range top {
		switch n.Type() {
		case "function_declaration", "method_declaration":
			g.funcDecl(n)
		case "type_declaration":
			for _, s := range named(n) {
				g.typeSpec(s)
			}
		case "const_declaration", "var_declaration":
			g.valueDecl(n)
		case "package_clause", "import_declaration", "comment":
		default:
			g.visit(n)
		}
	}
	if g.defsOnly {
		g.b.f.Refs = nil
	}
	return g.b.done(), nil
}

func (g *goX) importDecl(n *grammar.Node) {
	walk(n, func(c *grammar.Node) bool {
		if c.Type() != "import_spec" {
			return true
		}
		spec := strings.Trim(text(field(c, "path"), g.src), "\"`")
		imp := Import{Spec: spec, Line: int(c.StartPoint().Row) + 1}
		switch name := field(c, "name"); {
		case name == nil:
			imp.Local = GoImportName(spec)
		case name.Type() == "dot":
			imp.Local = "."
		case name.Type() == "blank_identifier":
		default:
			imp.Local = text(name, g.src)
		}
		if imp.Local != "" && imp.Local != "." {
			g.imports[imp.Local] = true
		}
		g.b.f.Imports = append(g.b.f.Imports, imp)
		return false
	})
}

// GoImportName is the name an unaliased Go import binds, by convention the
// last element of its path without a major version or go-/-go; the
// resolver checks it against the package clause when it does not match.
func GoImportName(spec string) string {
	elems := strings.Split(spec, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	if i := strings.Index(name, ".v"); i > 0 {
		name = name[:i]
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "go-"), "-go")
	return strings.NewReplacer("-", "", ".", "").Replace(name)
}

// funcDecl defines a function or method and reads its body.
func (g *goX) funcDecl(n *grammar.Node) {
	name := field(n, "name")
	d := Def{Name: text(name, g.src), Kind: "function", Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(name.StartByte())}
	g.sc = g.sc.push()
	g.tparams = map[string]bool{}
	g.typeParams(field(n, "type_parameters"))
	var recvName string
	var recvType *grammar.Node
	if recv := field(n, "receiver"); recv != nil {
		d.Kind = "method"
		for _, p := range named(recv) {
			if p.Type() != "parameter_declaration" {
				continue
			}
			recvType = field(p, "type")
			d.Container = g.recvType(recvType)
			recvName = text(field(p, "name"), g.src)
		}
	}
	d.Type, _ = g.resultType(field(n, "result"))
	d.Results = g.results(field(n, "result"))
	i := g.b.def(d)
	g.b.enter(i)
	if recvName != "" {
		g.sc.set(recvName, typed(d.Container))
	}
	g.params(field(n, "parameters"))
	g.params(field(n, "result"))
	if !g.defsOnly {
		g.visit(field(n, "body"))
	}
	g.b.leave()
	g.sc = g.sc.up
	g.tparams = nil
}

// recvType is the base type name of a receiver (*T[K] -> T) and declares
// the receiver's type parameters.
func (g *goX) recvType(t *grammar.Node) string {
	for t != nil {
		switch t.Type() {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "generic_type":
			walk(field(t, "type_arguments"), func(c *grammar.Node) bool {
				if c.Type() == "type_identifier" {
					g.tparams[text(c, g.src)] = true
				}
				return true
			})
			t = field(t, "type")
		default:
			return text(t, g.src)
		}
	}
	return ""
}

func (g *goX) typeParams(n *grammar.Node) {
	for _, p := range named(n) {
		for _, c := range named(p) {
			if c.Type() == "identifier" {
				g.tparams[text(c, g.src)] = true
			}
		}
		g.types(field(p, "type"), false)
	}
}

// resultType is the base type of a function's (first) result.
func (g *goX) resultType(n *grammar.Node) (string, byte) {
	if n == nil {
		return "", 0
	}
	if n.Type() == "parameter_list" {
		for _, p := range named(n) {
			if p.Type() == "parameter_declaration" {
				return g.base(field(p, "type"))
			}
		}
		return "", 0
	}
	return g.base(n)
}

// results lists the base types of a result list of two or more.
func (g *goX) results(n *grammar.Node) []string {
	if n == nil || n.Type() != "parameter_list" {
		return nil
	}
	var out []string
	for _, p := range named(n) {
		if p.Type() != "parameter_declaration" {
			continue
		}
		b, _ := g.base(field(p, "type"))
		names := 0
		for _, c := range named(p) {
			if c.Type() == "identifier" {
				names++
			}
		}
		for i := 0; i < max(names, 1); i++ {
			out = append(out, b)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// params declares the names of a parameter list with their types and
// records the types as references.
func (g *goX) params(n *grammar.Node) {
	if n == nil || n.Type() != "parameter_list" {
		g.types(n, false)
		return
	}
	for _, p := range named(n) {
		t := field(p, "type")
		g.types(t, false)
		v := g.typeVal(t)
		if p.Type() == "variadic_parameter_declaration" && v.Known() {
			v.coll = 's'
		}
		for _, c := range named(p) {
			if c.Type() == "identifier" {
				g.sc.set(text(c, g.src), v)
			}
		}
	}
}

// base is the base type name of a type node ("T" for *T, []T, map[K]T,
// chan T; "pkg.T" qualified) and what collection holds it.
func (g *goX) base(t *grammar.Node) (string, byte) {
	var coll byte
	for t != nil {
		switch t.Type() {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "slice_type", "array_type", "implicit_length_array_type":
			t, coll = field(t, "element"), 's'
		case "map_type":
			t, coll = field(t, "value"), 'm'
		case "channel_type":
			t, coll = field(t, "value"), 'c'
		case "generic_type":
			t = field(t, "type")
		case "type_identifier", "qualified_type":
			return text(t, g.src), coll
		default:
			return "", 0
		}
	}
	return "", 0
}

// typeVal is the value of a variable declared with type t.
func (g *goX) typeVal(t *grammar.Node) Val {
	if v, ok := g.anonStruct(t); ok {
		return v
	}
	b, coll := g.base(t)
	if b == "" || g.tparams[b] {
		return Val{}
	}
	v := typed(b)
	v.coll = coll
	return v
}

// anonStruct is the value of an anonymous struct type, or a slice, array
// or map of one, with its fields' values.
func (g *goX) anonStruct(t *grammar.Node) (Val, bool) {
	var coll byte
	for t != nil {
		switch t.Type() {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "slice_type", "array_type", "implicit_length_array_type":
			t, coll = field(t, "element"), 's'
		case "map_type":
			t, coll = field(t, "value"), 'm'
		case "struct_type":
			v := Val{known: true, coll: coll, fields: map[string]Val{}}
			for _, list := range named(t) {
				for _, f := range named(list) {
					if f.Type() != "field_declaration" {
						continue
					}
					fv := g.typeVal(field(f, "type"))
					for _, c := range named(f) {
						if c.Type() == "field_identifier" {
							v.fields[text(c, g.src)] = fv
						}
					}
				}
			}
			return v, true
		default:
			return Val{}, false
		}
	}
	return Val{}, false
}

// types records the type names a type expression mentions.
func (g *goX) types(t *grammar.Node, call bool) {
	walk(t, func(c *grammar.Node) bool {
		switch c.Type() {
		case "type_identifier":
			if name := text(c, g.src); !g.tparams[name] {
				g.b.ref(Ref{Name: name, Start: int(c.StartByte()), Call: call})
			}
			return false
		case "qualified_type":
			pkg, name := field(c, "package"), field(c, "name")
			g.b.ref(Ref{Name: text(name, g.src), Start: int(name.StartByte()), Call: call, Via: Package, Qual: text(pkg, g.src)})
			return false
		case "generic_type":
			// F[T](x) parses as a conversion: F may be a function.
			g.types(field(c, "type"), call)
			g.types(field(c, "type_arguments"), false)
			return false
		case "parameter_declaration", "variadic_parameter_declaration", "field_declaration":
			g.types(field(c, "type"), false)
			return false
		case "method_elem":
			walk(field(c, "parameters"), func(p *grammar.Node) bool { g.types(field(p, "type"), false); return p == c })
			return false
		}
		call = false // only the outermost named type is instantiated
		return true
	})
}

// typeSpec defines a type, its fields or interface methods.
func (g *goX) typeSpec(n *grammar.Node) {
	if n.Type() != "type_spec" && n.Type() != "type_alias" {
		return
	}
	name := field(n, "name")
	t := field(n, "type")
	d := Def{Name: text(name, g.src), Kind: "type", Start: int(n.StartByte()), End: int(n.EndByte()), NameStart: int(name.StartByte())}
	g.tparams = map[string]bool{}
	g.typeParams(field(n, "type_parameters"))
	switch {
	case t == nil:
	case t.Type() == "struct_type":
		d.Kind = "struct"
	case t.Type() == "interface_type":
		d.Kind = "interface"
	case n.Type() == "type_alias":
		if b, _ := g.base(t); b != "" {
			d.Bases = []string{b}
		}
	default:
		// A named slice, map or other type: the base of its underlying
		// type, which indexing and ranging reach.
		d.Type, _ = g.base(t)
	}
	i := g.b.def(d)
	g.b.enter(i)
	switch d.Kind {
	case "struct":
		g.structFields(i, t)
	case "interface":
		g.ifaceMethods(i, t)
	default:
		g.types(t, false)
	}
	g.b.leave()
	g.tparams = nil
}

func (g *goX) structFields(i int, t *grammar.Node) {
	owner := g.b.f.Defs[i].Name
	for _, list := range named(t) {
		for _, f := range named(list) {
			if f.Type() != "field_declaration" {
				continue
			}
			ft := field(f, "type")
			g.types(ft, false)
			typ, _ := g.base(ft)
			names := 0
			for _, c := range named(f) {
				if c.Type() != "field_identifier" {
					continue
				}
				names++
				g.b.def(Def{Name: text(c, g.src), Kind: "field", Container: owner, Start: int(f.StartByte()),
					End: int(f.EndByte()), NameStart: int(c.StartByte()), Type: typ})
			}
			if names == 0 && typ != "" {
				// An embedded type: its fields and methods are promoted,
				// and it is a field named after the type.
				g.b.f.Defs[i].Bases = append(g.b.f.Defs[i].Bases, typ)
				short := typ[strings.LastIndexByte(typ, '.')+1:]
				g.b.def(Def{Name: short, Kind: "field", Container: owner, Start: int(f.StartByte()), End: int(f.EndByte()),
					NameStart: int(f.EndByte()) - len(short), Type: typ})
			}
		}
	}
}

func (g *goX) ifaceMethods(i int, t *grammar.Node) {
	owner := g.b.f.Defs[i].Name
	for _, m := range named(t) {
		switch m.Type() {
		case "method_elem", "method_spec":
			name := field(m, "name")
			typ, _ := g.resultType(field(m, "result"))
			g.b.def(Def{Name: text(name, g.src), Kind: "method", Container: owner, Start: int(m.StartByte()),
				End: int(m.EndByte()), NameStart: int(name.StartByte()), Type: typ})
			g.types(m, false)
		case "type_elem", "constraint_elem", "interface_type_name":
			if m.NamedChildCount() == 1 {
				if b, _ := g.base(m.NamedChild(0)); b != "" {
					g.b.f.Defs[i].Bases = append(g.b.f.Defs[i].Bases, b)
				}
			}
			g.types(m, false)
		}
	}
}

// valueDecl defines package-level constants and variables.
func (g *goX) valueDecl(n *grammar.Node) {
	kind := "var"
	if n.Type() == "const_declaration" {
		kind = "const"
	}
	walk(n, func(s *grammar.Node) bool {
		if s.Type() != "const_spec" && s.Type() != "var_spec" {
			return true
		}
		t := field(s, "type")
		typ, _ := g.base(t)
		values := named(field(s, "value"))
		first := -1
		k := 0
		for _, c := range s.Children() {
			id := c
			if id.Type() != "identifier" || c.Field() != "name" {
				continue
			}
			d := Def{Name: text(id, g.src), Kind: kind, Start: int(s.StartByte()), End: int(s.EndByte()),
				NameStart: int(id.StartByte()), Type: typ}
			if typ == "" && k < len(values) {
				if v := g.valOf(values[k]); v.Via == Type && len(v.Chain) == 0 {
					d.Type = v.Qual
				}
			}
			k++
			if i := g.b.def(d); first < 0 {
				first = i
			}
		}
		if first >= 0 {
			g.b.enter(first)
		}
		g.types(t, false)
		if !g.defsOnly {
			g.visit(field(s, "value"))
		}
		if first >= 0 {
			g.b.leave()
		}
		return false
	})
}
