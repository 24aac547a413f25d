package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// functions are the syntax node types, over the grammars, of a function,
// method, constructor, lambda or closure: what is in the body of one is a
// local definition.
var functions = set("function_declaration", "function_definition", "method_definition", "method_declaration",
	"constructor_declaration", "compact_constructor_declaration", "arrow_function", "function_expression",
	"function", "generator_function", "generator_function_declaration", "function_item", "closure_expression",
	"func_literal", "lambda", "lambda_expression", "local_function_statement", "anonymous_method_expression",
	"anonymous_function_creation_expression", "method", "singleton_method", "block", "do_block")

// macroBodies are the C and C++ nodes whose compound_statement child is
// the body of a function a macro defines: a block has no place there but
// after a macro call (Catch's `TEST_CASE("name") { ... }`), which
// tree-sitter, not expanding macros, reads as a call and a block.
var macroBodies = set("translation_unit", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else",
	"preproc_elif")

// localTags marks the tags that lie in the body of a function, method or
// callback, by the file's syntax tree: ctags scopes a definition in a named
// function, but not one in an anonymous callback (a test's), and it lists
// both. The index keeps such definitions in their function's chunk.
func localTags(root string, tags []tag) (map[int]string, error) {
	byPath := map[string][]int{}
	for i, t := range tags {
		byPath[t.Path] = append(byPath[t.Path], i)
	}
	ps, plain := segment.NewParsers(), sitter.NewParser()
	defer ps.Close()
	defer plain.Close()
	out := map[int]string{}
	for path, is := range byPath {
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return nil, err
		}
		language := lang.Detect(path, src)
		if !grammar.Has(language) {
			continue // not a grammar the index parses: nothing is local
		}
		// The index's own parse: where it reads a macro as no
		// function, so does the comparison. One over the index's time
		// limit (a loaded machine) is done again without one.
		tree, err := ps.Tree(language, src)
		if err != nil {
			plain.SetLanguage(grammar.Of(language))
			if tree, err = plain.ParseCtx(context.Background(), nil, src); err != nil {
				return nil, fmt.Errorf("parse %s: %w", path, err)
			}
		}
		starts := lineStarts(src)
		for _, i := range is {
			switch {
			case inBody(tree.RootNode(), src, starts, tags[i]):
				out[i] = leftLocal
			case argument(tree.RootNode(), src, starts, tags[i]):
				out[i] = leftArgument
			}
		}
		tree.Close()
	}
	return out, nil
}

// inBody reports whether t's name lies in a function's body.
func inBody(root *sitter.Node, src []byte, starts []int, t tag) bool {
	for n := at(root, src, starts, t); n != nil; {
		parent := n.Parent()
		if parent == nil {
			return false
		}
		if functions[parent.Type()] {
			if b := parent.ChildByFieldName("body"); b != nil && b.StartByte() == n.StartByte() && b.EndByte() == n.EndByte() {
				return true
			}
		}
		if n.Type() == "compound_statement" && macroBodies[parent.Type()] {
			return true
		}
		n = parent
	}
	return false
}

// argument reports whether t names a JavaScript function expression in a
// call's arguments (`forEach(xs, function each(x) {...})`, `inherits(A, B,
// { toJSON: function toJSON() {...} })`): its name is bound in its own
// body only, and the module defines nothing.
func argument(root *sitter.Node, src []byte, starts []int, t tag) bool {
	n := at(root, src, starts, t)
	if n == nil || n.Parent() == nil || n.Parent().Type() != "function_expression" {
		return false
	}
	for p := n.Parent().Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "arguments":
			return true
		case "expression_statement", "lexical_declaration", "variable_declaration", "program":
			return false
		}
	}
	return false
}

// at is the smallest node where t's name first comes on t's line (a
// minified line holds many definitions), after `function ` if it comes so,
// or the line's first non-blank byte.
func at(root *sitter.Node, src []byte, starts []int, t tag) *sitter.Node {
	if t.Line < 1 || t.Line > len(starts) {
		return nil
	}
	off := starts[t.Line-1]
	end := len(src)
	if t.Line < len(starts) {
		end = starts[t.Line]
	}
	if i := bytes.Index(src[off:end], []byte("function "+t.Name)); i >= 0 {
		off += i + len("function ") // `toJSON: function toJSON()`: the function's own name
	} else if i := bytes.Index(src[off:end], []byte(t.Name)); i >= 0 {
		off += i
	} else {
		for off < end && (src[off] == ' ' || src[off] == '\t') {
			off++
		}
	}
	p := sitter.Point{Row: uint32(t.Line - 1), Column: uint32(off - starts[t.Line-1])}
	return root.NamedDescendantForPointRange(p, p)
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i := bytes.IndexByte(src, '\n'); i >= 0; {
		starts = append(starts, starts[len(starts)-1]+i+1)
		i = bytes.IndexByte(src[starts[len(starts)-1]:], '\n')
	}
	return starts
}
