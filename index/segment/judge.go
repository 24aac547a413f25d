package segment

import sitter "github.com/smacker/go-tree-sitter"

// The walker's small judgements about one node: whether it is a comment,
// an overload signature, a definition, a type declared in a class body.

// overloaded reports whether the signature n is followed, past comments,
// by a function or another signature of its name: the last one of an
// overload set takes the others into its span.
func (w *walker) overloaded(n *sitter.Node) bool {
	name, _ := w.nameOf(n)
	for _, s := range w.after {
		if w.comment(s) {
			continue
		}
		u := w.unwrap(s)
		other, _ := w.nameOf(u)
		return other == name && w.sp.funcs[u.Type()]
	}
	return false
}

// definition reports whether n, unwrapped, is a function or class.
func (w *walker) definition(n *sitter.Node) bool {
	t := w.unwrap(n).Type()
	return w.sp.funcs[t] || w.sp.classes[t] != ""
}

// nestedType is the type a C or C++ class body declares in a field
// declaration of no field (`class Iterator {...};` in a class), or nil.
func (w *walker) nestedType(n *sitter.Node) *sitter.Node {
	if n.Type() != "field_declaration" || n.ChildByFieldName("declarator") != nil {
		return nil
	}
	if t := n.ChildByFieldName("type"); t != nil && w.sp.classes[t.Type()] != "" && w.body(t) != nil {
		return t
	}
	return nil
}

// comment reports whether n is a comment. A comment is an extra node,
// and tree-sitter's cursor can give an extra its parent's alias as its
// type (a comment in a TypeScript interface is an "interface_body").
func (w *walker) comment(n *sitter.Node) bool { return w.sp.comments[n.Type()] || n.IsExtra() }

// detached reports whether a blank line parts n from the pending nodes
// above it, which then doc nothing; an overload signature is never parted
// from the definition it belongs to.
func (w *walker) detached(n *sitter.Node) bool {
	last := w.pending[len(w.pending)-1]
	return !w.sp.overloads[w.unwrap(last).Type()] && last.EndPoint().Row+1 < n.StartPoint().Row
}
