package segment

import (
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
)

// member is one member symbol a declaration names: its name and kind, the
// node its span covers, and the parents it has below the walker's scope
// (a struct's name for its fields, an object's name for its methods).
type member struct {
	name string
	kind Kind
	node *sitter.Node
	sub  []string
	// sibs are node's siblings, in order, when node is not the declaration
	// the walker visits: the comments above it among them are its doc.
	sibs []*sitter.Node
}

// addMembers records ms as symbols under parents. A name declared twice in
// one scope (a reassigned module variable, `self.x` set in two branches)
// keeps its first declaration; a method's overloads (an interface's) are
// each a declaration.
func (w *walker) addMembers(ms []member, outer *sitter.Node, parents []string) {
	if w.spend(len(ms)) {
		return
	}
	for _, m := range ms {
		if m.name == "" || m.node == nil {
			continue
		}
		ps := append(append([]string(nil), parents...), m.sub...)
		key := strings.Join(append(ps, m.name), "\x00")
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		if w.seen[key] && m.kind != Method {
			continue
		}
		w.seen[key] = true
		start := w.docAbove(m.node, m.sibs)
		if m.node.StartByte() == outer.StartByte() && m.node.EndByte() == outer.EndByte() {
			start = w.pendingDoc(outer)
		}
		seg := span(w.src, w.ls, m.kind, start, int(m.node.EndByte()))
		first := w.text(m.node)
		if nl := strings.IndexByte(first, '\n'); nl >= 0 {
			first = first[:nl]
		}
		w.syms = append(w.syms, Symbol{Name: m.name, Kind: m.kind, Parents: ps,
			Signature: collapse(strings.TrimRight(first, " \t\r{"), 200),
			StartByte: seg.StartByte, EndByte: seg.EndByte, StartLine: seg.StartLine, EndLine: seg.EndLine})
	}
}

// pendingDoc is where n starts with the comments and attributes directly
// above it, which the walker holds as pending (see docStart).
func (w *walker) pendingDoc(n *sitter.Node) int {
	if len(w.pending) == 0 || w.detached(n) {
		return int(n.StartByte())
	}
	return int(w.pending[0].StartByte())
}

// docAbove is where n starts with the comments and attributes directly
// above it among its siblings sibs; a comment that trails code on its own
// line belongs to that code.
func (w *walker) docAbove(n *sitter.Node, sibs []*sitter.Node) int {
	start, row := int(n.StartByte()), n.StartPoint().Row
	i := sort.Search(len(sibs), func(i int) bool { return sibs[i].StartByte() >= n.StartByte() })
	if i == len(sibs) || sibs[i].StartByte() != n.StartByte() {
		return start
	}
	note := func(x *sitter.Node) bool { return w.comment(x) || w.sp.attrs[x.Type()] }
	for j := i - 1; j >= 0 && note(sibs[j]) && sibs[j].EndPoint().Row+1 >= row && sibs[j].EndPoint().Row < row; j-- {
		if w.trails(int(sibs[j].StartByte())) {
			break
		}
		start, row = int(sibs[j].StartByte()), sibs[j].StartPoint().Row
	}
	return start
}

// trails reports whether code precedes offset off on its line: a comment
// there remarks on that code (`A = 1 // why`, `const /* kinds */ (`).
func (w *walker) trails(off int) bool {
	for i := off - 1; i >= 0 && w.src[i] != '\n'; i-- {
		if w.src[i] != ' ' && w.src[i] != '\t' && w.src[i] != '\r' {
			return true
		}
	}
	return false
}

// children returns n's named children, or those under field when field is
// not "", in one pass (see grammar.Children).
func children(n *sitter.Node, field string) []*sitter.Node {
	if field == "" {
		return grammar.Named(n)
	}
	var out []*sitter.Node
	for _, c := range grammar.Children(n) {
		if c.Field == field && c.Node.IsNamed() {
			out = append(out, c.Node)
		}
	}
	return out
}

// hasToken reports whether one of n's children, named or not, is of type typ.
func hasToken(n *sitter.Node, typ string) bool {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if c.CurrentNode().Type() == typ {
			return true
		}
	}
	return false
}

// childOfType is n's first named child of type typ, or nil.
func childOfType(n *sitter.Node, typ string) *sitter.Node {
	for _, c := range children(n, "") {
		if c.Type() == typ {
			return c
		}
	}
	return nil
}

func content(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	return n.Content(src)
}

// upperName reports whether s is written as a constant (MAX_SIZE).
func upperName(s string) bool {
	letter := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			return false
		case r >= 'A' && r <= 'Z':
			letter = true
		}
	}
	return letter
}

// spanOf is outer when the declaration names one thing, else the part
// that names it: a grouped `const ( ... )` gives each name its own lines.
// (A declaration that names several things on one line, `int a, b;`,
// gives each the whole declaration, doc comment included.)
func spanOf(one bool, outer, part *sitter.Node) *sitter.Node {
	if one {
		return outer
	}
	return part
}

func goMembers(n, outer, cls *sitter.Node, src []byte) []member {
	var out []member
	switch n.Type() {
	case "const_declaration", "var_declaration":
		kind := Const
		if n.Type() == "var_declaration" {
			kind = Var
		}
		sibs := children(n, "")
		if len(sibs) == 1 && sibs[0].Type() == "var_spec_list" {
			sibs = children(sibs[0], "")
		}
		// `const (` has its specs among its children, `var (` in a list.
		grouped := n.NamedChildCount() > 0 && n.NamedChild(0).Type() == "var_spec_list" || hasToken(n, "(")
		for _, s := range sibs {
			if s.Type() != "const_spec" && s.Type() != "var_spec" {
				continue
			}
			for _, name := range children(s, "name") {
				out = append(out, member{name: content(name, src), kind: kind, node: spanOf(!grouped, outer, s), sibs: sibs})
			}
		}
	case "type_declaration":
		for _, s := range children(n, "") {
			name, t := s.ChildByFieldName("name"), s.ChildByFieldName("type")
			if s.Type() != "type_spec" || name == nil || t == nil {
				continue
			}
			if t.Type() == "interface_type" {
				// An interface's methods, as Java's and TypeScript's
				// body-less members are: symbols in its outline.
				sibs := children(t, "")
				for _, m := range sibs {
					if m.Type() == "method_elem" {
						out = append(out, member{name: content(m.ChildByFieldName("name"), src), kind: Method, node: m,
							sub: []string{content(name, src)}, sibs: sibs})
					}
				}
				continue
			}
			if t.Type() != "struct_type" {
				continue
			}
			list := childOfType(t, "field_declaration_list")
			if list == nil {
				continue
			}
			sibs := children(list, "")
			for _, f := range sibs {
				if f.Type() != "field_declaration" {
					continue
				}
				for _, fn := range children(f, "name") {
					out = append(out, member{name: content(fn, src), kind: Field, node: f, sub: []string{content(name, src)}, sibs: sibs})
				}
			}
		}
	}
	return out
}

func pythonMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	switch {
	case n.Type() == "expression_statement":
		kind := Var
		if inClass {
			kind = Field
			sup := content(cls.ChildByFieldName("superclasses"), src)
			if strings.Contains(sup, "Enum") || strings.Contains(sup, "Flag") {
				kind = EnumMember
			}
		}
		var out []member
		for _, name := range pythonTargets(n, src) {
			k := kind
			if upperName(name) && kind != EnumMember {
				k = Const
			}
			out = append(out, member{name: name, kind: k, node: outer})
		}
		return out
	case inClass && n.Type() == "function_definition" && content(n.ChildByFieldName("name"), src) == "__init__":
		// Instance attributes are declared by assigning them in __init__.
		var out []member
		var scan func(b *sitter.Node)
		scan = func(b *sitter.Node) {
			sibs := children(b, "")
			for _, st := range sibs {
				switch st.Type() {
				case "expression_statement":
					a := childOfType(st, "assignment")
					if a == nil {
						continue
					}
					if l := a.ChildByFieldName("left"); l != nil && l.Type() == "attribute" && content(l.ChildByFieldName("object"), src) == "self" {
						out = append(out, member{name: content(l.ChildByFieldName("attribute"), src), kind: Field, node: st, sibs: sibs})
					}
				case "if_statement", "else_clause", "elif_clause", "try_statement", "except_clause", "finally_clause",
					"with_statement", "for_statement", "while_statement", "block":
					scan(st)
				}
			}
		}
		if b := n.ChildByFieldName("body"); b != nil {
			scan(b)
		}
		return out
	}
	return nil
}

// pythonTargets are the plain names an assignment statement binds.
func pythonTargets(n *sitter.Node, src []byte) []string {
	a := childOfType(n, "assignment")
	if a == nil {
		return nil
	}
	l := a.ChildByFieldName("left")
	if l == nil {
		return nil
	}
	switch l.Type() {
	case "identifier":
		return []string{content(l, src)}
	case "pattern_list", "tuple_pattern":
		var out []string
		for _, c := range children(l, "") {
			if c.Type() == "identifier" {
				out = append(out, content(c, src))
			}
		}
		return out
	}
	return nil
}

// jsFunction reports whether a value node is a function.
func jsFunction(v *sitter.Node) bool {
	if v == nil {
		return false
	}
	switch v.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// jsName is a member's name without the '#' of a private one: code calls
// this.#m(), but a selector's '#' starts tags, and search matches words.
func jsName(n *sitter.Node, src []byte) string {
	return strings.TrimPrefix(content(n, src), "#")
}

func jsMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	switch n.Type() {
	case "public_field_definition", "field_definition":
		name := n.ChildByFieldName("name")
		if name == nil {
			name = n.ChildByFieldName("property")
		}
		kind := Field
		if jsFunction(n.ChildByFieldName("value")) {
			kind = Method
		}
		return []member{{name: jsName(name, src), kind: kind, node: outer}}
	case "method_definition":
		// TypeScript parameter properties: constructor(private repo: Repo).
		if !inClass || content(n.ChildByFieldName("name"), src) != "constructor" {
			return nil
		}
		var out []member
		sibs := children(n.ChildByFieldName("parameters"), "")
		for _, p := range sibs {
			if childOfType(p, "accessibility_modifier") != nil || strings.HasPrefix(content(p, src), "readonly ") {
				if name := p.ChildByFieldName("pattern"); name != nil && name.Type() == "identifier" {
					out = append(out, member{name: content(name, src), kind: Field, node: p, sibs: sibs})
				}
			}
		}
		return out
	case "property_signature":
		return []member{{name: jsName(n.ChildByFieldName("name"), src), kind: Field, node: outer}}
	case "enum_assignment":
		return []member{{name: content(n.ChildByFieldName("name"), src), kind: EnumMember, node: n}}
	case "property_identifier":
		if inClass && cls.Type() == "enum_declaration" {
			return []member{{name: content(n, src), kind: EnumMember, node: n}}
		}
	case "assignment_expression":
		// `Axios.prototype.request = function (...) {...}`, `axios.all =
		// (p) => ...`: a method of the object, prototype left out.
		left := n.ChildByFieldName("left")
		if inClass || left == nil || left.Type() != "member_expression" || !jsFunction(n.ChildByFieldName("right")) {
			return nil
		}
		obj, prop := left.ChildByFieldName("object"), left.ChildByFieldName("property")
		if obj == nil || prop == nil || obj.Type() != "identifier" && obj.Type() != "member_expression" {
			return nil
		}
		var sub []string
		switch path := strings.TrimSuffix(content(obj, src), ".prototype"); path {
		case "prototype", "exports", "module.exports":
			// A prototype bound to a name, a CommonJS export: no parent.
		case "module":
			return nil // module.exports = function: the module, not a method
		default:
			sub = strings.Split(path, ".")
		}
		return []member{{name: jsName(prop, src), kind: Method, node: outer, sub: sub}}
	case "lexical_declaration", "variable_declaration":
		if inClass {
			return nil
		}
		kind := Var
		if n.ChildCount() > 0 && n.Child(0).Type() == "const" {
			kind = Const
		}
		decls := children(n, "")
		var out []member
		for _, d := range decls {
			name, v := d.ChildByFieldName("name"), d.ChildByFieldName("value")
			if d.Type() != "variable_declarator" || name == nil {
				continue
			}
			if name.Type() != "identifier" {
				// A destructuring (`export const { GET, POST } = handlers()`)
				// defines each name it binds, with the declaration's span.
				for _, b := range jsBindings(name, src, nil) {
					out = append(out, member{name: b, kind: kind, node: outer})
				}
				continue
			}
			if jsFunction(v) && len(decls) == 1 {
				continue // a function chunk of its own (jsSpecial)
			}
			out = append(out, member{name: content(name, src), kind: kind, node: outer})
			out = append(out, jsObject(v, src, []string{content(name, src)})...)
		}
		return out
	}
	return nil
}

// jsBindings appends the names a destructuring pattern binds: `{ a, b: c,
// d = 1, ...e }` binds a, c, d and e; `[x, [y], ...z]` x, y and z.
func jsBindings(p *sitter.Node, src []byte, out []string) []string {
	if p == nil {
		return out
	}
	switch p.Type() {
	case "identifier", "shorthand_property_identifier_pattern":
		return append(out, content(p, src))
	case "pair_pattern":
		return jsBindings(p.ChildByFieldName("value"), src, out)
	case "object_assignment_pattern", "assignment_pattern":
		return jsBindings(p.ChildByFieldName("left"), src, out)
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, c := range children(p, "") {
			out = jsBindings(c, src, out)
		}
	}
	return out
}

// jsObject lists the methods of an object literal bound to a name
// (`const api = { get() {}, post: (x) => x }`), nested objects included.
func jsObject(v *sitter.Node, src []byte, sub []string) []member {
	for v != nil && (v.Type() == "as_expression" || v.Type() == "satisfies_expression" || v.Type() == "parenthesized_expression") {
		v = v.NamedChild(0)
	}
	if v == nil || v.Type() != "object" {
		return nil
	}
	var out []member
	sibs := children(v, "")
	for _, p := range sibs {
		switch p.Type() {
		case "method_definition":
			out = append(out, member{name: jsName(p.ChildByFieldName("name"), src), kind: Method, node: p, sub: sub, sibs: sibs})
		case "pair":
			k, val := p.ChildByFieldName("key"), p.ChildByFieldName("value")
			if k == nil || k.Type() != "property_identifier" && k.Type() != "string" {
				continue
			}
			key := unquote(content(k, src))
			if jsFunction(val) {
				out = append(out, member{name: key, kind: Method, node: p, sub: sub, sibs: sibs})
			} else {
				out = append(out, jsObject(val, src, append(append([]string(nil), sub...), key))...)
			}
		}
	}
	return out
}

// jsSymbolName names private members without their '#'.
func jsSymbolName(n *sitter.Node, src []byte) (string, []string) {
	if name := n.ChildByFieldName("name"); name != nil && name.Type() == "private_property_identifier" {
		return jsName(name, src), nil
	}
	return "", nil
}
