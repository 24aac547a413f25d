package secrets

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// TestDefaultConfigIsGitleaks checks that gitleaks.toml is the default
// config of the gitleaks in go.mod: after an upgrade, copy the new one.
func TestDefaultConfigIsGitleaks(t *testing.T) {
	if defaultConfig != config.DefaultConfig {
		t.Fatal("index/secrets/gitleaks.toml differs from the default config of the gitleaks in go.mod: copy its config/gitleaks.toml")
	}
}

// TestConfigReadAsGitleaksReadsIt proves the rules and allowlists, as load
// and compile read them, are those gitleaks' own loader (viper, Translate)
// gives: the same expressions, secret groups, entropies, keywords and
// allowlists (path conditions dropped on both sides).
func TestConfigReadAsGitleaksReadsIt(t *testing.T) {
	want, err := gitleaksConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := rules()
	base, err := s.base()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	dumpOurs := func(as []*allowlist) {
		for _, a := range as {
			fmt.Fprintf(&b, "  al and=%v commits=%v %q", a.and, a.commits, a.target)
			if a.regex != nil {
				fmt.Fprintf(&b, " re %s", a.regex)
			}
			b.WriteString("\n")
		}
	}
	dumpOurs(base)
	ids := map[string]bool{}
	for _, r := range s.rules {
		ids[r.id] = true
		r.compiled()
		if r.err != nil {
			t.Fatal(r.err)
		}
		kws := append([]string(nil), r.src.Keywords...)
		for i := range kws {
			kws[i] = strings.ToLower(kws[i])
		}
		fmt.Fprintf(&b, "%s %v %d %v %v %v\n", r.id, r.bare.entropy, r.bare.secretGroup, r.bare.regex, r.bare.path, kws)
		own, err := r.allowlists()
		if err != nil {
			t.Fatal(err)
		}
		dumpOurs(own)
	}
	got := b.String()

	b.Reset()
	dumpTheirs := func(as []*config.Allowlist) {
		for _, a := range withoutPaths(as) {
			fmt.Fprintf(&b, "  al and=%v commits=%v %q", a.MatchCondition == config.AllowlistMatchAnd, len(a.Commits) > 0, a.RegexTarget)
			if len(a.Regexes) > 0 {
				var parts []string
				for _, r := range a.Regexes {
					parts = append(parts, r.String())
				}
				fmt.Fprintf(&b, " re (?:%s)", strings.Join(parts, "|"))
			}
			b.WriteString("\n")
		}
	}
	dumpTheirs(want.Allowlists)
	var theirs []string
	for id, r := range want.Rules {
		if ids[id] {
			theirs = append(theirs, id)
		} else if r.Regex != nil && len(r.Keywords) > 0 {
			t.Errorf("gitleaks' rule %s is not loaded", id)
		}
	}
	sort.Strings(theirs)
	for _, id := range theirs {
		r := want.Rules[id]
		fmt.Fprintf(&b, "%s %v %d %v %v %v\n", id, r.Entropy, r.SecretGroup, r.Regex, r.Path, r.Keywords)
		dumpTheirs(r.Allowlists)
	}
	g, w := strings.Split(got, "\n"), strings.Split(b.String(), "\n")
	if len(g) < 150 {
		t.Fatalf("%d lines of rules read", len(g))
	}
	for i := range max(len(g), len(w)) {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			t.Fatalf("line %d of the config as read differs from gitleaks':\n%s\n%s", i, g[min(i, len(g)-1)], w[min(i, len(w)-1)])
		}
	}
}

// TestStopWordsAsGitleaks checks the stop words of every allowlist against
// gitleaks' ContainsStopWord, on each stop word in a secret and on the
// secrets of the fixture.
func TestStopWordsAsGitleaks(t *testing.T) {
	want, err := gitleaksConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := rules()
	base, err := s.base()
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		ours   []*allowlist
		theirs []*config.Allowlist
	}
	pairs := []pair{{base, withoutPaths(want.Allowlists)}}
	for _, r := range s.rules {
		own, _ := r.allowlists()
		pairs = append(pairs, pair{own, withoutPaths(want.Rules[r.id].Allowlists)})
	}
	_, secrets := Fixture()
	checked := 0
	for _, p := range pairs {
		if len(p.ours) != len(p.theirs) {
			t.Fatalf("%d allowlists, gitleaks %d", len(p.ours), len(p.theirs))
		}
		for i, a := range p.theirs {
			probes := append([]string{"", "Zq8xW3rT9vLm2NpQ7sKd4Fh"}, secrets...)
			for _, w := range a.StopWords {
				probes = append(probes, "x9"+strings.ToUpper(w)+"Q", w[:len(w)-1])
			}
			for _, probe := range probes {
				theirs, _ := a.ContainsStopWord(probe)
				if ours := p.ours[i].stopWord(probe); ours != theirs {
					t.Fatalf("stop word in %q: ours %v, gitleaks %v", probe, ours, theirs)
				}
				if ours, theirs := p.ours[i].regexAllowed(probe), a.RegexAllowed(probe); ours != theirs {
					t.Fatalf("allowed regex on %q: ours %v, gitleaks %v", probe, ours, theirs)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("%d probes", checked)
	}
}
