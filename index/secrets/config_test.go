package secrets

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// TestConfigReadAsGitleaksReadsIt proves the default config, read with
// go-toml as load reads it, translates to the rules, keywords and
// allowlists gitleaks' own loader (viper) gives.
func TestConfigReadAsGitleaksReadsIt(t *testing.T) {
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &vc); err != nil {
		t.Fatal(err)
	}
	got, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) < 150 {
		t.Fatalf("%d rules read", len(got.Rules))
	}
	g, w := strings.Split(dump(got), "\n"), strings.Split(dump(d.Config), "\n")
	for i := range max(len(g), len(w)) {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			t.Fatalf("line %d of the config as read differs from gitleaks':\n%s\n%s", i, g[min(i, len(g)-1)], w[min(i, len(w)-1)])
		}
	}
}

// dump writes out what a translated config holds, in a stable order.
func dump(c config.Config) string {
	var b strings.Builder
	al := func(as []*config.Allowlist) {
		for _, a := range as {
			sw := append([]string(nil), a.StopWords...)
			sort.Strings(sw)
			fmt.Fprintf(&b, "  al %q %v %q %v %v", a.Description, a.MatchCondition, a.RegexTarget, a.Commits, sw)
			for _, r := range a.Regexes {
				fmt.Fprintf(&b, " re %s", r.String())
			}
			for _, r := range a.Paths {
				fmt.Fprintf(&b, " path %s", r.String())
			}
			b.WriteString("\n")
		}
	}
	al(c.Allowlists)
	ids := []string{}
	for id := range c.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := c.Rules[id]
		fmt.Fprintf(&b, "%s %q %v %d %v %v %v %v\n", id, r.Description, r.Entropy, r.SecretGroup, r.Regex, r.Path, r.Keywords, r.Tags)
		al(r.Allowlists)
	}
	fmt.Fprintf(&b, "%v %v", c.Keywords, c.OrderedRules)
	return b.String()
}
