package config

import (
	"regexp"
	"testing"
)

// TestEnvNameIsItsPattern checks envName against the pattern it stands for.
func TestEnvNameIsItsPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for _, s := range []string{"", "A", "_", "9", "OPENAI_API_KEY", "key9", "9key", "sk-abc", "a b", "Ä", "a\n", "_9", "zZ_09"} {
		if got, want := envName.MatchString(s), re.MatchString(s); got != want {
			t.Errorf("envName.MatchString(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}
