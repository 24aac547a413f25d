package rulegen

import (
	"strings"
	"testing"
)

// TestGenerateRefusesWhatTheScannerCannotApply feeds configs the scanner
// cannot apply, or gitleaks would not load, and checks each error names
// the problem.
func TestGenerateRefusesWhatTheScannerCannotApply(t *testing.T) {
	const ok = "[[rules]]\nid = \"r\"\nregex = '''k[0-9]+'''\nkeywords = [\"k\"]\n"
	for name, tc := range map[string]struct{ config, want string }{
		"not TOML":          {"[[rules]\n", "gitleaks' default config"},
		"both global forms": {"[allowlist]\nregexes = ['''a''']\n[[allowlists]]\nregexes = ['''b''']\n" + ok, "both [allowlist] and [[allowlists]]"},
		"target rules":      {"[[allowlists]]\ntargetRules = [\"r\"]\nregexes = ['''a''']\n" + ok, "allowlist for rules [r]"},
		"bad global path":   {"[allowlist]\npaths = ['''(''']\n" + ok, "allowlist path"},
		"required":          {ok + "[[rules.required]]\nid = \"s\"\n", "rule r needs other rules"},
		"both rule forms":   {ok + "[rules.allowlist]\nregexes = ['''a''']\n[[rules.allowlists]]\nregexes = ['''b''']\n", "secret rule r: both [rules.allowlist] and [[rules.allowlists]]"},
		"bad rule path":     {ok + "[[rules.allowlists]]\npaths = ['''[''']\n", "secret rule r: allowlist path"},
		"empty keyword":     {"[[rules]]\nid = \"e\"\nregex = '''k[0-9]+'''\nkeywords = [\"k\", \"\"]\n", "secret rule e: an empty keyword"},
	} {
		_, err := Generate([]byte(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Generate error %v, want one saying %q", name, err, tc.want)
		}
	}
	out, err := Generate([]byte(ok))
	if err != nil || !strings.Contains(string(out), "ID:       `r`") || !strings.Contains(string(out), "{0}, // k") {
		t.Errorf("Generate of one rule: %v\n%s", err, out)
	}
}
