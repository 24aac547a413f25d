package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/themes"
	"github.com/dossierhq/dossier/ui"
)

// workbenchOptions are the flags of `dossier` without a command.
type workbenchOptions struct {
	*globals
	theme string
	debug bool
}

// openWorkbench runs the TUI on the workspace: it brings the index up to
// date in the background and opens the current flow, starting one when
// the workspace has none.
func (o *workbenchOptions) openWorkbench(cmd *cobra.Command) error {
	root, cfg, err := o.workspace()
	if err != nil {
		return err
	}
	theme := o.theme
	if theme == "" {
		theme = cfg.UI.Theme
	}
	palette, err := themes.ByName(theme)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	e := newEngine(root, cfg)
	e.Stdin = strings.NewReader("") // the terminal belongs to the workbench
	if _, err := e.Flow(); errors.Is(err, evidence.ErrNoFlow) {
		if _, err := evidence.Create(root, filepath.Base(root), "", "", e.Now()); err != nil {
			return err
		}
		e.Reload()
	}
	searcher := search.NewEngine()
	searcher.AllowEndpoint(cfg.Embed)
	styles := themes.NewStyles(lipgloss.DefaultRenderer(), palette, themes.NoColor(os.Getenv))
	opts := ui.RunOptions{Options: ui.Options{Root: root, Engine: e, Styles: styles,
		Index: func(ctx context.Context, progress func(done, total int)) error {
			iopts := configuredIndex(root, cfg)
			iopts.Progress = func(p index.Progress) { progress(p.Done, p.Total) }
			var err error
			if iopts.Model, iopts.Embedder, err = index.NewEmbedder(cfg.Embed, ""); err != nil {
				return err
			}
			ix, err := index.Open(iopts)
			if err != nil {
				return err
			}
			defer ix.Close()
			_, err = ix.Run(ctx)
			return err
		},
		Search: workbenchSearch(root, searcher),
	}}
	if len(cfg.Notices) > 0 {
		opts.Notice = strings.TrimPrefix(cfg.Notices[0], "dossier: ")
	}
	if o.debug {
		if dir, err := os.UserCacheDir(); err == nil {
			opts.Debug = filepath.Join(dir, "dossier", "debug.log")
		}
	}
	return ui.Run(cmd.Context(), opts)
}

// workbenchSearch is the search overlay's search: one engine for the
// session keeps what it derived from the index (vectors, symbol names,
// recent results) between queries (it is not safe for concurrent use),
// and the route:, controller: and table: filters are walked once per
// distinct filter and applied as search --route/--controller/--table do.
func workbenchSearch(root string, searcher *search.Engine) ui.SearchFunc {
	var mu sync.Mutex
	var scopes search.Scopes
	run := func(ctx context.Context, q search.Query) (search.Response, error) {
		return searcher.SearchRoot(ctx, root, q)
	}
	return func(ctx context.Context, q search.Query, g search.Graph) (search.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if g.Empty() {
			return run(ctx, q)
		}
		scope, err := scopes.Scope(ctx, root, g)
		if err != nil {
			return search.Response{}, err
		}
		return search.SearchScoped(ctx, q, scope, run)
	}
}

// isTerminal reports whether the workbench can take over the terminal.
func isTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}
