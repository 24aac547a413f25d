package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
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
	root, err := g.resolveRoot()
	if err != nil {
		return "", config.Config{}, err
	}
	cfg, err := config.Load(root)
	if err == nil && g.stderr != nil {
		for _, n := range cfg.Notices {
			fmt.Fprintln(g.stderr, n)
		}
	}
	return root, cfg, err
}

// resolveRoot returns --root (default: the current directory) as an
// absolute path to an existing directory.
func (g *globals) resolveRoot() (string, error) {
	root := g.root
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

func newRootCmd(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stderr: stderr}
	root := &cobra.Command{
		Use:   "dossier",
		Short: "Curate the context you send to LLMs",
		Long: "dossier indexes a repository (tree-sitter chunks, symbols, imports, test links) into\n" +
			".dossier/index.db and helps you curate and assemble prompt context from it.\n\n" +
			"Without a command it opens the workbench on the workspace (indexing it in the\n" +
			"background); when stdin or stdout is not a terminal it indexes and prints the summary.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetContext(ctx)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return fmt.Errorf("%w: %v", errUsage, err) })
	root.PersistentFlags().StringVar(&g.root, "root", "", "workspace root (default: the current directory)")
	idx := newIndexCmd(g)
	wb := &workbenchOptions{globals: g}
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if isTerminal() && !cmd.Flags().Changed("json") && !cmd.Flags().Changed("watch") {
			return wb.openWorkbench(cmd)
		}
		return idx.RunE(cmd, args)
	}
	root.Flags().AddFlagSet(idx.Flags())
	root.Flags().StringVar(&wb.theme, "theme", "", "workbench theme: auto, dark, light or high-contrast (default from config [ui] theme)")
	root.Flags().BoolVar(&wb.debug, "debug", false, "log the workbench to $XDG_CACHE_HOME/dossier/debug.log")
	root.AddCommand(newMCPCmd(g))
	root.AddCommand(idx, newStatsCmd(g), newSearchCmd(g), newRelatedCmd(g),
		newFlowCmd(g), newEvidenceCmd(g), newAssembleCmd(g), newAskCmd(g), newEnvCmd(g), newSendCmd(g), newTrustCmd(g), newDoctorCmd(g))
	return root
}

// execute runs dossier with args. Output to a terminal has the control
// characters and escape sequences of file names and contents escaped
// (termsafe); output to a pipe or a file is written byte for byte.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return executeOn(ctx, args, stdout, stderr, termsafe.IsTerminal)
}

// executeOn is execute with the decision of which writers are terminals
// given, so tests can check terminal output without a TTY.
func executeOn(ctx context.Context, args []string, stdout, stderr io.Writer, tty func(io.Writer) bool) int {
	stdout, stderr = termsafe.Wrap(stdout, tty), termsafe.Wrap(stderr, tty)
	code := runRoot(ctx, args, stdout, stderr)
	for _, w := range []io.Writer{stdout, stderr} {
		if tw, ok := w.(*termsafe.Writer); ok {
			_ = tw.Flush()
		}
	}
	return code
}

func runRoot(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	// Whatever goes wrong, the user gets one line, never a Go trace: a
	// fault on the mapped index (outside the store's own guards) panics
	// instead of crashing, and a panic becomes that line.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			code = reportPanic(stderr, r)
		}
	}()
	// A command that has to wait for an indexer's write says so, once.
	ctx = store.WithWaitNotice(ctx, func(pid int) {
		holder := ""
		if pid > 0 {
			holder = fmt.Sprintf(" (pid %d)", pid)
		}
		fmt.Fprintf(stderr, "waiting for the indexer to finish writing%s...\n", holder)
	})
	cmd := newRootCmd(ctx, stdout, stderr)
	cmd.SetArgs(args)
	if prof := os.Getenv("DOSSIER_CPUPROFILE"); prof != "" {
		if f, err := os.Create(prof); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	err := cmd.Execute()
	if prof := os.Getenv("DOSSIER_MEMPROFILE"); prof != "" {
		if f, err := os.Create(prof); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	var reported errReported
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &reported):
		return reported.code // the command said what happened
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		fmt.Fprintln(stderr, "dossier: interrupted; everything written so far is kept, run the command again to finish")
		return exitInterrupted
	case errors.Is(err, errProblems):
		return exitError // the command printed them
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "dossier:", strings.TrimPrefix(err.Error(), "usage: "))
		fmt.Fprintln(stderr, "run `dossier --help` for usage")
		return exitUsage
	case strings.HasPrefix(err.Error(), "unknown command"), strings.Contains(err.Error(), "accepts 0 arg"):
		fmt.Fprintln(stderr, "dossier:", err)
		fmt.Fprintln(stderr, "run `dossier --help` for usage")
		return exitUsage
	default:
		fmt.Fprintln(stderr, "dossier:", err)
		return exitError
	}
}

var errUsage = errors.New("usage")

// reportPanic prints a recovered panic as one line and returns the exit
// code: a damaged index with its repair, anything else as a bug.
func reportPanic(stderr io.Writer, r any) int {
	if err, ok := r.(error); ok && errors.Is(err, store.ErrDamaged) {
		fmt.Fprintln(stderr, "dossier:", err)
		return exitError
	}
	fmt.Fprintf(stderr, "dossier: internal error: %v; please report it\n", r)
	if _, ok := r.(interface{ Addr() uintptr }); ok { // a memory fault
		fmt.Fprintln(stderr, "dossier: if it happened reading the index, `dossier doctor` checks it and `dossier index` rebuilds a damaged one")
	}
	return exitError
}
