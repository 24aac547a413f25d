package related

import (
	"bytes"
	"strings"
)

// site is an identifier in call position ("name(") or a name being
// defined ("func name", "def name", "class name"), found by a small lexer
// that skips comments and string literals. It knows no types: that is the
// price of one lexer for every language.
type site struct {
	name      string
	qual      string // the identifier before ".", "->" or "::", if any
	qualified bool   // name follows ".", "->" or "::"
	off       int    // byte offset of name in the file
	def       bool   // a definition, not a call
	deco      bool   // inside a decorator or annotation (@x.y(...))
}

// syntax is what the lexer must know of a language family.
type syntax struct {
	slashComments bool // // and /* */
	hashComments  bool // # to the end of the line
	backticks     bool // `...` strings (Go raw, JS templates, shell)
	triple        bool // Python's """ and '''
	rustChars     bool // ' starts a char literal or a lifetime, not a string
	// typedDecls: "Type name(" declares name (C, C++, Java, C#), so a
	// name right after a type is a definition or prototype, not a call.
	typedDecls bool
}

func syntaxOf(fam string) syntax {
	switch fam {
	case "python":
		return syntax{hashComments: true, triple: true}
	case "ruby", "bash", "perl", "yaml", "toml", "make", "dockerfile", "r", "elixir":
		return syntax{hashComments: true, backticks: true}
	case "php":
		return syntax{slashComments: true, hashComments: true}
	case "rust":
		return syntax{slashComments: true, rustChars: true}
	case "c", "java", "csharp":
		return syntax{slashComments: true, typedDecls: true}
	case "go", "js", "kotlin", "swift", "scala", "dart":
		return syntax{slashComments: true, backticks: true}
	}
	return syntax{slashComments: true}
}

// defKeywords introduce the name of a definition.
var defKeywords = map[string]bool{
	"func": true, "def": true, "fn": true, "function": true, "fun": true, "class": true,
	"struct": true, "interface": true, "trait": true, "enum": true, "record": true, "module": true,
}

// notCalls are, per language family ("" for all), keywords and builtins
// that look like calls when they stand alone; "x.copy(" is still a method
// call. A builtin only matters when the workspace defines the same name.
var notCalls = map[string]map[string]bool{
	"": words("if for while switch case return catch sizeof typeof alignof instanceof await yield with",
		"assert until unless foreach do throw raise except import require include using new delete super this self"),
	"go": words("go defer select func append cap clear close complex copy imag len make max min panic print",
		"println real recover new string byte rune bool error any int int8 int16 int32 int64 uint uint8 uint16",
		"uint32 uint64 uintptr float32 float64 complex64 complex128"),
	"python": words("elif and or not in is lambda def print range len str int float bool list dict set tuple",
		"isinstance issubclass getattr setattr hasattr delattr type repr hash id iter next open sorted reversed",
		"enumerate zip map filter sum min max all any abs round format vars dir callable object bytes bytearray",
		"frozenset ord chr divmod pow super"),
	"js": words("function constructor parseInt parseFloat setTimeout setInterval describe it test expect",
		"beforeEach afterEach beforeAll afterAll"),
	"c": words("defined decltype static_assert noexcept static_cast dynamic_cast reinterpret_cast const_cast",
		"char short int long float double void unsigned signed"),
	"java":   words("synchronized"),
	"csharp": words("nameof lock fixed"),
	"php":    words("array list echo print isset empty unset exit die"),
	"ruby":   words("elsif puts p raise lambda proc loop"),
	"rust":   words("fn match loop"),
	"bash":   words("function then fi done"),
}

func words(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = true
		}
	}
	return m
}

// isBuiltin reports whether an unqualified name is a keyword or builtin
// of the language family rather than a call of a workspace symbol.
func isBuiltin(fam, name string) bool { return notCalls[""][name] || notCalls[fam][name] }

// scanSites calls fn for every call and definition site of src, whose
// first byte is at offset base of its file.
func scanSites(src []byte, base int, sx syntax, fn func(site)) {
	n := len(src)
	defAt := -1                 // an identifier starting here (after blanks) is a definition
	deco := false               // inside @name.name
	prevEnd, prevWord := -1, "" // the previous identifier (typedDecls)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case sx.slashComments && c == '/' && i+1 < n && src[i+1] == '/':
			i = lineEnd(src, i)
		case sx.slashComments && c == '/' && i+1 < n && src[i+1] == '*':
			if e := bytes.Index(src[i+2:], []byte("*/")); e >= 0 {
				i += e + 4
			} else {
				i = n
			}
		case sx.hashComments && c == '#' && (i == 0 || src[i-1] != '$' && src[i-1] != '{'):
			i = lineEnd(src, i)
		case c == '"' || c == '\'' || c == '`':
			i = skipString(src, i, sx)
			deco, prevEnd = false, -1
		case c == '@':
			deco = true
			i++
		case c >= '0' && c <= '9':
			for i < n && isIdent(src[i]) {
				i++
			}
			deco, prevEnd = false, -1
		case isIdent(c):
			j := i
			for j < n && isIdent(src[j]) {
				j++
			}
			k := j
			for k < n && (src[k] == ' ' || src[k] == '\t') {
				k++
			}
			word := string(src[i:j])
			call := k < n && src[k] == '('
			def := defAt >= 0 && defAt <= i && blank(src[defAt:i]) ||
				call && sx.typedDecls && prevEnd >= 0 && !callKeywords[prevWord] && typeGap(src[prevEnd:i])
			if (def || call) && strings.Trim(word, "$") != "" {
				s := site{name: word, off: base + i, def: def, deco: deco}
				s.qual, s.qualified = qualifier(src, i)
				if s.qualified || !defKeywords[word] && !notCalls[""][word] {
					fn(s)
				}
			}
			if defAt <= i {
				defAt = -1 // a receiver still being read keeps its end
			}
			switch {
			case word == "func" && k < n && src[k] == '(':
				// A Go method: the name follows the receiver.
				if e := matchParen(src, k); e > 0 {
					defAt = e + 1
				}
			case defKeywords[word]:
				defAt = j
			}
			prevEnd, prevWord = j, word
			i = j
		default:
			if c != '.' {
				deco = false
			}
			i++
		}
	}
}

// callKeywords may stand right before a call in typed languages
// ("return f(x)", "new T(x)"), unlike a type.
var callKeywords = words("return new else case throw await yield delete goto co_await co_return co_yield",
	"do typeof sizeof in is")

// typeGap reports whether the text between two identifiers is what
// separates a type from a declared name: blanks, and pointer, reference,
// array or generic marks attached to one side ("int *f", "T& f", "List<T> f",
// "int[] f"), never a free-standing operator ("a * f").
func typeGap(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		j := i
		for j < len(b) && strings.IndexByte("*&>[]", b[j]) >= 0 {
			j++
		}
		if j == i {
			return false
		}
		spaceBefore := i > 0
		spaceAfter := j < len(b)
		if spaceBefore && spaceAfter {
			return false
		}
		i = j
	}
	return true
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// blank reports whether b holds only spaces, tabs and the * of "function*".
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '*' {
			return false
		}
	}
	return true
}

func lineEnd(src []byte, i int) int {
	if e := bytes.IndexByte(src[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(src)
}

// qualifier reads what precedes the identifier at i: ".", "->" or "::"
// and the identifier before it ("" when it is an expression such as a
// call or an index).
func qualifier(src []byte, i int) (string, bool) {
	p := i
	switch {
	case p >= 1 && src[p-1] == '.' && (p < 2 || src[p-2] != '.'):
		p--
	case p >= 2 && (src[p-2] == '-' && src[p-1] == '>' || src[p-2] == ':' && src[p-1] == ':'):
		p -= 2
	default:
		return "", false
	}
	q := p
	for q > 0 && isIdent(src[q-1]) {
		q--
	}
	return string(src[q:p]), true
}

// matchParen returns the index of the ")" closing the "(" at i, or -1.
func matchParen(src []byte, i int) int {
	depth := 0
	for j := i; j < len(src) && j < i+400; j++ {
		switch src[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j
			}
		case '\n', '{':
			return -1
		}
	}
	return -1
}

// skipString returns the index after the string literal starting at i.
// Plain strings end at their quote or the end of the line, which keeps a
// stray quote from hiding the rest of a file.
func skipString(src []byte, i int, sx syntax) int {
	n, q := len(src), src[i]
	if sx.triple && i+2 < n && src[i+1] == q && src[i+2] == q {
		if e := bytes.Index(src[i+3:], src[i:i+3]); e >= 0 {
			return i + 3 + e + 3
		}
		return n
	}
	if q == '`' && !sx.backticks {
		return i + 1
	}
	if q == '\'' && sx.rustChars {
		// 'a', '\n', 'é' are chars; anything else is a lifetime.
		for j := i + 1; j < n && j < i+12; j++ {
			if src[j] == '\\' {
				j++
				continue
			}
			if src[j] == '\'' {
				return j + 1
			}
			if j > i+1 && src[i+1] < 0x80 {
				break
			}
		}
		return i + 1
	}
	for j := i + 1; j < n; j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			if q != '`' {
				return j + 1
			}
		}
	}
	return n
}
