// Package xref reads what one source file says about names, from a real
// tree-sitter parse: the definitions it makes, the names it imports, and
// every reference it makes, each with what the syntax shows about how the
// name is reached (bare, through an import, through a receiver of a known
// type, through this/self). It knows nothing of the workspace: resolving a
// reference to a definition in another file is index/related's job, with
// the per-language scoping rules there.
//
// Comments, strings, definitions themselves and package clauses are never
// references.
//
// Each language lives in its own file (go.go, js.go, ...), which registers
// its extractor from an init function (register in ts.go) and builds the
// File with the shared tree-sitter helpers there: a pooled parser per
// language, node text and walking, a builder that keeps each Ref's In, and
// scopes of locals whose values (Val) say how their types are reached.
// index/related resolves the Refs of every registered language with its
// row of the scoping table (index/related/scoping.go); how it reads each
// Via, Qual and Chain is documented on those fields.
package xref

import (
	"errors"
	"fmt"
)

// Via says how a reference reaches its name.
type Via uint8

const (
	// Bare is an unqualified name: f(), new T(), T{}.
	Bare Via = iota
	// Package is a name qualified by an import binding: url.Parse(),
	// Str::of(), os.path.join(); Qual is the binding (Import.Local).
	Package
	// Type is a member reached through a value or class whose type the
	// syntax shows (a parameter, field, typed property, x := T{}, new T,
	// a static call T::m()); Qual is the type as written ("T", "pkg.T",
	// "App\\Models\\User").
	Type
	// Self is a member reached through this, self, $this, static or a
	// method's receiver: the enclosing type (Defs[Ref.In].Container, or
	// Defs[Ref.In].Name when that definition is itself a type; so a
	// function nested in a method should carry the method's Container).
	Self
	// Super is a member reached through super / parent::.
	Super
	// Unknown is a member reached through a value whose type the syntax
	// does not show. Such a reference is never guessed into a definition.
	Unknown
)

func (v Via) String() string {
	switch v {
	case Bare:
		return "bare"
	case Package:
		return "package"
	case Type:
		return "type"
	case Self:
		return "self"
	case Super:
		return "super"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("via(%d)", uint8(v))
}

// File is what one source file says about names.
type File struct {
	Lang string
	// Package is the package or namespace the file declares: a Go package
	// clause, a Java package, a C# or PHP namespace; "" where the language
	// has none (then the module is the file).
	Package string
	Imports []Import
	Defs    []Def
	Refs    []Ref
}

// Import is one name an import binds in the file.
type Import struct {
	// Local is the name bound in the file: a Go package name or alias,
	// `import * as ns`, the b of `import {a as b}`, the D of `use A\B\C as D`
	// (or C without an alias), the x of `from m import x`. "." is a Go dot
	// import, "*" a wildcard (`from m import *`, Java's a.b.*), "" binds no
	// name (a side-effect import).
	Local string
	// Spec is the module, package or namespace as written: "net/url",
	// "./util", "App\\Models", "os.path".
	Spec string
	// Member is the imported member for a named import (the a of
	// `import {a as b} from`, the C of `use A\B\C`), "" for a whole module.
	Member string
	Line   int
}

// Def is one definition in the file.
type Def struct {
	Name string
	// Kind follows the index's symbol kinds: function, method, class,
	// struct, interface, trait, enum, type, field, const, var, ...
	Kind string
	// Container is the enclosing type, class or module ("" at top level).
	Container string
	// Start and End span the whole definition; NameStart is the offset of
	// its name.
	Start, End, NameStart int
	// Type is the declared type of a field, variable or property, or the
	// result type of a function, as its base name where the syntax shows
	// it ("T" for *T, []T, T[]; "pkg.T" when qualified); "" otherwise.
	Type string
	// Bases are the types a class or struct extends, implements or embeds,
	// as written.
	Bases []string
	// Results are the base types of a function's results when it has
	// several (Go), "" where a result's type has no name; Type is the
	// first. A Chain member "f#1" reaches f's second result.
	Results []string
	// Arity is how many arguments a function or method takes, where the
	// extractor reads its parameters (Java, whose overloads differ by
	// it); nil otherwise.
	Arity *Arity
	// ParamTypes are the declared types of a Java method's or
	// constructor's parameters, as javaArgType writes an argument's ("int",
	// "String", "JsonElement", "byte[]"; "?" for a type variable, "..." for
	// a trailing varargs); nil where the extractor does not read them.
	ParamTypes []string
}

// Arity is the range of argument counts a function accepts.
type Arity struct {
	Min int
	// Max is -1 when the last parameter takes any number (varargs).
	Max int
}

// Accepts reports whether a call with n arguments fits.
func (a Arity) Accepts(n int) bool { return n >= a.Min && (a.Max < 0 || n <= a.Max) }

// Ref is one reference the file makes.
type Ref struct {
	Name string
	// Start is the offset of the name.
	Start int
	// Call is set for a call or an instantiation, not a mere mention.
	Call bool
	Via  Via
	// Qual is the import binding (Via Package) or the type as written
	// (Via Type); "" otherwise.
	Qual string
	// In is the index in Defs of the innermost enclosing function, method
	// or type, -1 at top level.
	In int
	// Chain are the members between what Via and Qual reach and Name, in
	// order, when the receiver is itself reached through names whose types
	// only their definitions show: m.stash.update() is Via Self, Chain
	// ["stash"]; x := pkg.NewT(); x.Run() is Via Package, Qual "pkg", Chain
	// ["NewT"]; cfg.Load().Get() with cfg a global is Via Bare, Chain
	// ["cfg", "Load"]. The resolver takes each member's declared type (a
	// field's or variable's Type, a function's result Type) to reach the
	// next; "f#N" is the N-th result (from 0) of a function with several.
	// Empty for a direct reference.
	Chain []string
	// Args is the number of arguments of a call, -1 where the syntax does
	// not show them (a method reference). The resolver reads it only
	// against definitions that carry an Arity (Java).
	Args int
	// ArgTypes are the types of a Java call's arguments where the syntax
	// shows them (a literal, new T(), a cast, this, a local, parameter or
	// field with a declared type), "" for each other; nil when none is
	// known. The resolver chooses among same-arity overloads by them.
	ArgTypes []string
}

// ErrUnsupported is returned for a language without an extractor.
var ErrUnsupported = errors.New("no reference extractor for this language")

// extractors maps a language name (index/lang) to its extractor. Each
// language's file adds itself with register, from its init function.
var extractors = map[string]func(src []byte) (*File, error){}

// defsOnly maps a language to an extractor that skips what only makes
// references (function bodies), for files read to find a definition. Its
// Defs, Imports and Package are exactly Parse's.
var defsOnly = map[string]func(src []byte) (*File, error){}

// ParseDefs is Parse without the references where the language's
// extractor can skip them (faster), else Parse itself.
func ParseDefs(lang string, src []byte) (*File, error) {
	x := defsOnly[lang]
	if x == nil {
		return Parse(lang, src)
	}
	f, err := x(src)
	if err != nil {
		return nil, err
	}
	f.Lang = lang
	return f, nil
}

// Supported reports whether lang has an extractor.
func Supported(lang string) bool { return extractors[lang] != nil }

// Parse extracts the definitions, imports and references of src, written
// in lang.
func Parse(lang string, src []byte) (*File, error) {
	x := extractors[lang]
	if x == nil {
		return nil, fmt.Errorf("%s: %w", lang, ErrUnsupported)
	}
	f, err := x(src)
	if err != nil {
		return nil, err
	}
	f.Lang = lang
	return f, nil
}
