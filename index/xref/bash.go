package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// Bash: `source FILE` and `. FILE` are wildcard imports (Local "*": the
// sourced file's functions become the script's). Definitions are
// functions and variables assigned at the top level (const when readonly
// or declare -r). Every command whose name is a plain word is a bare call:
// the resolver matches it to a function of the file, of the files it
// sources, or a unique one elsewhere (a guess); builtins and programs
// match none. Strings and comments are no commands.

func init() { register(lang.Bash, parseBash) }

type bashX struct {
	*builder
	depth int // function nesting
	seen  map[string]bool
}

func parseBash(src []byte) (*File, error) {
	tree, err := parse(lang.Bash, src)
	if err != nil {
		return nil, err
	}
	x := &bashX{builder: newBuilder(src), seen: map[string]bool{}}
	x.walk(tree.Root())
	return x.done(), nil
}

func (x *bashX) text(n *grammar.Node) string { return text(n, x.src) }

func (x *bashX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "comment", "string_content", "raw_string", "heredoc_body", "ansi_c_string":
		return
	case "function_definition":
		name := field(n, "name")
		if name == nil {
			return
		}
		x.enter(x.def(nodeDef(n, name, x.src, "function", "")))
		x.depth++
		x.walk(field(n, "body"))
		x.depth--
		x.leave()
	case "command":
		x.command(n)
	case "variable_assignment":
		if x.depth == 0 {
			x.variable(n, n, "var")
		}
		x.walk(field(n, "value"))
	case "declaration_command":
		kind := "var"
		head := strings.Fields(x.text(n))
		if len(head) > 0 && head[0] == "local" {
			for _, c := range named(n) {
				x.walk(field(c, "value"))
			}
			return
		}
		if len(head) > 0 && (head[0] == "readonly" || len(head) > 1 && strings.HasPrefix(head[1], "-") && strings.Contains(head[1], "r")) {
			kind = "const"
		}
		for _, c := range named(n) {
			if c.Type() == "variable_assignment" {
				if x.depth == 0 {
					x.variable(c, n, kind)
				}
				x.walk(field(c, "value"))
			}
		}
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

// variable defines a top-level variable once, at its first assignment.
func (x *bashX) variable(a, span *grammar.Node, kind string) {
	name := field(a, "name")
	if name == nil || x.seen[x.text(name)] {
		return
	}
	x.seen[x.text(name)] = true
	x.def(nodeDef(span, name, x.src, kind, ""))
}

func (x *bashX) command(n *grammar.Node) {
	name := field(n, "name")
	word := childOfType(name, "word")
	args := childrenOfType(n, "word", "string", "raw_string", "concatenation", "simple_expansion",
		"expansion", "command_substitution", "number")
	if word != nil {
		switch cmd := x.text(word); cmd {
		case "source", ".":
			if len(args) > 0 {
				x.f.Imports = append(x.f.Imports, Import{Local: "*", Spec: bashPath(x.text(args[0])),
					Line: int(n.StartPoint().Row) + 1})
			}
		default:
			x.ref(nameRef(word, x.src, true, Bare, ""))
		}
	} else {
		x.walk(name)
	}
	for _, c := range named(n) {
		if !same(c, name) {
			x.walk(c)
		}
	}
}

// bashPath is a sourced path without its quotes ("$DIR/lib.sh").
func bashPath(s string) string {
	return strings.Trim(s, `"'`)
}
