package segment

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"
)

// maxCompoundDepth bounds how deep defines looks for a definition inside
// nested compound statements; deeper ones stay top-level code.
const maxCompoundDepth = 4

// members lists the named children of a class body, with the children of
// its groups (Java's enum_body_declarations) in place of the group.
func (w *walker) members(body *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for _, m := range w.named(body) {
		if w.sp.groups[m.Type()] {
			out = append(out, w.named(m)...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// defines reports whether a block of the compound statement n holds a
// function or class definition, directly or in a nested compound: only
// then is n walked, so `if __name__ == "__main__": main()` stays one piece
// of top-level code.
func (w *walker) defines(n *sitter.Node, depth int) bool {
	if depth > maxCompoundDepth {
		return false
	}
	for _, c := range w.named(n) {
		switch t := w.unwrap(c).Type(); {
		case w.sp.funcs[t] || w.sp.classes[t] != "":
			return true
		case w.sp.blocks[c.Type()] || w.sp.compounds[t]:
			if w.defines(c, depth+1) {
				return true
			}
		}
	}
	return false
}

// compound walks the blocks of a compound statement (an `if` and its
// `elif`/`else`, a `try` and its `except`/`else`/`finally`, a `with`) like
// a module body, so the definitions in them are chunks and symbols of
// their own; the text between the blocks (`if cond:`, `except E:`) is
// top-level code. In a class body it is outline, as other statements are.
func (w *walker) compound(n *sitter.Node, parents []string, inClass bool) {
	if !inClass {
		w.flushPending()
	}
	if w.sp.blocks[n.Type()] {
		w.container(n, parents, inClass)
		return
	}
	pos := int(n.StartByte())
	header := func(end int) {
		if !inClass && end > pos && len(bytes.TrimSpace(w.src[pos:end])) > 0 {
			w.extend(pos, end, false, false)
		}
	}
	for _, c := range w.named(n) {
		if w.over {
			return
		}
		switch {
		case w.sp.blocks[c.Type()]:
			header(int(c.StartByte()))
			w.container(c, parents, inClass)
			pos = int(c.EndByte())
		case w.sp.compounds[c.Type()]:
			header(int(c.StartByte()))
			w.compound(c, parents, inClass)
			pos = int(c.EndByte())
		}
	}
	header(int(n.EndByte()))
}
