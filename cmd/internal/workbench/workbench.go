// Package workbench opens dossier's workbench (package ui) on a
// workspace. It is the dossier-workbench binary's command: the workbench's
// packages (Bubble Tea, glamour, chroma and the rest) cost tens of
// milliseconds of package init in every process that links them, so the
// dossier binary, which serves one-shot commands, does not, and execs
// dossier-workbench instead.
package workbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/cmd/internal/workspace"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/themes"
	"github.com/dossierhq/dossier/ui"
)

// NewCommand is dossier-workbench's root command: the workbench on
// --root with the flags dossier hands on.
func NewCommand(_ context.Context, _, stderr io.Writer) *cobra.Command {
	var root string
	var flags cli.WorkbenchFlags
	cmd := &cobra.Command{
		Use:   "dossier-workbench",
		Short: "Open dossier's workbench on the workspace",
		Long: "dossier-workbench is the workbench that `dossier` without a command opens on a terminal:\n" +
			"it brings the index up to date in the background and opens the workspace's current flow,\n" +
			"starting one when there is none.\n\n" +
			"Its panes, keys and command line: `dossier help keys` (dossier-keys(7)), or ? in the workbench;\n" +
			"its settings ([ui], [llm]): `dossier help config`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cli.IsTerminal() {
				return errors.New("the workbench needs a terminal on stdin and stdout; without one, `dossier index` indexes and prints the summary")
			}
			return Open(cmd.Context(), root, flags, stderr)
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "workspace root (default: the current directory)")
	flags.Register(cmd.Flags())
	return cmd
}

// Open runs the TUI on the workspace root (--root as given): it brings
// the index up to date in the background and opens the current flow,
// starting one when the workspace has none. The config's notices go to
// stderr.
func Open(ctx context.Context, root string, flags cli.WorkbenchFlags, stderr io.Writer) error {
	root, cfg, err := cli.Workspace(root, stderr)
	if err != nil {
		return err
	}
	theme := flags.Theme
	if theme == "" {
		theme = cfg.UI.Theme
	}
	palette, err := themes.ByName(theme)
	if err != nil {
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	e := workspace.NewEngine(root, cfg)
	e.Stdin = strings.NewReader("") // the terminal belongs to the workbench
	if _, err := e.Flow(); errors.Is(err, evidence.ErrNoFlow) {
		if _, err := evidence.Create(root, filepath.Base(root), "", "", e.Now()); err != nil {
			return err
		}
		e.Reload()
	}
	searcher := search.NewEngine()
	searcher.AllowEndpoint(cfg.Embed)
	noColor := themes.NoColor(os.Getenv)
	// One renderer for every style, ours and the components' defaults:
	// under NO_COLOR it keeps bold and reverse (themes.NewRenderer).
	r := themes.NewRenderer(os.Stdout, noColor)
	lipgloss.SetDefaultRenderer(r)
	styles := themes.NewStyles(r, palette, noColor)
	opts := ui.RunOptions{Options: ui.Options{Root: root, Engine: e, Styles: styles,
		ConfirmSend: cfg.UI.Confirm(), Settings: SendSettings(root), ConfigFiles: config.Files(root),
		Index:  Keep(root, cfg),
		Search: Search(root, searcher),
		Files:  func(ctx context.Context) ([]summary.FileSize, error) { return summary.Files(ctx, root) },
	}}
	if len(cfg.Notices) > 0 {
		opts.Notice = strings.TrimPrefix(cfg.Notices[0], "dossier: ")
	}
	if flags.Debug {
		if dir, err := os.UserCacheDir(); err == nil {
			opts.Debug = filepath.Join(dir, "dossier", "debug.log")
		}
	}
	return ui.Run(ctx, opts)
}

// SendSettings reads the settings a workbench send takes from root's
// config files, as Open does at start: the workbench calls it again when
// one of them changed (ui.Options.Settings).
func SendSettings(root string) func() (ui.SendSettings, error) {
	return func() (ui.SendSettings, error) {
		cfg, err := config.Load(root)
		if err != nil {
			return ui.SendSettings{}, err
		}
		s := ui.SendSettings{LLM: workspace.LLMConfig(cfg.LLM), Confirm: cfg.UI.Confirm()}
		if len(cfg.Notices) > 0 {
			s.Notice = strings.TrimPrefix(cfg.Notices[0], "dossier: ")
		}
		return s, nil
	}
}

// Keep is the workbench's index keeper: index.Keep, as `dossier mcp`
// runs it, reporting to the workbench. The start-up run brings the index
// up to date; from then on it follows the workspace, so a file saved
// while the workbench is open is found by its search overlay; while
// another dossier process holds the writer lock, that process writes the
// index and the keeper waits its turn.
func Keep(root string, cfg config.Config) func(context.Context, ui.IndexEvents) error {
	return func(ctx context.Context, ev ui.IndexEvents) error {
		iopts := workspace.IndexOptions(root, cfg)
		iopts.Progress = func(p index.Progress) { ev.Progress(p.Done, p.Total) }
		iopts.Notice = ev.Notice
		var err error
		if iopts.Model, iopts.Embedder, err = index.NewEmbedder(cfg.Embed, ""); err != nil {
			return err
		}
		return index.Keep(ctx, iopts, index.KeepHooks{
			Waiting: func(err error) { ev.Waiting(err.Error()) },
			Ran:     func(index.Summary) { ev.Ready() },
			Batch: func(s index.Summary, err error) {
				ev.Batch(s.Indexed+s.Touched, s.Removed, err)
			},
		})
	}
}

// Search is the search overlay's search: one engine for the session
// keeps what it derived from the index (vectors, symbol names, recent
// results) between queries (it is not safe for concurrent use), and the
// route:, controller: and table: filters are walked once per distinct
// filter and applied as search --route/--controller/--table do.
func Search(root string, searcher *search.Engine) ui.SearchFunc {
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
