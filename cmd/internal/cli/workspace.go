package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dossierhq/dossier/store/config"
)

// Workspace resolves root (--root; default: the current directory) and
// loads its config, printing the config's notices (ignored settings of an
// untrusted workspace) on notices unless it is nil. A fresh clone whose
// config names a shared store is linked to it (see LinkFromStore).
func Workspace(root string, notices io.Writer) (string, config.Config, error) {
	root, err := ResolveRoot(root)
	if err != nil {
		return "", config.Config{}, err
	}
	cfg, err := config.Load(root)
	if err != nil {
		return root, cfg, err
	}
	note, err := LinkFromStore(root, cfg.Store.URL, cfg.Store.PasswordEnv, cfg)
	if note != "" {
		cfg.Notices = append(cfg.Notices, note)
	}
	if notices != nil {
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
