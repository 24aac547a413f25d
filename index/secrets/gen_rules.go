//go:build ignore

// gen_rules writes gitleaks_gen.go from gitleaks.toml (go generate; see
// internal/rulegen).
package main

import (
	"log"
	"os"

	"github.com/dossierhq/dossier/index/secrets/internal/rulegen"
)

func main() {
	src, err := os.ReadFile("gitleaks.toml")
	if err != nil {
		log.Fatal(err)
	}
	out, err := rulegen.Generate(src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("gitleaks_gen.go", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
