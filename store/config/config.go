// Package config reads dossier's settings: built-in defaults, then the user
// file ($XDG_CONFIG_HOME/dossier/config.toml), then the workspace file
// (<root>/.dossier.toml); flags override all three.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
)

// FileName is the workspace config file at the root of a workspace.
const FileName = ".dossier.toml"

// Config is every setting dossier reads from files.
type Config struct {
	Index Index `toml:"index"`
}

// Index configures discovery and indexing.
type Index struct {
	// MaxFileSize skips larger files (bytes).
	MaxFileSize int64 `toml:"max_file_size"`
	// Workers is the number of parallel file processors; 0 means one per core.
	Workers int `toml:"workers"`
	// Exclude adds ignore patterns (.gitignore syntax) relative to the root.
	Exclude []string `toml:"exclude"`
}

// Default returns the built-in settings.
func Default() Config {
	return Config{Index: Index{MaxFileSize: 1 << 20}}
}

// Load returns the settings for a workspace root. A missing file is fine; a
// malformed one is an error that names the file and the problem.
func Load(root string) (Config, error) {
	c := Default()
	var paths []string
	if dir, err := os.UserConfigDir(); err == nil {
		paths = append(paths, filepath.Join(dir, "dossier", "config.toml"))
	}
	paths = append(paths, filepath.Join(root, FileName))
	for _, p := range paths {
		if err := merge(&c, p); err != nil {
			return c, err
		}
	}
	if c.Index.MaxFileSize <= 0 {
		return c, fmt.Errorf("config: index.max_file_size must be positive, got %d", c.Index.MaxFileSize)
	}
	if c.Index.Workers < 0 {
		return c, fmt.Errorf("config: index.workers must be 0 (one per core) or more, got %d", c.Index.Workers)
	}
	return c, nil
}

func merge(c *Config, path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return fmt.Errorf("config %s:%d:%d: %s", path, row, col, de.String())
		}
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) {
			return fmt.Errorf("config %s: unknown setting: %s", path, sm.String())
		}
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}
