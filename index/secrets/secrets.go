// Package secrets finds credentials in text with gitleaks' default rules
// (config.go), matched as gitleaks' detector matches them (match.go), and
// masks them. The index marks chunks with findings, search and previews
// mask them, and every exit (assembled prompts, copies, exports, embedder
// requests) replaces them with [REDACTED:<rule-id>].
//
// Only tests import gitleaks itself: its packages' init, linked into every
// dossier process, cost ~5 ms of start-up.
//
// The rules (some 220 regular expressions) are static data generated from
// gitleaks' config (gitleaks_gen.go): the first scan of a process indexes
// their keywords, in microseconds, and each rule is compiled when a text
// first holds one of its keywords.
package secrets

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/store"
)

// Finding is one secret in a text: the gitleaks rule that matched, its line
// (1-based) and the byte range of the secret itself. It is the form the
// index stores with chunks.
type Finding = store.Secret

// Marker is what replaces a secret on every exit.
func Marker(rule string) string { return "[REDACTED:" + rule + "]" }

// rule is one gitleaks rule, run only over the lines near its own keywords
// (see Scan). Its regular expressions are compiled when a text first holds
// one of its keywords: a process that scans a few files compiles the few
// rules they need, not all 220. Its allowlists, which only ever drop
// findings, are compiled when it first finds something: the generic rule's
// list of ~1,500 stop words costs more than its expression, and most texts
// give it nothing to drop.
type rule struct {
	id  string
	src *ruleSource // the rule as the default config has it
	// base are the config's global allowlists (scanner.base).
	base func() ([]*allowlist, error)

	once sync.Once
	// ruleState is set by compiled: held apart, so that the rules a
	// process never compiles cost it a few words each (their state, on
	// fresh pages, cost a one-shot process ~0.3 ms of page faults).
	*ruleState
}

// ruleState is a rule compiled.
type ruleState struct {
	before int // lines read before a keyword's line
	after  int // and after it
	// bare is the rule without its own allowlists.
	bare compiledRule
	// path, when set, limits the rule to files it matches (YAML, PHP,
	// nuget.config): checked before any window is built.
	path *regexp.Regexp
	// lead, when set, rules out texts the regex cannot match (see lead).
	lead *lead
	err  error

	allowOnce sync.Once
	own       []*allowlist
	ownErr    error
}

// compiled is the rule with its expressions compiled (once, on first use).
func (r *rule) compiled() *rule {
	r.once.Do(func() {
		st := &ruleState{}
		st.bare, st.err = r.src.compile()
		st.path = st.bare.path
		if st.bare.regex != nil {
			st.lead = newLead(r.src.Regex)
		}
		st.before, st.after = reach(r.src.Regex)
		r.ruleState = st
	})
	return r
}

// allowlists are the rule's own allowlists (compiled once, when first
// needed).
func (r *rule) allowlists() ([]*allowlist, error) {
	r.compiled()
	r.allowOnce.Do(func() { r.own, r.ownErr = r.src.allowlists() })
	return r.own, r.ownErr
}

// scanner is the loaded rule set.
type scanner struct {
	kw      []string   // the rules' keywords, lower case, sorted
	kwRules [][]uint16 // keyword -> rules
	match   *keywords  // finds kw
	rules   []*rule
	// base compiles the config's global allowlists once, when a rule
	// first finds something: their ~40 expressions took 0.5 ms, which
	// the many texts without a finding never need.
	base func() ([]*allowlist, error)
}

var (
	loadOnce sync.Once
	loaded   *scanner
)

// rules loads the default rule set once.
func rules() *scanner {
	loadOnce.Do(func() { loaded = load() })
	return loaded
}

// load indexes the default rules' keywords; their expressions and
// allowlists wait for a text that needs them (rule.compiled, scanner.base).
func load() *scanner {
	s := &scanner{kw: defaultKeywords, kwRules: defaultKeywordRules, match: newKeywords(defaultKeywords)}
	s.base = sync.OnceValues(func() ([]*allowlist, error) {
		allow, err := compileAllowlists(defaultAllowlists)
		if err != nil {
			return nil, fmt.Errorf("gitleaks' default config: %w", err)
		}
		return allow, nil
	})
	all := make([]rule, len(defaultRules))
	s.rules = make([]*rule, len(defaultRules))
	for i := range all {
		all[i].id, all[i].src, all[i].base = defaultRules[i].ID, &defaultRules[i], s.base
		s.rules[i] = &all[i]
	}
	return s
}

// reach is how many lines around a keyword a rule's match can span, from
// how many line breaks its regular expression can match. Every rule's
// match contains one of its keywords. A rule that can cross only a few
// (white space between a key and its value) reads the keyword's line and
// the next, and blank lines on to a value (see Scan); one that crosses more
// reads that many lines either side; one without a bound (a private key's
// body, `\s*`) reads the whole text.
func reach(re string) (before, after int) {
	n := 0
	if parsed, err := syntax.Parse(re, syntax.Perl); err == nil {
		n = newlines(parsed)
	}
	switch {
	case n < 0 || n > maxWindow:
		return whole, whole
	case n > maxBlankRun+1:
		return n, n
	}
	return 0, 1
}

// whole is a reach past any text; maxWindow the widest window worth
// building instead of reading the whole text.
const (
	whole     = 1 << 30
	maxWindow = 40
)

// newlines is how many line breaks re can match, -1 for no bound.
func newlines(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == '\n' {
				n++
			}
		}
		return n
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyChar:
		return 1
	case syntax.OpStar, syntax.OpPlus:
		if newlines(re.Sub[0]) != 0 {
			return -1
		}
		return 0
	case syntax.OpRepeat:
		n := newlines(re.Sub[0])
		switch {
		case n == 0:
			return 0
		case n < 0 || re.Max < 0:
			return -1
		}
		return n * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			n := newlines(s)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	case syntax.OpQuest, syntax.OpCapture:
		return newlines(re.Sub[0])
	}
	return 0
}

// Ruleset names the rule set: the sha256 of gitleaks' default config, so a
// remembered "no secrets here" is forgotten when the rules change. It
// compiles nothing.
func Ruleset() string { return rulesetID }

// Load reads the rules and compiles every one of them now (a scan compiles
// only those it needs), and reports whether they could be.
func Load() error {
	s := rules()
	if _, err := s.base(); err != nil {
		return err
	}
	for _, r := range s.rules {
		if err := r.compiled().err; err != nil {
			return err
		}
		if _, err := r.allowlists(); err != nil {
			return err
		}
	}
	return nil
}

// Scan returns the secrets in text, in order, overlapping findings merged
// into the most specific rule's. path (slash separated, relative) lets the
// rules' path allowlists apply; it may be empty.
//
// gitleaks runs every rule whose keyword occurs anywhere over the whole text,
// which costs ~6 MB/s on source code; here each rule reads only the lines
// around its own keywords, with the same findings at ~35 MB/s, and a rule
// with a lead (see lead) runs its whole expression over them only when
// the rest of it can match where one of its names occurs.
func Scan(path, text string) []Finding {
	s := rules()
	if text == "" {
		return nil
	}
	var masked []Finding
	if strings.IndexByte(text, sub) >= 0 {
		masked = storedMasks(text)
	}
	// Keywords are ASCII: lower-casing only ASCII keeps every byte where
	// it was (strings.ToLower grows invalid bytes and shrinks the Kelvin
	// sign).
	var lines []int
	hits := map[uint16][]int{} // rule -> lines with one of its keywords, ascending
	s.match.each(text, func(pos, kw int) bool {
		if lines == nil {
			lines = lineStarts(text)
		}
		l := lineAt(lines, pos)
		for _, r := range s.kwRules[kw] {
			if h := hits[r]; len(h) == 0 || h[len(h)-1] != l {
				hits[r] = append(h, l)
			}
		}
		return true
	})
	if len(hits) == 0 {
		return masked
	}
	out := masked
	var b strings.Builder
	for r, kwLines := range hits {
		rl := s.rules[r].compiled()
		if rl.err != nil {
			continue // not in the default config, which compiles (TestEveryRuleCompiles)
		}
		if rl.path != nil && !rl.path.MatchString(path) {
			continue
		}
		b.Reset()
		var from, at []int // window line -> line of text, and its start in the window
		next := 0
		for _, l := range kwLines {
			lo, hi := max(l-rl.before, next), min(len(lines)-1, l+min(rl.after, len(lines)))
			// A value may follow its key after blank lines.
			for hi+1 < len(lines) && hi-l <= maxBlankRun && blankish(text[lines[hi]:lineEnd(text, lines, hi)]) {
				hi++
			}
			for i := lo; i <= hi; i++ {
				at = append(at, b.Len())
				b.WriteString(text[lines[i]:lineEnd(text, lines, i)])
				from = append(from, i)
			}
			next = max(next, hi+1)
		}
		window := b.String()
		for _, f := range rl.find(window) {
			if start, ok := locate(text, lines, window, at, from, f.line, f.match, f.secret); ok {
				out = append(out, Finding{Rule: rl.id, Line: lineAt(lines, start) + 1, Start: start, End: start + len(f.secret)})
			}
		}
	}
	return merge(out)
}

// locate finds a secret of the window in text: inside its match, which
// begins on window line wline. The window's lines are text's lines from[i],
// starting at at[i] in the window.
func locate(text string, lines []int, window string, at, from []int, wline int, match, secret string) (int, bool) {
	if wline < 0 || wline >= len(at) || secret == "" {
		return 0, false
	}
	m := strings.Index(window[at[wline]:], match)
	// The secret is the rule's capture group, which ends the match: a
	// key named like its value must not take the marker.
	s := strings.LastIndex(match, secret)
	if m < 0 || s < 0 {
		return 0, false
	}
	w := at[wline] + m + s // the secret in the window
	i := lineAt(at, w)
	start := lines[from[i]] + w - at[i]
	if start+len(secret) > len(text) || text[start:start+len(secret)] != secret {
		return 0, false // the secret spans lines the window joined from apart
	}
	return start, true
}

// merge sorts findings and keeps one of any that overlap: a specific rule
// over a generic one, else the longer secret.
func merge(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		return fs[i].Rule < fs[j].Rule
	})
	out := fs[:1]
	for _, f := range fs[1:] {
		last := &out[len(out)-1]
		if f.Start >= last.End {
			out = append(out, f)
			continue
		}
		if better(f, *last) {
			f.Start, f.End, f.Line = min(f.Start, last.Start), max(f.End, last.End), min(f.Line, last.Line)
			*last = f
		} else {
			last.End = max(last.End, f.End)
		}
	}
	return out
}

func better(a, b Finding) bool {
	ga, gb := strings.Contains(a.Rule, "generic"), strings.Contains(b.Rule, "generic")
	if ga != gb {
		return gb
	}
	return a.End-a.Start > b.End-b.Start
}

// maxBlankRun is how many blank lines a key and its value may have between
// them: the rules allow up to 8 white-space characters there.
const maxBlankRun = 8

// blankish reports whether a line holds only white space and the quotes
// and operators rules allow between a key and its value.
func blankish(line string) bool {
	for i := 0; i < len(line); i++ {
		if !strings.ContainsRune(" \t\r\n'\"`=:,>|?;", rune(line[i])) {
			return false
		}
	}
	return true
}

// lineStarts returns the byte offset of every line's start.
func lineStarts(text string) []int {
	starts := make([]int, 1, strings.Count(text, "\n")+1)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineEnd is where line i ends, its newline included.
func lineEnd(text string, starts []int, i int) int {
	if i+1 < len(starts) {
		return starts[i+1]
	}
	return len(text)
}

// lineAt is the 0-based line holding byte offset pos.
func lineAt(starts []int, pos int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > pos }) - 1
}
