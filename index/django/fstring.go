package django

import (
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/grammar"
)

// route is the URI pattern of a path()/re_path() argument: a string
// literal, an f-string or a `+` of strings whose names are module-level
// string constants (path(f"{prefix}admin/login/", ...) with
// prefix = "backoffice/"). ok is false when n is no string at all. An
// interpolation that is no such constant stays as written, in braces,
// and is noted: the route is kept, with the file's note saying why its
// URI is not resolved.
func (e *x) route(n *sitter.Node) (string, bool) {
	s, unresolved, ok := e.constStr(n, 0)
	if ok && len(unresolved) > 0 {
		e.f.Notes = append(e.f.Notes, Note{Line: e.line(int(n.StartByte())), Text: fmt.Sprintf(
			"URL pattern %s: not module-level string constants of this file: %s; the route is kept as %q",
			e.text(n), strings.Join(unresolved, ", "), s)})
	}
	return s, ok
}

// Note is an extractor's note (see appgraph.Facts.Notes).
type Note = appgraph.Note

// constStr is the value of a string expression made of literals,
// f-strings and module-level string constants; unresolved lists the
// interpolations and names it keeps as written ({name}).
func (e *x) constStr(n *sitter.Node, depth int) (s string, unresolved []string, ok bool) {
	if n == nil || depth > 8 {
		return "", nil, false
	}
	if v, ok := e.str(n); ok {
		return v, nil, true
	}
	switch n.Type() {
	case "string":
		return e.fstring(n, depth)
	case "identifier":
		if v, ok := e.lists[e.text(n)]; ok {
			if s, un, ok := e.constStr(v, depth+1); ok {
				return s, un, true
			}
		}
	case "binary_operator":
		if op := n.ChildByFieldName("operator"); op == nil || e.text(op) != "+" {
			return "", nil, false
		}
		l, lu, lok := e.constStr(n.ChildByFieldName("left"), depth+1)
		r, ru, rok := e.constStr(n.ChildByFieldName("right"), depth+1)
		if lok && rok {
			return l + r, append(lu, ru...), true
		}
	case "parenthesized_expression":
		return e.constStr(firstNamed(n), depth+1)
	}
	return "", nil, false
}

// fstring is the value of an f-string whose interpolations are module
// constants; others stay as written.
func (e *x) fstring(n *sitter.Node, depth int) (string, []string, bool) {
	t := e.text(n)
	q := strings.IndexAny(t, `'"`)
	if q < 0 || !strings.ContainsRune(strings.ToLower(t[:q]), 'f') {
		return "", nil, false
	}
	var b strings.Builder
	var unresolved []string
	for _, ch := range grammar.Children(n) {
		c := ch.Node
		switch c.Type() {
		case "string_content", "escape_sequence":
			b.WriteString(e.text(c))
		case "interpolation":
			expr := c.ChildByFieldName("expression")
			if expr != nil && expr.Type() == "identifier" && c.NamedChildCount() == 1 {
				if v, un, ok := e.constStr(expr, depth+1); ok {
					b.WriteString(v)
					unresolved = append(unresolved, un...)
					continue
				}
			}
			b.WriteString(e.text(c))
			unresolved = append(unresolved, e.text(c))
		}
	}
	return b.String(), unresolved, true
}
