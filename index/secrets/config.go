package secrets

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

// defaultConfig is gitleaks' default rule set, byte for byte the
// config.DefaultConfig of the gitleaks in go.mod (TestDefaultConfigIsGitleaks'
// fails when an upgrade changes it: copy the new gitleaks.toml here).
// Importing gitleaks' config package for it would link viper, its file
// formats and go-version, whose package init every dossier process paid at
// start-up, ~1.5 ms.
//
//go:embed gitleaks.toml
var defaultConfig string

// tomlConfig is the part of the config file the default rules use, with
// gitleaks' field names (go-toml, like viper, matches them without regard
// to case).
type tomlConfig struct {
	Rules      []tomlRule
	AllowList  *tomlAllowlist // [allowlist], the older form of [[allowlists]]
	Allowlists []*tomlAllowlist
}

type tomlRule struct {
	ID          string
	Path        string
	Regex       string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	AllowList   *tomlAllowlist
	Allowlists  []*tomlAllowlist
	Required    []struct{ ID string }
	SkipReport  bool
}

type tomlAllowlist struct {
	Condition   string
	Commits     []string
	Paths       []string
	RegexTarget string
	Regexes     []string
	StopWords   []string
	TargetRules []string
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
func (tr *tomlRule) compile() (compiledRule, error) {
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
func (tr *tomlRule) allowlists() ([]*allowlist, error) {
	lists := tr.Allowlists
	if tr.AllowList != nil {
		if len(lists) > 0 {
			return nil, fmt.Errorf("secret rule %s: both [rules.allowlist] and [[rules.allowlists]]", tr.ID)
		}
		lists = []*tomlAllowlist{tr.AllowList}
	}
	out, err := compileAllowlists(lists)
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
func compileAllowlists(lists []*tomlAllowlist) ([]*allowlist, error) {
	var out []*allowlist
	for _, t := range lists {
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
		for _, p := range t.Paths {
			if _, err := regexp.Compile(p); err != nil {
				return nil, fmt.Errorf("allowlist path: %w", err)
			}
		}
		if len(t.Paths) > 0 && (a.and || len(t.Commits)+len(t.Regexes)+len(t.StopWords) == 0) {
			continue
		}
		if len(t.Regexes) > 0 {
			for _, r := range t.Regexes {
				if _, err := regexp.Compile(r); err != nil {
					return nil, fmt.Errorf("allowlist regex: %w", err)
				}
			}
			// gitleaks joins them, each as it prints after compiling.
			var b strings.Builder
			b.WriteString("(?:")
			for i, r := range t.Regexes {
				if i > 0 {
					b.WriteString("|")
				}
				b.WriteString(regexp.MustCompile(r).String())
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
