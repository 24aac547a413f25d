package main

import (
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/linkcheck"
)

// fullOnly are packages the one-shot front must not link ("/..." for a
// package and those under it): their package init, or the size they add,
// is what the front exists to spare `stats` and `search`. dossier-full
// links them.
var fullOnly = []string{
	"github.com/dossierhq/dossier/index",          // the indexer; index/search and index/summary are the front's
	"github.com/dossierhq/dossier/index/describe", // the describers, on tree-sitter
	"github.com/dossierhq/dossier/index/embed/remote",
	"github.com/dossierhq/dossier/evidence/...",
	"github.com/dossierhq/dossier/assemble/...",
	"github.com/dossierhq/dossier/ui",
	"github.com/dossierhq/dossier/cmd/internal/workspace",
	"github.com/smacker/go-tree-sitter/...",
	"github.com/sashabaranov/go-openai/...",
	"github.com/modelcontextprotocol/go-sdk/...",
	"github.com/go-git/...",
	"github.com/charmbracelet/...",
	"net/http",
	"encoding/gob",
	"gopkg.in/yaml.v3",
	// The front parses its two commands' flags with pflag: cobra's
	// Execute (and its help templates) cost ~1 ms of every start.
	"github.com/spf13/cobra",
	"github.com/dossierhq/dossier/cmd/internal/cli/cobracli",
	"text/template",
}

// TestFrontLinksOnlyTheReaders: the one-shot front links the store, its
// config and the search engine, none of the indexer, the engines of
// flows and prompts, the clients of remote endpoints or the workbench.
func TestFrontLinksOnlyTheReaders(t *testing.T) {
	deps := linkcheck.Deps(t, "github.com/dossierhq/dossier/index/search")
	for _, dep := range linkcheck.Matching(deps, fullOnly) {
		t.Errorf("cmd/dossier links %s, which only dossier-full needs: `go list -deps` shows the path", dep)
	}
}
