package segment

import (
	"context"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
)

// C and C++ code puts macros where the grammar wants a type or a name:
// calling conventions and export markers between the return type and the
// name (`int CJSON_CDECL main(void)`), attributes on a line of their own
// above a declaration (`CXXOPTS_NODISCARD`). tree-sitter, which does not
// expand macros, reads the macro as the declaration's name or type, and
// the definition after it comes out nameless or named after a parameter
// (`void`). Such a macro sits in a declaration the parse could not
// finish; made a comment of the same length (`/*XOPTS_NODISCA*/`, so
// every byte keeps its offset), the file parses as the compiler sees it
// once the macro expands to nothing, and the macro joins the definition's
// span as a comment above it would (not its doc: see docStart).

// macroSites are the byte ranges of ALL_CAPS identifiers that stand as
// the type or the declarator of a declaration or definition the parse
// could not finish (an ERROR or MISSING node among its children) under
// root: the macros that broke the parse.
func macroSites(root *sitter.Node, src []byte) [][2]uint32 {
	var out [][2]uint32
	grammar.Walk(root, func(n *sitter.Node) bool {
		if !n.HasError() {
			return false
		}
		switch n.Type() {
		case "declaration", "field_declaration", "function_definition":
		default:
			return true
		}
		kids := grammar.Children(n)
		if !slices.ContainsFunc(kids, func(c grammar.Child) bool { return c.Node.IsError() || c.Node.IsMissing() }) {
			return true
		}
		for _, c := range kids {
			m := c.Node
			if m.IsError() && m.NamedChildCount() == 1 {
				// `static void UNITY_NOINLINE helper(int x)`: the macro
				// alone in an ERROR node.
				m = m.NamedChild(0)
			} else if c.Field != "type" && c.Field != "declarator" {
				continue
			}
			switch m.Type() {
			case "identifier", "type_identifier", "field_identifier":
				if macroLike(m.Content(src)) {
					out = append(out, [2]uint32{m.StartByte(), m.EndByte()})
				}
			}
		}
		return true
	})
	return out
}

// macroLike reports whether name is written as macros are: upper case
// letters, digits and underscores, at least four of them (the room a
// comment takes).
func macroLike(name string) bool {
	letter := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9' || r == '_':
		default:
			return false
		}
	}
	return letter && len(name) >= 4
}

// parseErrors counts the ERROR and MISSING nodes under n.
func parseErrors(n *sitter.Node) int {
	count := 0
	grammar.Walk(n, func(c *sitter.Node) bool {
		if c.IsError() || c.IsMissing() {
			count++
		}
		return c.HasError()
	})
	return count
}

// withoutMacros parses src again with the macros that broke tree's parse
// made comments, and returns the tree with fewer parse errors (tree itself
// when that does not help; the other one is closed). The text of the
// nodes is still read from src, at the same offsets. ok is false
// when the second parse ran out of time: the parser must not be used
// again (it would resume that parse).
func withoutMacros(ps *sitter.Parser, tree *sitter.Tree, src []byte) (_ *sitter.Tree, ok bool) {
	root := tree.RootNode()
	if !root.HasError() {
		return tree, true
	}
	sites := macroSites(root, src)
	if len(sites) == 0 {
		return tree, true
	}
	commented := append([]byte(nil), src...)
	for _, s := range sites {
		commented[s[0]], commented[s[0]+1] = '/', '*'
		commented[s[1]-2], commented[s[1]-1] = '*', '/'
	}
	again, err := ps.ParseCtx(context.Background(), nil, commented)
	if err != nil || again == nil {
		return tree, false
	}
	if parseErrors(again.RootNode()) >= parseErrors(root) {
		again.Close()
		return tree, true
	}
	tree.Close()
	return again, true
}
