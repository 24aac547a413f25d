package related

import (
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
}

// scopings is the table, by index/lang name.
var scopings = map[string]scoping{
	lang.Go:         {sep: ".", module: goPackage, exported: goExported, membersInModule: true},
	lang.Java:       {sep: ".", module: samePackage, names: javaNames},
	lang.CSharp:     {sep: ".", module: samePackage, membersInModule: true, global: true},
	lang.PHP:        {sep: `\`, module: samePackage, global: true, names: phpNames},
	lang.Python:     {sep: ".", names: pythonNameRules},
	lang.JavaScript: {sep: "."},
	lang.TypeScript: {sep: "."},
	lang.TSX:        {sep: "."},
	lang.Rust:       {sep: "::", membersInModule: true, memberFiles: rustCrateFiles},
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
