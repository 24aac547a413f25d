// Package cli is what the dossier and dossier-workbench binaries share
// above the engines: running a root command as a process (exit codes,
// one-line errors, signals, escaped terminal output), the workspace with
// its config and evidence engine, and the workbench's flags.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// ErrUsage marks an error in the command line: the process prints the
// message and a pointer to --help, and exits with ExitUsage.
var ErrUsage = errors.New("usage")

// Reported is the error of a command that has said what went wrong: the
// process exits with its ExitCode and prints nothing more.
type Reported interface {
	error
	ExitCode() int
}

// RootFunc builds a binary's root command; the runner sets its output,
// context, arguments and error handling.
type RootFunc func(ctx context.Context, stdout, stderr io.Writer) *cobra.Command

// Main runs the root command that build makes on the process's
// arguments, cancelled by SIGINT or SIGTERM, and exits with its code.
func Main(build RootFunc) {
	ctx, stop := Interruptible(os.Stderr, os.Exit)
	code := Execute(ctx, os.Args[1:], os.Stdout, os.Stderr, build)
	stop()
	os.Exit(code)
}

// Execute runs the root command that build makes with args and returns
// the exit code. Output to a terminal has the control characters and
// escape sequences of file names and contents escaped (termsafe); output
// to a pipe or a file is written byte for byte.
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer, build RootFunc) int {
	return ExecuteOn(ctx, args, stdout, stderr, termsafe.IsTerminal, build)
}

// ExecuteOn is Execute with the decision of which writers are terminals
// given, so tests can check terminal output without a TTY.
func ExecuteOn(ctx context.Context, args []string, stdout, stderr io.Writer, tty func(io.Writer) bool, build RootFunc) int {
	stdout, stderr = termsafe.Wrap(stdout, tty), termsafe.Wrap(stderr, tty)
	code := run(ctx, args, stdout, stderr, build)
	for _, w := range []io.Writer{stdout, stderr} {
		if tw, ok := w.(*termsafe.Writer); ok {
			_ = tw.Flush()
		}
	}
	return code
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, build RootFunc) (code int) {
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
	cmd := build(ctx, stdout, stderr)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetContext(ctx)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return fmt.Errorf("%w: %v", ErrUsage, err) })
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
	var reported Reported
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &reported):
		return reported.ExitCode() // the command said what happened
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		fmt.Fprintln(stderr, "dossier: interrupted; everything written so far is kept, run the command again to finish")
		return ExitInterrupted
	case errors.Is(err, ErrUsage):
		fmt.Fprintln(stderr, "dossier:", strings.TrimPrefix(err.Error(), "usage: "))
		fmt.Fprintf(stderr, "run `%s --help` for usage\n", cmd.Name())
		return ExitUsage
	case strings.HasPrefix(err.Error(), "unknown command"), strings.Contains(err.Error(), "accepts 0 arg"):
		fmt.Fprintln(stderr, "dossier:", err)
		fmt.Fprintf(stderr, "run `%s --help` for usage\n", cmd.Name())
		return ExitUsage
	default:
		fmt.Fprintln(stderr, "dossier:", err)
		return ExitError
	}
}

// reportPanic prints a recovered panic as one line and returns the exit
// code: a damaged index with its repair, anything else as a bug.
func reportPanic(stderr io.Writer, r any) int {
	if err, ok := r.(error); ok && errors.Is(err, store.ErrDamaged) {
		fmt.Fprintln(stderr, "dossier:", err)
		return ExitError
	}
	fmt.Fprintf(stderr, "dossier: internal error: %v; please report it\n", r)
	if _, ok := r.(interface{ Addr() uintptr }); ok { // a memory fault
		fmt.Fprintln(stderr, "dossier: if it happened reading the index, `dossier doctor` checks it and `dossier index` rebuilds a damaged one")
	}
	return ExitError
}
