package segment

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Member extraction for Rust, Java, C and C++, C#, PHP, Ruby and Bash
// (members.go has the walker side and Go, Python, JS/TS).

func rustMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	name := content(n.ChildByFieldName("name"), src)
	switch n.Type() {
	case "const_item":
		return []member{{name: name, kind: Const, node: outer}}
	case "static_item":
		return []member{{name: name, kind: Var, node: outer}}
	case "field_declaration":
		if inClass {
			return []member{{name: name, kind: Field, node: outer}}
		}
	case "enum_variant":
		return []member{{name: name, kind: EnumMember, node: outer}}
	case "function_signature_item":
		// A trait's required method: no body, a symbol in the outline.
		if inClass {
			return []member{{name: name, kind: Method, node: outer}}
		}
	}
	return nil
}

func javaMembers(n, outer, cls *sitter.Node, src []byte) []member {
	var out []member
	switch n.Type() {
	case "field_declaration", "constant_declaration":
		kind := Field
		mods := " " + content(childOfType(n, "modifiers"), src) + " "
		if n.Type() == "constant_declaration" || strings.Contains(mods, " static ") && strings.Contains(mods, " final ") {
			kind = Const
		}
		ds := children(n, "declarator")
		for _, d := range ds {
			out = append(out, member{name: content(d.ChildByFieldName("name"), src), kind: kind, node: outer})
		}
	case "annotation_type_element_declaration":
		// An annotation's element (`String value();`): its method.
		if cls != nil {
			out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: Method, node: outer})
		}
	case "enum_constant":
		out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: EnumMember, node: outer})
	case "record_declaration":
		name := content(n.ChildByFieldName("name"), src)
		if ps := n.ChildByFieldName("parameters"); ps != nil && name != "" {
			sibs := children(ps, "")
			for _, p := range sibs {
				if p.Type() == "formal_parameter" {
					out = append(out, member{name: content(p.ChildByFieldName("name"), src), kind: Field, node: p, sub: []string{name}, sibs: sibs})
				}
			}
		}
	}
	return out
}

// cDeclName digs the declared name out of a declarator; "" for a
// function declarator (a prototype or a method declaration).
func cDeclName(d *sitter.Node, src []byte) string {
	for d != nil {
		switch d.Type() {
		case "identifier", "field_identifier":
			return content(d, src)
		case "function_declarator", "qualified_identifier":
			return ""
		}
		next := d.ChildByFieldName("declarator")
		if next == nil && d.NamedChildCount() > 0 {
			next = d.NamedChild(0)
		}
		d = next
	}
	return ""
}

// cConst reports whether a declaration is const or constexpr.
func cConst(n *sitter.Node, src []byte) bool {
	for _, c := range children(n, "") {
		if c.Type() == "type_qualifier" && (content(c, src) == "const" || content(c, src) == "constexpr") {
			return true
		}
	}
	return false
}

func cMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	var out []member
	declarators := func(kind Kind) {
		ds := children(n, "declarator")
		for _, d := range ds {
			if name := cDeclName(d, src); name != "" {
				out = append(out, member{name: name, kind: kind, node: outer})
			}
		}
	}
	switch n.Type() {
	case "preproc_def":
		out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: Const, node: outer})
	case "declaration":
		if inClass {
			return nil
		}
		kind := Var
		if cConst(n, src) {
			kind = Const
		}
		declarators(kind)
	case "field_declaration":
		kind := Field
		if cConst(n, src) && childOfType(n, "storage_class_specifier") != nil {
			kind = Const
		}
		declarators(kind)
	case "enumerator":
		out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: EnumMember, node: outer})
	case "type_definition":
		// typedef struct { ... } Name: the struct's members belong to Name.
		t, d := n.ChildByFieldName("type"), n.ChildByFieldName("declarator")
		if t == nil || d == nil || d.Type() != "type_identifier" || t.ChildByFieldName("body") == nil {
			return nil
		}
		sub := []string{content(d, src)}
		// typedef struct GuardBytes {...} Guard: the tag names the type
		// too (`struct GuardBytes g;`).
		if tag := content(t.ChildByFieldName("name"), src); tag != "" && tag != sub[0] {
			kind := Struct
			if t.Type() == "enum_specifier" {
				kind = Enum
			}
			out = append(out, member{name: tag, kind: kind, node: outer})
		}
		sibs := children(t.ChildByFieldName("body"), "")
		for _, f := range sibs {
			for _, m := range cMembers(f, f, t, src) {
				m.sub, m.sibs = sub, sibs
				out = append(out, m)
			}
		}
	}
	return out
}

func csharpMembers(n, outer, cls *sitter.Node, src []byte) []member {
	var out []member
	switch n.Type() {
	case "field_declaration", "event_field_declaration":
		kind := Field
		for _, m := range children(n, "") {
			if m.Type() == "modifier" && content(m, src) == "const" {
				kind = Const
			}
		}
		if v := childOfType(n, "variable_declaration"); v != nil {
			ds := children(v, "")
			var named []*sitter.Node
			for _, d := range ds {
				if d.Type() == "variable_declarator" {
					named = append(named, d)
				}
			}
			for _, d := range named {
				out = append(out, member{name: content(d.ChildByFieldName("name"), src), kind: kind, node: outer})
			}
		}
	case "property_declaration", "event_declaration":
		out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: Field, node: outer})
	case "enum_member_declaration":
		out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: EnumMember, node: outer})
	}
	return out
}

// phpVar is a variable's name without its '$' ($this->title names title).
func phpVar(n *sitter.Node, src []byte) string {
	return strings.TrimPrefix(content(n, src), "$")
}

func phpMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	var out []member
	switch n.Type() {
	case "const_declaration":
		es := children(n, "")
		for _, e := range es {
			if e.Type() == "const_element" {
				out = append(out, member{name: content(childOfType(e, "name"), src), kind: Const, node: outer})
			}
		}
	case "property_declaration":
		var es []*sitter.Node
		for _, e := range children(n, "") {
			if e.Type() == "property_element" {
				es = append(es, e)
			}
		}
		for _, e := range es {
			out = append(out, member{name: phpVar(childOfType(e, "variable_name"), src), kind: Field, node: outer})
		}
	case "enum_case":
		out = append(out, member{name: content(n.ChildByFieldName("name"), src), kind: EnumMember, node: outer})
	case "method_declaration":
		// Constructor promotion declares properties in the parameter list.
		if !inClass || content(n.ChildByFieldName("name"), src) != "__construct" {
			return nil
		}
		if ps := n.ChildByFieldName("parameters"); ps != nil {
			sibs := children(ps, "")
			for _, p := range sibs {
				if p.Type() == "property_promotion_parameter" {
					out = append(out, member{name: phpVar(p.ChildByFieldName("name"), src), kind: Field, node: p, sibs: sibs})
				}
			}
		}
	case "expression_statement":
		if inClass || n.NamedChildCount() == 0 {
			return nil
		}
		switch e := n.NamedChild(0); e.Type() {
		case "assignment_expression":
			if l := e.ChildByFieldName("left"); l != nil && l.Type() == "variable_name" {
				out = append(out, member{name: phpVar(l, src), kind: Var, node: outer})
			}
		case "function_call_expression":
			// define('NAME', value)
			args := e.ChildByFieldName("arguments")
			if content(e.ChildByFieldName("function"), src) != "define" || args == nil || args.NamedChildCount() == 0 {
				return nil
			}
			if s := args.NamedChild(0).NamedChild(0); s != nil && (s.Type() == "string" || s.Type() == "encapsed_string") {
				out = append(out, member{name: unquote(content(s, src)), kind: Const, node: outer})
			}
		}
	}
	return out
}

func rubyMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	switch n.Type() {
	case "assignment":
		l := n.ChildByFieldName("left")
		switch {
		case l == nil:
		case l.Type() == "constant":
			return []member{{name: content(l, src), kind: Const, node: outer}}
		case l.Type() == "global_variable" && !inClass:
			return []member{{name: content(l, src), kind: Var, node: outer}}
		}
	case "call":
		switch content(n.ChildByFieldName("method"), src) {
		case "attr_accessor", "attr_reader", "attr_writer":
		default:
			return nil
		}
		args := n.ChildByFieldName("arguments")
		if !inClass || args == nil || n.ChildByFieldName("receiver") != nil {
			return nil
		}
		var out []member
		for _, a := range children(args, "") {
			if a.Type() == "simple_symbol" {
				out = append(out, member{name: strings.TrimPrefix(content(a, src), ":"), kind: Field, node: outer})
			}
		}
		return out
	}
	return nil
}

func bashMembers(n, outer, cls *sitter.Node, src []byte) []member {
	inClass := cls != nil
	if inClass {
		return nil
	}
	switch n.Type() {
	case "variable_assignment":
		return []member{{name: content(n.ChildByFieldName("name"), src), kind: Var, node: outer}}
	case "declaration_command":
		kind := Var
		switch content(n.Child(0), src) {
		case "local":
			return nil
		case "readonly":
			kind = Const
		case "declare", "typeset":
			for _, c := range children(n, "") {
				if t := content(c, src); c.Type() == "word" && strings.HasPrefix(t, "-") && strings.Contains(t, "r") {
					kind = Const
				}
			}
		}
		var out []member
		for _, c := range children(n, "") {
			switch c.Type() {
			case "variable_assignment":
				out = append(out, member{name: content(c.ChildByFieldName("name"), src), kind: kind, node: outer})
			case "variable_name":
				out = append(out, member{name: content(c, src), kind: kind, node: outer})
			}
		}
		return out
	}
	return nil
}
