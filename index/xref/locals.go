package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"
)

// Small helpers the extractors of PHP, Python, Java, C#, Rust, Ruby,
// C/C++ and Bash share, on top of ts.go.

// childOfType is the first named child of n of one of the types, or nil.
func childOfType(n *grammar.Node, types ...string) *grammar.Node {
	for _, c := range named(n) {
		for _, t := range types {
			if c.Type() == t {
				return c
			}
		}
	}
	return nil
}

// childrenOfType lists the named children of n of one of the types.
func childrenOfType(n *grammar.Node, types ...string) []*grammar.Node {
	var out []*grammar.Node
	for _, c := range named(n) {
		for _, t := range types {
			if c.Type() == t {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// splitQualified splits `A\B\C` into `A\B` and "C" at the last sep.
func splitQualified(name, sep string) (qual, last string) {
	if i := strings.LastIndex(name, sep); i >= 0 {
		return name[:i], name[i+len(sep):]
	}
	return "", name
}

// nodeDef is a definition spanning n, named by the node name.
func nodeDef(n, name *grammar.Node, src []byte, kind, container string) Def {
	return Def{Name: text(name, src), Kind: kind, Container: container, Start: int(n.StartByte()),
		End: int(n.EndByte()), NameStart: int(name.StartByte())}
}

// nameRef is a reference whose name is the node n.
func nameRef(n *grammar.Node, src []byte, call bool, via Via, qual string) Ref {
	return Ref{Name: text(n, src), Start: int(n.StartByte()), Call: call, Via: via, Qual: qual}
}

// same reports whether a and b are the same node; nil is no node.
func same(a, b *grammar.Node) bool {
	return a != nil && b != nil && a.Equal(b)
}
