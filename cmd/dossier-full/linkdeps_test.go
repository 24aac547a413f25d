package main

import (
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/linkcheck"
)

// workbenchOnly are the packages that only the workbench needs ("/..."
// for a package and those under it): their package init costs every
// process that links them tens of milliseconds, so they live in
// dossier-workbench only.
var workbenchOnly = []string{
	"github.com/dossierhq/dossier/ui", // not ui/termsafe, which escapes CLI output
	"github.com/dossierhq/dossier/themes",
	"github.com/dossierhq/dossier/cmd/internal/workbench",
	"github.com/charmbracelet/bubbletea/...",
	"github.com/charmbracelet/glamour/...",
	"github.com/alecthomas/chroma/...",
	"github.com/yuin/goldmark/...",
	"github.com/yuin/goldmark-emoji/...",
	"github.com/microcosm-cc/bluemonday/...",
}

// testOnly are packages whose init is slow and whose work dossier does
// itself: tests import them to check that work (index/secrets against
// gitleaks, assemble/tokens against tiktoken-go), the binaries never.
var testOnly = []string{
	"github.com/zricethezav/gitleaks/v8/...", // ~5 ms: viper, filetype, sprig, semver, go-version...
	"github.com/tiktoken-go/tokenizer/...",   // regexp2's tables and the vocabularies' map literals
	"github.com/dlclark/regexp2/...",
	"github.com/spf13/viper/...",
	"github.com/schollz/progressbar/...",
}

// TestDossierDoesNotLinkTheWorkbench: dossier-full, which serves
// every command but the workbench, links none of the workbench's packages, nor any
// package only tests need.
func TestDossierDoesNotLinkTheWorkbench(t *testing.T) {
	deps := linkcheck.Deps(t, "github.com/spf13/cobra")
	for _, dep := range linkcheck.Matching(deps, workbenchOnly) {
		t.Errorf("cmd/dossier-full links %s, which only the workbench (cmd/dossier-workbench) needs: `go mod why -m` or `go list -deps` shows the path", dep)
	}
	for _, dep := range linkcheck.Matching(deps, testOnly) {
		t.Errorf("cmd/dossier-full links %s, whose package init every process pays; only tests may import it: `go list -deps` shows the path", dep)
	}
}
