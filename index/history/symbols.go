package history

import (
	"regexp"
	"strings"
	"sync"
)

// decl matches a declaration line in the common languages: optional
// modifiers, a declaring keyword, an optional Go receiver, then the name.
var decl = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:(?:export|public|private|protected|internal|static|abstract|final|async|default|override|virtual|pub(?:\([^)]*\))?|unsafe|extern|inline|readonly|sealed|partial|open|data|const)\s+)*` +
		`(?:func|function|def|class|interface|trait|struct|enum|fn|type|module|record|impl|object|protocol|extension|defmodule|defp?)\s+` +
		`(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)`)
})

// callLike is the last name before the first "(" of a line: the function
// of a C-family hunk context ("public void store(Request r)").
var callLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*\(`) })

// notNames are words that may stand before "(" without naming a function.
var notNames = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true, "catch": true,
	"foreach": true, "elseif": true, "function": true, "fn": true, "func": true, "new": true, "sizeof": true, "typeof": true,
	"array": true, "list": true, "isset": true, "empty": true, "echo": true, "print": true, "require": true, "import": true,
	"describe": true, "it": true, "test": true}

// declWords are the words decl can begin with (after leading space): its
// modifiers and declaring keywords.
var declWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("export public private protected internal static abstract final async default override virtual pub unsafe extern inline readonly sealed partial open data const " +
		"func function def defp class interface trait struct enum fn type module record impl object protocol extension defmodule") {
		declWords[w] = true
	}
}

// mayDeclare reports whether decl can match line: the line's first word
// (its letters after decl's leading \s*) is one of declWords, as every
// alternative at decl's start is a whole word followed by space or, for
// pub, "(". Most changed lines fail here; the regular expression they
// skip was most of a history read's time (2.4 s of 8 on GOROOT/src).
func mayDeclare(line string) bool {
	i := 0
	for i < len(line) && strings.IndexByte("\t\n\f\r ", line[i]) >= 0 {
		i++
	}
	j := i
	for j < len(line) && ('a' <= line[j] && line[j] <= 'z') {
		j++
	}
	return declWords[line[i:j]]
}

// declName is the name a changed line declares, or "".
func declName(line string) string {
	if len(line) > 300 || !mayDeclare(line) {
		return ""
	}
	if m := decl().FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// contextName is the symbol named by a hunk header's function context:
// a declaration's name, else a C-style function's; "" when the context
// is not a declaration (a label, a comment, a line of data).
func contextName(ctx string) string {
	if ctx == "" || len(ctx) > 300 {
		return ""
	}
	if n := declName(ctx); n != "" {
		return n
	}
	t := strings.TrimSpace(ctx)
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return ""
	}
	m := callLike().FindStringSubmatch(t)
	if m == nil || notNames[strings.ToLower(m[1])] || strings.ContainsAny(t[:strings.Index(t, m[1])], "=\"'`;") {
		return ""
	}
	return m[1]
}
