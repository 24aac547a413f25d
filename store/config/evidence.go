package config

import (
	"fmt"
	"path/filepath"
)

// Evidence sets what flows may read.
type Evidence struct {
	// ExtraRoots are directories outside the workspace whose files flow
	// parts and .evidence.link parts may read; absolute paths. Anything
	// else outside the workspace and the flow is refused.
	ExtraRoots []string `toml:"extra_roots"`
}

// Check reports the first extra root that cannot be used.
func (e Evidence) Check() error {
	for _, r := range e.ExtraRoots {
		switch {
		case !filepath.IsAbs(r):
			return fmt.Errorf("config: evidence.extra_roots %q is not an absolute path: give the directory from / (e.g. \"/home/me/notes\")", r)
		case filepath.Clean(r) == string(filepath.Separator):
			return fmt.Errorf("config: evidence.extra_roots %q would let flows read any file on the machine: name the directory that holds the files", r)
		}
	}
	return nil
}
