// Package query holds the commands that read the index and nothing else,
// `stats` and `search`, for both dossier binaries: the one-shot front,
// which links only the store and the search engine so that it starts in a
// few milliseconds, and dossier-full, which serves every command.
package query

import (
	"github.com/dossierhq/dossier/store/config"
)

// Workspace resolves the workspace a command runs on (--root) and loads
// its config (see cli.Workspace).
type Workspace func() (string, config.Config, error)
