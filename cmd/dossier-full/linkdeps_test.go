package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !strings.Contains(string(out), "github.com/spf13/cobra\n") {
		t.Fatalf("go list -deps listed no dependencies of cmd/dossier-full:\n%s", out)
	}
	for _, dep := range deps {
		for _, bad := range workbenchOnly {
			tree, ok := strings.CutSuffix(bad, "/...")
			if dep == bad || ok && (dep == tree || strings.HasPrefix(dep, tree+"/")) {
				t.Errorf("cmd/dossier-full links %s, which only the workbench (cmd/dossier-workbench) needs: `go mod why -m` or `go list -deps` shows the path", dep)
			}
		}
		for _, bad := range testOnly {
			tree, _ := strings.CutSuffix(bad, "/...")
			if dep == tree || strings.HasPrefix(dep, tree+"/") {
				t.Errorf("cmd/dossier-full links %s, whose package init every process pays; only tests may import it: `go list -deps` shows the path", dep)
			}
		}
	}
}
