package grammar

import sitter "github.com/smacker/go-tree-sitter"

// The ways through a syntax tree below cost one cursor step per node.
// tree-sitter's NamedChild(i), Child(i) and FieldNameForChild(i) go through
// the children before i on every call, and it keeps comments in their
// parent's child list as they come (not in the balanced subtrees of a
// repetition), so a loop over i is quadratic in a run of comments: 104 s
// to segment 400 KB of `//x` lines. Loop over these lists instead.

// Child is one child of a node and the field that holds it ("" for none).
type Child struct {
	Node  *sitter.Node
	Field string
}

// Children lists n's children, named or not, with their fields.
func Children(n *sitter.Node) []Child {
	if n == nil || n.ChildCount() == 0 {
		return nil
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	out := make([]Child, 0, n.ChildCount())
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		out = append(out, Child{Node: c.CurrentNode(), Field: c.CurrentFieldName()})
	}
	return out
}

// Named lists n's named children.
func Named(n *sitter.Node) []*sitter.Node {
	if n == nil || n.ChildCount() == 0 {
		return nil
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	out := make([]*sitter.Node, 0, n.NamedChildCount())
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if k := c.CurrentNode(); k.IsNamed() {
			out = append(out, k)
		}
	}
	return out
}

// Walk calls fn with n and each node under it, named or not, parents
// before their children, in source order; fn returns false to skip a
// node's children.
func Walk(n *sitter.Node, fn func(*sitter.Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	if !c.GoToFirstChild() {
		return
	}
	depth := 1
	for {
		if fn(c.CurrentNode()) && c.GoToFirstChild() {
			depth++
			continue
		}
		for !c.GoToNextSibling() {
			if depth--; depth == 0 || !c.GoToParent() {
				return
			}
		}
	}
}
