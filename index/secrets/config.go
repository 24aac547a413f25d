package secrets

import (
	"fmt"
	"regexp"
	"strings"
)

//go:generate go run gen_rules.go

// gitleaks_gen.go holds gitleaks' default rule set, read from gitleaks.toml
// by internal/rulegen: byte for byte the config.DefaultConfig of the
// gitleaks in go.mod (TestDefaultConfigIsGitleaks fails when an upgrade
// changes it: copy the new gitleaks.toml here and run go generate;
// TestGeneratedRulesAreGitleaksToml fails until both are done). Importing
// gitleaks' config package for it would link viper, its file formats and
// go-version, whose package init every dossier process paid at start-up,
// ~1.5 ms; parsing the TOML cost each process's first scan ~6 ms.

// ruleSource is one rule of the default config, with gitleaks' field
// names.
type ruleSource struct {
	ID          string
	Path        string
	Regex       string
	SecretGroup int
	Entropy     float64
	Keywords    []string // as the config has them
	Allowlists  []allowlistSource
	SkipReport  bool
}

// allowlistSource is one allowlist of the default config. rulegen compiled
// its Paths; here only whether there are any matters (see allowlist).
type allowlistSource struct {
	Condition   string
	Commits     []string
	Paths       []string
	RegexTarget string
	Regexes     []string
	StopWords   []string
}

// compiledRule is a rule's expressions, compiled as gitleaks' Translate
// compiles them.
type compiledRule struct {
	regex       *regexp.Regexp
	path        *regexp.Regexp
	secretGroup int
	entropy     float64
	skipReport  bool
}

// compile is gitleaks' Translate and Validate for one rule, without its
// allowlists.
func (tr *ruleSource) compile() (compiledRule, error) {
	c := compiledRule{secretGroup: tr.SecretGroup, entropy: tr.Entropy, skipReport: tr.SkipReport}
	var err error
	if tr.Path != "" {
		if c.path, err = regexp.Compile(tr.Path); err != nil {
			return c, fmt.Errorf("secret rule %s: path: %w", tr.ID, err)
		}
	}
	if tr.Regex != "" {
		if c.regex, err = regexp.Compile(tr.Regex); err != nil {
			return c, fmt.Errorf("secret rule %s: regex: %w", tr.ID, err)
		}
	}
	if c.regex == nil && c.path == nil {
		return c, fmt.Errorf("secret rule %s: both regex and path are empty", tr.ID)
	}
	if c.regex != nil && c.secretGroup > c.regex.NumSubexp() {
		return c, fmt.Errorf("secret rule %s: secret group %d of a regex with %d groups", tr.ID, c.secretGroup, c.regex.NumSubexp())
	}
	return c, nil
}

// allowlists compiles the rule's own allowlists, path conditions dropped.
func (tr *ruleSource) allowlists() ([]*allowlist, error) {
	out, err := compileAllowlists(tr.Allowlists)
	if err != nil {
		return nil, fmt.Errorf("secret rule %s: %w", tr.ID, err)
	}
	return out, nil
}

// allowlist is one of gitleaks' allowlists as dossier applies it: a text
// has no commit, and where a file is must never hide what is in it (the
// redaction of a prompt cannot skip vendor/ or jquery*.js as a scan of a
// repository's history may), so path conditions are dropped: an
// allowlist that needs a path (AND) goes, one that takes a path or a
// pattern (OR) keeps its patterns.
type allowlist struct {
	and bool
	// commits: the list names commits, a condition a text never meets.
	commits bool
	target  string         // what regex reads: "" (the secret), "match" or "line"
	regex   *regexp.Regexp // its expressions joined, nil for none
	stop    *keywords
}

// compileAllowlists is gitleaks' parseAllowlist and Validate, path
// conditions dropped (see allowlist).
func compileAllowlists(lists []allowlistSource) ([]*allowlist, error) {
	var out []*allowlist
	for i := range lists {
		t := &lists[i]
		a := &allowlist{commits: len(t.Commits) > 0}
		switch strings.ToUpper(t.Condition) {
		case "AND", "&&":
			a.and = true
		case "", "OR", "||":
		default:
			return nil, fmt.Errorf("allowlist condition %q (expected and, or)", t.Condition)
		}
		switch t.RegexTarget {
		case "", "secret":
		case "match", "line":
			a.target = t.RegexTarget
		default:
			return nil, fmt.Errorf("allowlist regexTarget %q (expected match, line)", t.RegexTarget)
		}
		if len(t.Commits)+len(t.Paths)+len(t.Regexes)+len(t.StopWords) == 0 {
			return nil, fmt.Errorf("an allowlist without commits, paths, regexes or stopwords")
		}
		if len(t.Paths) > 0 && (a.and || len(t.Commits)+len(t.Regexes)+len(t.StopWords) == 0) {
			continue
		}
		if len(t.Regexes) > 0 {
			// gitleaks joins them, each as it prints after compiling.
			var b strings.Builder
			b.WriteString("(?:")
			for i, r := range t.Regexes {
				re, err := regexp.Compile(r)
				if err != nil {
					return nil, fmt.Errorf("allowlist regex: %w", err)
				}
				if i > 0 {
					b.WriteString("|")
				}
				b.WriteString(re.String())
			}
			b.WriteString(")")
			var err error
			if a.regex, err = regexp.Compile(b.String()); err != nil {
				return nil, fmt.Errorf("allowlist regexes: %w", err)
			}
		}
		if len(t.StopWords) > 0 {
			seen := map[string]bool{}
			var words []string
			for _, w := range t.StopWords {
				if w = strings.ToLower(w); !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
			a.stop = newKeywords(words)
		}
		out = append(out, a)
	}
	return out, nil
}

// regexAllowed is gitleaks' Allowlist.RegexAllowed.
func (a *allowlist) regexAllowed(s string) bool {
	return s != "" && a.regex != nil && a.regex.MatchString(s)
}

// stopWord is gitleaks' Allowlist.ContainsStopWord.
func (a *allowlist) stopWord(s string) bool {
	return s != "" && a.stop != nil && a.stop.any(strings.ToLower(s))
}
