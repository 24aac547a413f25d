package laravel

import (
	"strings"
	"sync"
	"unicode"
)

// snake is Laravel's Str::snake: an underscore before every capital but
// a first one, then lower case ("InvoiceLine" -> "invoice_line",
// "APIKey" -> "a_p_i_key", as Laravel names their tables).
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// TableOf is the table Laravel's convention gives a model class: the
// snake case of its name with the last word in the plural
// ("InvoiceLine" -> "invoice_lines").
func TableOf(class string) string {
	s := snake(class)
	i := strings.LastIndexByte(s, '_')
	return s[:i+1] + Plural(s[i+1:])
}

var irregular = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"person": "people", "man": "men", "woman": "women", "child": "children", "tooth": "teeth", "foot": "feet",
		"mouse": "mice", "goose": "geese", "ox": "oxen", "criterion": "criteria", "datum": "data", "medium": "media",
		"analysis": "analyses", "index": "indices", "matrix": "matrices", "vertex": "vertices", "leaf": "leaves",
		"life": "lives", "knife": "knives", "wife": "wives", "half": "halves", "cactus": "cacti", "alumnus": "alumni",
		"quiz": "quizzes", "status": "statuses", "alias": "aliases", "bus": "buses", "move": "moves", "cookie": "cookies", "movie": "movies", "zombie": "zombies",
	}
})

var uncountable = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"audio": true, "equipment": true, "information": true, "rice": true, "money": true, "species": true,
		"series": true, "fish": true, "sheep": true, "deer": true, "news": true, "feedback": true, "metadata": true,
		"data": true, "media": true, "music": true, "software": true, "hardware": true, "traffic": true,
		"knowledge": true, "evidence": true, "advice": true, "furniture": true, "luggage": true, "police": true,
		"staff": true, "content": true, "cash": true, "education": true, "gold": true, "pokemon": true,
	}
})

// Plural is an English plural of a lower-case word, as Laravel's inflector
// gives it for the common cases.
func Plural(w string) string {
	if w == "" || uncountable()[w] {
		return w
	}
	if p, ok := irregular()[w]; ok {
		return p
	}
	n := len(w)
	switch {
	case strings.HasSuffix(w, "s") && (strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us")):
		return w + "es"
	case strings.HasSuffix(w, "s"):
		return w // already plural (a table name passed through)
	case strings.HasSuffix(w, "x") || strings.HasSuffix(w, "z") || strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "sh"):
		return w + "es"
	case strings.HasSuffix(w, "y") && n > 1 && !strings.ContainsRune("aeiou", rune(w[n-2])):
		return w[:n-1] + "ies"
	case strings.HasSuffix(w, "fe"):
		return w[:n-2] + "ves"
	}
	return w + "s"
}
