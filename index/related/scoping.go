package related

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

// scoping is how one language makes a name reachable from a file, the
// per-language table the resolver applies to xref's references. A
// language whose extractor is registered in index/xref (xref.Supported)
// is resolved through its row; the others keep the lexical path.
type scoping struct {
	// sep separates the parts of a qualified name as written: "pkg.T",
	// `App\Models\User`, "crate::a::T".
	sep string
	// module lists the files, other than the file itself, whose top-level
	// names a bare name reaches without an import: Go's package (same
	// directory, same package clause), Java's package. Nil: the file alone.
	module func(r *resolver, p *parsed) []string
	// exported reports whether a top-level name of another file is
	// visible through an import or a package; nil: every name.
	exported func(name string) bool
	// membersInModule: a type's members may be defined in any file of its
	// module (Go methods); otherwise only in the type's own file.
	membersInModule bool
	// global: a bare name that nothing above reaches may mean the one
	// definition of that name in the language family (C/C++ without the
	// header, Ruby, Bash, PHP global functions). Such a resolution is
	// marked as a guess and never made when the name has several.
	global bool
	// names, when set, resolves a name as written (bare, qualified or a
	// type) by the language's own rules (PHP namespaces); done false
	// leaves it to the generic path.
	names func(r *resolver, p *parsed, written string, keep func(*xref.Def) bool) (hits []hit, done bool)
	// memberFiles, when set, lists the other files where a type's members
	// may be defined (Rust: impl blocks anywhere in the crate).
	memberFiles func(r *resolver, p *parsed) []string
	// declares, when set, tells cheaply from a file's text whether it may
	// declare name at the top level (method: as a method outside its
	// type's body), so that only such files are parsed. Without it, any
	// file holding the name is.
	declares func(text []byte, name string, method bool) bool
	// outerScope: an unqualified member name (Via Self) that the
	// enclosing type lacks reaches the members of the types lexically
	// around it (Java's nested and inner classes call their outer class's
	// methods unqualified).
	outerScope bool
	// submodule, when set, reports whether a qualifier followed by a
	// member, as written in p ("pkg.sub" then "client"), names a module:
	// Python's packages have their submodules as attributes, so a chain
	// through an import binding folds such members into the qualifier.
	submodule func(r *resolver, p *parsed, qual string) bool
	// ctors: a call of a type (new T(...)) runs its constructors, the
	// methods named as the type; a type without any is called as itself.
	ctors bool
}

// scopings is the table, by index/lang name.
var scopings = map[string]scoping{
	lang.Go:         {sep: ".", module: goPackage, exported: goExported, membersInModule: true, declares: goDeclares},
	lang.Java:       {sep: ".", module: javaPackage, outerScope: true, ctors: true},
	lang.CSharp:     {sep: ".", module: samePackage, membersInModule: true, global: true},
	lang.PHP:        {sep: `\`, module: samePackage, global: true},
	lang.Python:     {sep: "."},
	lang.JavaScript: {sep: "."},
	lang.TypeScript: {sep: "."},
	lang.TSX:        {sep: "."},
	lang.Rust:       {sep: "::", membersInModule: true},
	lang.C:          {sep: "::", global: true},
	lang.CPP:        {sep: "::", membersInModule: true, global: true},
	lang.Ruby:       {sep: "::", membersInModule: true, global: true},
	lang.Bash:       {sep: ".", global: true},
}

// scopingOf is the row of language and whether references of it are
// resolved through xref.
func scopingOf(language string) (scoping, bool) {
	s, ok := scopings[language]
	return s, ok && xref.Supported(language)
}

// goExported reports whether a Go name is visible outside its package.
func goExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// goPackage lists the other files of p's Go package: same directory, same
// package clause (an external test package x_test is a package of its
// own), test files only for a test file.
func goPackage(r *resolver, p *parsed) []string {
	test := strings.HasSuffix(p.path, "_test.go")
	var out []string
	for _, q := range r.w.dirs[path.Dir(p.path)] {
		if q == p.path || !strings.HasSuffix(q, ".go") || !test && strings.HasSuffix(q, "_test.go") {
			continue
		}
		if o := r.file(q); o != nil && o.packageName() == p.packageName() {
			out = append(out, q)
		}
	}
	return out
}

// samePackage lists the files of p's directory in its language that
// declare the same package or namespace (Java, C#, PHP).
func samePackage(r *resolver, p *parsed) []string {
	ext := path.Ext(p.path)
	var out []string
	for _, q := range r.w.dirs[path.Dir(p.path)] {
		if q == p.path || path.Ext(q) != ext {
			continue
		}
		if o := r.file(q); o != nil && o.packageName() == p.packageName() {
			out = append(out, q)
		}
	}
	return out
}

// typeKinds are the definition kinds a type name can name.
var typeKinds = map[string]bool{"class": true, "struct": true, "interface": true, "trait": true, "enum": true,
	"type": true, "record": true, "module": true, "object": true, "union": true, "namespace": true}

// goDeclares reports whether a line of text may declare name: after
// "func", "type", "var", "const" or a receiver "func (...)", or first on an
// indented line of a grouped declaration (not followed by what starts a
// statement: ":=", "(", ".", "[", "++"). method asks only for a receiver.
func goDeclares(text []byte, name string, method bool) bool {
	nb := []byte(name)
	for off := 0; off < len(text); {
		i := bytes.Index(text[off:], nb)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(nb)
		end := i + len(nb)
		if i > 0 && isIdent(text[i-1]) || end < len(text) && isIdent(text[end]) {
			continue
		}
		ls := bytes.LastIndexByte(text[:i], '\n') + 1
		pre := bytes.TrimSpace(text[ls:i])
		if bytes.HasPrefix(pre, []byte("func (")) && bytes.HasSuffix(pre, []byte(")")) {
			return true
		}
		if method {
			continue
		}
		switch string(pre) {
		case "func", "type", "var", "const":
			return true
		case "":
			if i == ls {
				continue // column 0: no declaration starts with its name
			}
			k := end
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k < len(text) && bytes.IndexByte([]byte(":(.[+-"), text[k]) >= 0 {
				continue
			}
			return true
		}
	}
	return false
}

// withScoping changes the row of language: the name rules in php.go,
// java.go, python.go and rust.go are set from their init functions, as
// they reach back into the table.
func withScoping(language string, change func(*scoping)) {
	sc := scopings[language]
	change(&sc)
	scopings[language] = sc
}
