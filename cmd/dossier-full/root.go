package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/cmd/internal/cli/cobracli"
	"github.com/dossierhq/dossier/cmd/internal/helptopic"
	setup "github.com/dossierhq/dossier/cmd/internal/workspace"
	"github.com/dossierhq/dossier/store/config"
)

// The exit codes and the errors that choose them are shared with
// dossier-workbench.
const (
	exitOK          = cli.ExitOK
	exitError       = cli.ExitError
	exitUsage       = cli.ExitUsage
	exitInterrupted = cli.ExitInterrupted
)

var errUsage = cli.ErrUsage

// errReported ends a command that has said what went wrong: exit with
// code, print nothing more.
type errReported struct{ code int }

func (e errReported) Error() string { return fmt.Sprintf("exit %d", e.code) }

// ExitCode makes it a cli.Reported.
func (e errReported) ExitCode() int { return e.code }

// The evidence engine of a workspace, as dossier-workbench builds it.
var (
	newEngine = setup.NewEngine
	llmConfig = setup.LLMConfig
)

// globals are the flags every command shares.
type globals struct {
	root   string
	stderr io.Writer // the root command's; notices go here
}

// workspace resolves --root (default: the current directory) and loads
// its config, printing the config's notices (ignored settings of an
// untrusted workspace) on stderr.
func (g *globals) workspace() (string, config.Config, error) {
	return cli.Workspace(g.root, g.stderr)
}

// quietWorkspace is workspace without printing the notices: the
// commands of package query print them themselves (query.Workspace).
func (g *globals) quietWorkspace() (string, config.Config, error) { return cli.Workspace(g.root, nil) }

// resolveRoot returns --root (default: the current directory) as an
// absolute path to an existing directory.
func (g *globals) resolveRoot() (string, error) { return cli.ResolveRoot(g.root) }

func newRootCmd(_ context.Context, _, stderr io.Writer) *cobra.Command {
	g := &globals{stderr: stderr}
	root := &cobra.Command{
		Use:   "dossier",
		Short: "Curate the context you send to LLMs",
		Long: "dossier indexes a repository (tree-sitter chunks, symbols, imports, test links) into\n" +
			".dossier/index.db and helps you curate and assemble prompt context from it.\n\n" +
			"Without a command it opens the workbench on the workspace (indexing it in the\n" +
			"background); when stdin or stdout is not a terminal it indexes and prints the summary.\n\n" +
			"The reference: `dossier help COMMAND` for a command, `dossier help TOPIC` for a topic\n" +
			"(listed under \"Additional help topics\"), `make man` for manual pages of both.",
		Args: cobra.NoArgs,
	}
	root.PersistentFlags().StringVar(&g.root, "root", "", "workspace root (default: the current directory)")
	idx := newIndexCmd(g)
	var wb cli.WorkbenchFlags
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if cli.IsTerminal() && !cmd.Flags().Changed("json") && !cmd.Flags().Changed("watch") {
			return openWorkbench(cmd.Context(), g.root, wb, cmd.ErrOrStderr())
		}
		return idx.RunE(cmd, args)
	}
	root.Flags().AddFlagSet(idx.Flags())
	wb.Register(root.Flags())
	root.AddCommand(newMCPCmd(g), newStoreCmd(g))
	root.AddCommand(idx, newStatsCmd(g.quietWorkspace), newSearchCmd(g.quietWorkspace), newRelatedCmd(g),
		newFlowCmd(g), newEvidenceCmd(g), newAssembleCmd(g), newAskCmd(g), newEnvCmd(g), newSendCmd(g), newTrustCmd(g), newDoctorCmd(g))
	helptopic.Add(root)
	return root
}

// execute runs dossier with args (cobracli.Execute).
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cobracli.Execute(ctx, args, stdout, stderr, newRootCmd)
}

// executeOn is execute with the decision of which writers are terminals
// given, so tests can check terminal output without a TTY.
func executeOn(ctx context.Context, args []string, stdout, stderr io.Writer, tty func(io.Writer) bool) int {
	return cobracli.ExecuteOn(ctx, args, stdout, stderr, tty, newRootCmd)
}
