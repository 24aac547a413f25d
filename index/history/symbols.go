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

// declName is the name a changed line declares, or "".
func declName(line string) string {
	if len(line) > 300 {
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
