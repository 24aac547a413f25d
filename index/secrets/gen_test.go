package secrets

import (
	"bytes"
	_ "embed"
	"os"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/secrets/internal/rulegen"
)

// defaultConfig is gitleaks.toml, which gitleaks_gen.go is generated from.
//
//go:embed gitleaks.toml
var defaultConfig string

// TestGeneratedRulesAreGitleaksToml regenerates the rules from
// gitleaks.toml and compares them with gitleaks_gen.go, so an upgrade of
// the config cannot leave the rules a process reads behind.
func TestGeneratedRulesAreGitleaksToml(t *testing.T) {
	want, err := rulegen.Generate([]byte(defaultConfig))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("gitleaks_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("gitleaks_gen.go is not what gitleaks.toml gives (run go generate ./index/secrets): line %d is\n%s\nnot\n%s", i+1, g[i], w[i])
			}
		}
		t.Fatalf("gitleaks_gen.go has %d lines, gitleaks.toml gives %d (run go generate ./index/secrets)", len(g), len(w))
	}
}
