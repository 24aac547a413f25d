package secrets

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// lead rules out, cheaply, most texts a rule's expression cannot match.
//
// Most of gitleaks' rules are "semi-generic": an optional run before a
// name, the name, then an assignment and a value, as generic-api-key's
// `(?i)[\w.-]{0,50}?(?:access|auth|...|token)(?:[ \t\w.-]{0,20})...`. Go's
// regexp runs such an expression over a text with one thread per position
// the optional run may start at, so it is slow everywhere a name could be
// near, which in source code is everywhere: generic-api-key alone took about
// 70% of the regex time of a full index of Go's tree. But every match is the
// optional run followed by a match of the rest (the core), and every match
// of the core begins with one of a few words (the names). So if the core,
// anchored, matches at none of the places those words occur, the whole
// expression matches nowhere in the text, and its findings are none; where
// it does match somewhere, the whole expression runs as before. The answer
// is the same either way (TestLeadNeverRulesOutAMatch).
type lead struct {
	words *keywords      // where a match of core can begin
	core  *regexp.Regexp // the rest of the expression, anchored at its start
}

// The two non-ASCII runes that fold to ASCII letters.
const (
	kelvin = "\u212a"
	longS  = "\u017f"
)

// maxLeadWords bounds how many words a rule's core may begin with.
const maxLeadWords = 64

// newLead returns the lead of expression re, or nil when re is not of that
// shape (or its words are too many to be worth it).
func newLead(re string) *lead {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil || parsed.Op != syntax.OpConcat || len(parsed.Sub) < 3 || !optional(parsed.Sub[0]) {
		return nil
	}
	words, ok := prefixes(parsed.Sub[1])
	if !ok || len(words) == 0 || len(words) > maxLeadWords {
		return nil
	}
	rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: parsed.Flags, Sub: parsed.Sub[1:]}
	if lookBehind(rest) {
		return nil
	}
	// \A: the core must match where a word begins, not anywhere after.
	core, err := regexp.Compile(`\A(?:` + rest.String() + `)`)
	if err != nil {
		return nil
	}
	return &lead{words: newKeywords(words), core: core}
}

// lookBehind reports whether re holds \B, the one assertion that a match
// of text[pos:] may fail where the same match in text holds (it looks at
// the byte before pos).
func lookBehind(re *syntax.Regexp) bool {
	if re.Op == syntax.OpNoWordBoundary {
		return true
	}
	for _, s := range re.Sub {
		if lookBehind(s) {
			return true
		}
	}
	return false
}

// optional reports whether re can match the empty string by being left
// out: a repeat from zero, a star or a question mark.
func optional(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0
	}
	return false
}

// prefixes returns a set of non-empty lower-case words such that every
// match of re begins with one of them, ASCII capitals read as lower case.
// It answers only for literals, small ASCII classes, and alternations and
// concatenations of them.
func prefixes(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpCapture:
		return prefixes(re.Sub[0])
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, len(re.Rune) > 0 && ascii(re.Rune)
	case syntax.OpCharClass:
		return classBytes(re)
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			w, ok := prefixes(s)
			if !ok {
				return nil, false
			}
			out = append(out, w...)
		}
		return distinctShortest(out), len(out) <= maxLeadWords
	case syntax.OpConcat:
		// The first element's words, grown by the next one's while they
		// stay few; a word is a prefix of every match either way.
		out, ok := prefixes(re.Sub[0])
		if !ok {
			return nil, false
		}
		if len(re.Sub) > 1 {
			if next, ok := prefixes(re.Sub[1]); ok && len(out)*len(next) <= maxLeadWords {
				var grown []string
				for _, a := range out {
					for _, b := range next {
						grown = append(grown, a+b)
					}
				}
				out = grown
			}
		}
		return distinctShortest(out), true
	}
	return nil, false
}

// classBytes returns the single-byte words of a small ASCII class.
func classBytes(re *syntax.Regexp) ([]string, bool) {
	var out []string
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi >= utf8.RuneSelf || hi-lo > maxLeadWords {
			return nil, false
		}
		for r := lo; r <= hi; r++ {
			out = append(out, strings.ToLower(string(r)))
		}
	}
	return distinctShortest(out), len(out) > 0
}

// distinctShortest drops repeats and the words another word of the set
// begins: the set still begins every match, and the keywords finder wants
// distinct words.
func distinctShortest(words []string) []string {
	var out []string
	for _, w := range words {
		keep := true
		for _, o := range words {
			if o != w && strings.HasPrefix(w, o) {
				keep = false
				break
			}
		}
		for _, o := range out {
			if o == w {
				keep = false
			}
		}
		if keep {
			out = append(out, w)
		}
	}
	return out
}

func ascii(rs []rune) bool {
	for _, r := range rs {
		if r >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// may reports whether the rule's expression can match somewhere in text.
func (l *lead) may(text string) bool {
	if strings.Contains(text, kelvin) || strings.Contains(text, longS) {
		// (?i)k matches the Kelvin sign and (?i)s the long s, which the
		// words' ASCII folding does not see.
		return true
	}
	found := false
	last := -1
	l.words.each(text, func(pos, _ int) bool {
		if pos != last {
			last = pos
			found = l.core.MatchString(text[pos:])
		}
		return !found
	})
	return found
}
