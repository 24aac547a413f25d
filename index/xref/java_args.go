package xref

import sitter "github.com/smacker/go-tree-sitter"

// Java overloads differ by their parameters: a method's Def carries the
// argument counts it takes (Arity), a call's Ref the count it passes
// (Args), so that the resolver can tell overloads apart.

// javaArity is the argument counts a method or constructor takes: one
// per formal parameter, any number more for a trailing varargs; nil for
// a compact constructor, whose parameters are the record's.
func javaArity(n *sitter.Node) *Arity {
	if n.Type() == "annotation_type_element_declaration" {
		return &Arity{}
	}
	params := field(n, "parameters")
	if params == nil {
		return nil
	}
	a := &Arity{}
	for _, p := range named(params) {
		switch p.Type() {
		case "formal_parameter":
			a.Min++
		case "spread_parameter":
			a.Max = -1
		}
	}
	if a.Max == 0 {
		a.Max = a.Min
	}
	return a
}

// argCount is the number of arguments an argument list holds.
func argCount(args *sitter.Node) int {
	n := 0
	for _, a := range named(args) {
		if t := a.Type(); t != "line_comment" && t != "block_comment" {
			n++
		}
	}
	return n
}

// setArgs gives the calls referred to since the k-th reference their
// argument count.
func (x *javaX) setArgs(k, n int) {
	for i := k; i < len(x.f.Refs); i++ {
		if x.f.Refs[i].Call {
			x.f.Refs[i].Args = n
		}
	}
}
