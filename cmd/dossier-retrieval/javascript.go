package main

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/dossierhq/dossier/cmd/internal/docquery"
)

// npmTree is one default tree: a directory of a pinned npm package.
type npmTree struct{ spec, dir, name string }

// jsTrees are the default JavaScript/TypeScript trees, fetched with
// `npm pack` at run time: ESLint's lib (plain JavaScript, JSDoc on most
// helpers) and RxJS's src (TypeScript). Only the source directories are
// used, so no compiled copy or .d.ts repeats the stripped comments.
var jsTrees = []npmTree{
	{"eslint@8.57.0", "lib", "eslint"},
	{"rxjs@7.8.1", "src", "rxjs"},
}

// jsLang measures on JavaScript and TypeScript trees: function
// declarations, methods and `const f = function/arrow` with a JSDoc block
// directly above. Every file is copied except nested node_modules.
var jsLang = &language{
	defaults: func(scratch string) ([]string, error) {
		if _, err := exec.LookPath("npm"); err != nil {
			return nil, fmt.Errorf("npm not found to fetch %s; pass -src", jsSpecs())
		}
		var trees []string
		for _, t := range jsTrees {
			dir, err := npmFetch(scratch, t)
			if err != nil {
				return nil, err
			}
			trees = append(trees, dir)
		}
		return trees, nil
	},
	code: func(name string) bool { return jsGrammar(name) != nil },
	test: jsTest,
	// node_modules below a package are dependencies, not its source.
	skipDir: func(name string) bool { return name == "node_modules" },
	strip:   stripJS,
}

func jsSpecs() string {
	var s []string
	for _, t := range jsTrees {
		s = append(s, t.spec)
	}
	return strings.Join(s, ", ")
}

// jsGrammar is the grammar for a file name, nil for non-code files and
// declaration files (.d.ts: no bodies).
func jsGrammar(name string) *sitter.Language {
	for _, d := range []string{".d.ts", ".d.mts", ".d.cts"} {
		if strings.HasSuffix(name, d) {
			return nil
		}
	}
	switch path.Ext(name) {
	case ".js", ".mjs", ".cjs", ".jsx":
		return javascript.GetLanguage()
	case ".ts", ".mts", ".cts":
		return typescript.GetLanguage()
	case ".tsx":
		return tsx.GetLanguage()
	}
	return nil
}

// jsTest reports test files: *.test.*, *.spec.* and anything under test,
// tests, __tests__ or __mocks__.
func jsTest(rel string) bool {
	base := path.Base(rel)
	if strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") {
		return true
	}
	for _, d := range strings.Split(path.Dir(rel), "/") {
		switch d {
		case "test", "tests", "__tests__", "__mocks__":
			return true
		}
	}
	return false
}

// stripJS blanks the JSDoc blocks of documented functions and returns the
// queries made from their descriptions.
func stripJS(src []byte, rel string) ([]byte, []item) {
	tree := parse(jsGrammar(path.Base(rel)), src)
	if tree == nil {
		return src, nil
	}
	defer tree.Close()
	out := slices.Clone(src)
	var items []item
	walk(tree.RootNode(), func(n *sitter.Node) {
		name := jsFuncName(n, src)
		if name == "" {
			return
		}
		anchor := n
		if p := n.Parent(); p != nil && p.Type() == "export_statement" {
			anchor = p
		}
		c := anchor.PrevSibling()
		if c == nil || c.Type() != "comment" || int(c.EndPoint().Row)+1 < int(anchor.StartPoint().Row) {
			return
		}
		text := c.Content(src)
		if !strings.HasPrefix(text, "/**") || strings.HasPrefix(text, "/**/") {
			return
		}
		q := docquery.FirstSentence(paragraph(jsDocText(text)), name)
		if !docquery.Enough(q) {
			return
		}
		blank(out, int(c.StartByte()), int(c.EndByte()))
		items = append(items, item{Query: q, Path: rel, Func: name,
			Start: int(anchor.StartPoint().Row) + 1, End: endLine(anchor)})
	})
	return out, items
}

// jsFuncName is the name of a function node that may carry a JSDoc: a
// function declaration, a method, or `const f = function/arrow`; "" for
// any other node.
func jsFuncName(n *sitter.Node, src []byte) string {
	switch n.Type() {
	case "function_declaration", "generator_function_declaration", "method_definition":
		if n.ChildByFieldName("body") == nil {
			return ""
		}
		if nm := n.ChildByFieldName("name"); nm != nil {
			return nm.Content(src)
		}
	case "lexical_declaration", "variable_declaration":
		if n.NamedChildCount() != 1 || n.NamedChild(0).Type() != "variable_declarator" {
			return ""
		}
		d := n.NamedChild(0)
		v, nm := d.ChildByFieldName("value"), d.ChildByFieldName("name")
		if v == nil || nm == nil {
			return ""
		}
		switch v.Type() {
		case "arrow_function", "function_expression", "function", "generator_function":
			return nm.Content(src)
		}
	}
	return ""
}

// jsDocText is the description of a JSDoc block: the lines without their
// leading "*", up to the first @tag line.
func jsDocText(c string) string {
	c = strings.TrimSuffix(strings.TrimPrefix(c, "/**"), "*/")
	var lines []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if strings.HasPrefix(l, "@") {
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// npmFetch downloads t's package with `npm pack` (no scripts run, no
// dependencies) and unpacks its t.dir directory into scratch/t.name.
func npmFetch(scratch string, t npmTree) (string, error) {
	dl := filepath.Join(scratch, "npm-pack")
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "pack", "--ignore-scripts", "--silent", t.spec)
	cmd.Dir = dl
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm pack %s: %v\n%s", t.spec, err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("npm pack %s printed no file name", t.spec)
	}
	f, err := os.Open(filepath.Join(dl, fields[len(fields)-1]))
	if err != nil {
		return "", fmt.Errorf("npm pack %s: %w", t.spec, err)
	}
	defer f.Close()
	dst := filepath.Join(scratch, t.name)
	if err := untar(f, "package/"+t.dir+"/", dst); err != nil {
		return "", fmt.Errorf("unpack %s: %w", t.spec, err)
	}
	return dst, nil
}

// untar writes the regular files of a .tgz under prefix into dst.
func untar(r io.Reader, prefix, dst string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(h.Name, prefix)
		if !ok || h.Typeflag != tar.TypeReg || !filepath.IsLocal(rel) {
			continue
		}
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		w, err := os.Create(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, tr)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no files under %s", prefix)
	}
	return nil
}
