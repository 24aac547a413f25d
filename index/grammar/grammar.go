// Package grammar is the one table of tree-sitter grammars, by index/lang
// name, that the chunker (index/segment) and the reference extractors
// (index/xref) parse with.
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
