package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store/config"
)

// Workspace resolves root (--root; default: the current directory) and
// loads its config, printing the config's notices (ignored settings of an
// untrusted workspace) on notices unless it is nil.
func Workspace(root string, notices io.Writer) (string, config.Config, error) {
	root, err := ResolveRoot(root)
	if err != nil {
		return "", config.Config{}, err
	}
	cfg, err := config.Load(root)
	if err == nil && notices != nil {
		for _, n := range cfg.Notices {
			fmt.Fprintln(notices, n)
		}
	}
	return root, cfg, err
}

// ResolveRoot returns root (--root; default: the current directory) as
// an absolute path to an existing directory.
func ResolveRoot(root string) (string, error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("root %q: %w", root, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("root %s does not exist: pass an existing directory with --root", abs)
	case err != nil:
		return "", fmt.Errorf("root %s: %w", abs, err)
	case !st.IsDir():
		return "", fmt.Errorf("root %s is not a directory: pass a directory with --root", abs)
	}
	return abs, nil
}

// NewEngine is the evidence engine of a workspace with its settings: one
// for a CLI command, one for a workbench session.
func NewEngine(root string, cfg config.Config) *evidence.Engine {
	e := evidence.NewEngine(root)
	e.Model, e.DefaultBudget, e.DefaultFormat = cfg.Prompt.Model, cfg.Prompt.Budget, cfg.Prompt.Format
	e.AllowSecrets = cfg.Secrets.Allow
	e.ExtraRoots = cfg.Evidence.ExtraRoots
	e.LLM = LLMConfig(cfg.LLM)
	return e
}

// LLMConfig is the engine's endpoint from config [llm] (after flags).
func LLMConfig(l config.LLM) evidence.LLMConfig {
	c := evidence.LLMConfig{APIKeyEnv: l.APIKeyEnv}
	c.BaseURL, c.Model, c.API = l.BaseURL, l.Model, send.API(l.API)
	c.MaxOutputTokens, c.Timeout, c.MaxRetries, c.ServerState = l.MaxOutputTokens, l.TimeoutDuration(), l.MaxRetries, l.ServerState
	if l.Temperature != nil {
		t := float32(*l.Temperature)
		c.Temperature = &t
	}
	if l.InputPrice != nil && l.OutputPrice != nil {
		c.Price = &send.Price{Input: *l.InputPrice, Output: *l.OutputPrice}
	}
	return c
}

// IndexOptions are the index options the workspace's config gives, the
// same for `index`, the MCP server's keeper and the workbench.
func IndexOptions(root string, cfg config.Config) index.Options {
	return index.Options{Root: root, MaxFileSize: cfg.Index.MaxFileSize, Workers: cfg.Index.Workers,
		Exclude: cfg.Index.Exclude, HistoryDepth: cfg.Index.HistoryDepth, HistoryCommits: cfg.Index.HistoryCommits,
		RunSummaries: cfg.Index.IncludeRunSummaries}
}
