// Package workspace builds the engines of a workspace from its settings:
// the evidence engine, the model endpoint and the index options that the
// full dossier and the workbench share (the one-shot front links none).
package workspace

import (
	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store/config"
)

// NewEngine is the evidence engine of a workspace with its settings: one
// for a CLI command, one for a workbench session.
func NewEngine(root string, cfg config.Config) *evidence.Engine {
	e := evidence.NewEngine(root)
	e.Model, e.DefaultBudget, e.DefaultFormat = cfg.Prompt.Model, cfg.Prompt.Budget, cfg.Prompt.Format
	e.AllowSecrets = cfg.Secrets.Allow
	e.ExtraRoots = cfg.Evidence.ExtraRoots
	e.Discover.Exclude = cfg.Index.Exclude // folders and globs skip what the index skips
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
