package main

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/dossierhq/dossier/cmd/internal/docquery"
)

// pythonPackages are the default trees, packages of the standard library
// of whichever python3 is on PATH (so the set depends a little on its
// version): about a thousand documented functions and methods.
var pythonPackages = []string{"email", "http", "asyncio", "xml", "logging"}

// pythonLang measures on Python trees: functions and methods whose body
// starts with a docstring. Every file is copied except __pycache__.
var pythonLang = &language{
	defaults: func(string) ([]string, error) {
		out, err := exec.Command("python3", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
		if err != nil {
			return nil, fmt.Errorf("python3 not available to locate the standard library (%v); pass -src", err)
		}
		stdlib := strings.TrimSpace(string(out))
		var trees []string
		for _, p := range pythonPackages {
			dir := filepath.Join(stdlib, p)
			if _, err := os.Stat(dir); err != nil {
				return nil, fmt.Errorf("standard library package %s: %w", p, err)
			}
			trees = append(trees, dir)
		}
		return trees, nil
	},
	code:    func(name string) bool { return strings.HasSuffix(name, ".py") },
	test:    pythonTest,
	skipDir: func(name string) bool { return name == "__pycache__" },
	strip:   stripPython,
}

// pythonTest reports test files: test_*.py, *_test.py and anything under
// a test or tests directory.
func pythonTest(rel string) bool {
	base := path.Base(rel)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") {
		return true
	}
	dirs := strings.Split(path.Dir(rel), "/")
	return slices.Contains(dirs, "test") || slices.Contains(dirs, "tests")
}

// stripPython replaces the docstring of every documented function or
// method with `...` padded with spaces (newlines kept, so the file stays
// valid Python with the same lines) and returns the queries made from the
// docstrings' first sentences.
func stripPython(src []byte, rel string) ([]byte, []item) {
	tree := parse(python.GetLanguage(), src)
	if tree == nil {
		return src, nil
	}
	defer tree.Close()
	out := slices.Clone(src)
	var items []item
	var visit func(n *sitter.Node, parents []string)
	visit = func(n *sitter.Node, parents []string) {
		name := ""
		if nm := n.ChildByFieldName("name"); nm != nil {
			name = nm.Content(src)
		}
		switch n.Type() {
		case "class_definition":
			parents = append(parents[:len(parents):len(parents)], name)
		case "function_definition":
			if doc := pythonDocstring(n); doc != nil {
				if q := docquery.FirstSentence(paragraph(docText(doc.Content(src))), name); docquery.Enough(q) {
					s, e := int(doc.StartByte()), int(doc.EndByte())
					blank(out, s, e)
					copy(out[s:], "...")
					items = append(items, item{Query: q, Path: rel, Func: strings.Join(append(parents[:len(parents):len(parents)], name), "."),
						Start: int(n.StartPoint().Row) + 1, End: endLine(n)})
				}
			}
			parents = append(parents[:len(parents):len(parents)], name)
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			visit(n.NamedChild(i), parents)
		}
	}
	visit(tree.RootNode(), nil)
	return out, items
}

// pythonDocstring is the string literal that is the first statement of a
// function's body, or nil.
func pythonDocstring(fn *sitter.Node) *sitter.Node {
	body := fn.ChildByFieldName("body")
	if body == nil {
		return nil
	}
	for i := 0; i < int(body.NamedChildCount()); i++ {
		c := body.NamedChild(i)
		if c.Type() == "comment" {
			continue
		}
		if c.Type() != "expression_statement" || c.NamedChildCount() != 1 || c.NamedChild(0).Type() != "string" {
			return nil
		}
		s := c.NamedChild(0)
		if s.EndByte()-s.StartByte() < 3 {
			return nil
		}
		return s
	}
	return nil
}

// docText is the text of a docstring literal: prefix and quotes removed,
// escapes left alone. Byte and f-strings are not docstrings ("").
func docText(lit string) string {
	i := strings.IndexAny(lit, `"'`)
	if i < 0 || strings.ContainsAny(lit[:i], "bBfF") {
		return ""
	}
	lit = lit[i:]
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if len(lit) >= 2*len(q) && strings.HasPrefix(lit, q) && strings.HasSuffix(lit, q) {
			return lit[len(q) : len(lit)-len(q)]
		}
	}
	return ""
}

// endLine is the 1-based last line of a node (a node ending at the start
// of a line ends on the line before).
func endLine(n *sitter.Node) int {
	end := n.EndPoint()
	if end.Column == 0 && end.Row > n.StartPoint().Row {
		return int(end.Row)
	}
	return int(end.Row) + 1
}
