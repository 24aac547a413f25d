// Package grammar is the one table of tree-sitter grammars, by index/lang
// name, that the chunker (index/segment) and the reference extractors
// (index/xref) parse with, and the ways through a syntax tree they walk.
//
// Flatten copies a parse into Go memory (Tree, Node), by hand, because the
// binding costs more than the parse: every node reached through
// github.com/smacker/go-tree-sitter is a cgo call that goes through
// Tree.cachedNode, which allocates a *Node and adds it to a per-tree map,
// and each Type call builds a new Go string from C. The chunker's walk
// over GOROOT/src cost about half as much again as its parse, the
// reference extractor's 27.5 s (issue 37). flat.c walks the tree with one
// tree-sitter cursor in C and fills the array in one cgo call; after it,
// a walk is plain Go with no allocation per node, and type and field names
// are the grammar's strings, made once per process. No generated binding
// or library does this: the binding's own types keep the TSTree pointer
// unexported (see treePointer), and flat.c declares the few tree-sitter
// functions it calls, whose code the binding's package compiles and links.
// Node answers as sitter.Node does (flat_test.go checks every method
// against the binding on every node of real files, in every grammar).
//
// The reference extractors walk the copy; the chunker does not yet. It
// visits only the top of most trees, and copying the whole tree costs
// about what its walk through the binding does: in a full index that is a
// wash, and in a one-file re-index the copy of a large file (net/http's
// server.go, ~150k nodes, 11 MB of fresh pages) made it 10% slower. The
// copy pays for itself in the chunker once the walkers of one parse share
// it (the chunker, the describers and, at index time, the extractors).
package grammar

import (
	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/dossierhq/dossier/index/lang"
)

var byLang = map[string]func() *sitter.Language{
	lang.Go:         golang.GetLanguage,
	lang.Python:     python.GetLanguage,
	lang.JavaScript: javascript.GetLanguage,
	lang.TypeScript: typescript.GetLanguage,
	lang.TSX:        tsx.GetLanguage,
	lang.Rust:       rust.GetLanguage,
	lang.Java:       java.GetLanguage,
	lang.C:          c.GetLanguage,
	lang.CPP:        cpp.GetLanguage,
	lang.CSharp:     csharp.GetLanguage,
	lang.PHP:        php.GetLanguage,
	lang.Ruby:       ruby.GetLanguage,
	lang.Bash:       bash.GetLanguage,
}

// Has reports whether language has a grammar.
func Has(language string) bool { return byLang[language] != nil }

// Of is language's grammar, nil when it has none. The grammar is built on
// first use, not at start-up.
func Of(language string) *sitter.Language {
	if f := byLang[language]; f != nil {
		return f()
	}
	return nil
}
