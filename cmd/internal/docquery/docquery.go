// Package docquery turns doc comments into search queries the
// CodeSearchNet way, for dossier's benchmarks: the first sentence of a
// function's documentation, without the function's name, is what a person
// who wants that function might type.
package docquery

import (
	"strings"
	"unicode"
)

// FirstSentence is the first sentence of a doc comment without a leading
// name (name, Type.name or name(...)).
func FirstSentence(doc, name string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimSuffix(doc, ".")
	words := strings.Fields(doc)
	if len(words) > 0 && (words[0] == name || strings.HasSuffix(words[0], "."+name) || strings.HasPrefix(words[0], name+"(")) {
		words = words[1:]
	}
	q := strings.Join(words, " ")
	return strings.TrimFunc(q, func(r rune) bool { return unicode.IsPunct(r) && r != ')' })
}

// Enough reports whether a query has the three words that make it a
// description rather than a name.
func Enough(q string) bool { return len(strings.Fields(q)) >= 3 }
