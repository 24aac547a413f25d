// Package cli is what dossier's binaries share above the engines: running
// a command as a process (exit codes, one-line errors, signals, escaped
// terminal output), the workspace with its config, and the workbench's
// flags. It links no command framework: the one-shot front parses its
// two commands' flags itself, and package cobracli runs the cobra
// commands of the other binaries.
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

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Exit codes. A command a signal stopped exits with 128 + the signal
// (Stopped.ExitCode); ExitInterrupted is for one cancelled otherwise.
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

// Run runs fn as the whole of a process's command and returns the exit
// code: whatever goes wrong, the user gets one line, never a Go trace (a
// fault on the mapped index, outside the store's own guards, panics
// instead of crashing, and a panic becomes that line); a command that has
// to wait for an indexer's write says so, once; DOSSIER_CPUPROFILE and
// DOSSIER_MEMPROFILE name profiles to write. name gives the command's
// name once fn has run, for the pointer to its --help.
func Run(ctx context.Context, stderr io.Writer, name func() string, fn func(ctx context.Context) error) (code int) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			code = reportPanic(stderr, r)
		}
	}()
	ctx = store.WithWaitNotice(ctx, func(pid int) {
		holder := ""
		if pid > 0 {
			holder = fmt.Sprintf(" (pid %d)", pid)
		}
		fmt.Fprintf(stderr, "waiting for the indexer to finish writing%s...\n", holder)
	})
	if prof := os.Getenv("DOSSIER_CPUPROFILE"); prof != "" {
		if f, err := os.Create(prof); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	err := fn(ctx)
	if prof := os.Getenv("DOSSIER_MEMPROFILE"); prof != "" {
		if f, err := os.Create(prof); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	return report(ctx, stderr, name(), err)
}

// report prints what err says went wrong, as one line, and returns the
// exit code.
func report(ctx context.Context, stderr io.Writer, name string, err error) int {
	if s, ok := StoppedBy(ctx); ok {
		return reportStopped(stderr, s, err)
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
		fmt.Fprintf(stderr, "run `%s --help` for usage\n", name)
		return ExitUsage
	case strings.HasPrefix(err.Error(), "unknown command"), strings.Contains(err.Error(), "accepts 0 arg"):
		// cobra's own words for a command line it cannot take
		fmt.Fprintln(stderr, "dossier:", err)
		fmt.Fprintf(stderr, "run `%s --help` for usage\n", name)
		return ExitUsage
	default:
		fmt.Fprintln(stderr, "dossier:", err)
		return ExitError
	}
}

// reportStopped ends a command that a signal stopped: whatever it
// returned, the exit code is the signal's (a watch, a server and the
// workbench return nothing when stopped, yet did not end of their own
// accord). An error that is not the cancel itself is said first.
func reportStopped(stderr io.Writer, s *Stopped, err error) int {
	var reported Reported
	switch {
	case errors.As(err, &reported):
		// The command said what happened, and what became of its work.
	case err == nil:
		s.say(stderr, "")
	case errors.Is(err, context.Canceled):
		s.say(stderr, keptNote)
	default:
		fmt.Fprintln(stderr, "dossier:", err)
		s.say(stderr, keptNote)
	}
	return s.ExitCode()
}

// Wrap returns stdout and stderr as a command writes them: output to a
// terminal has the control characters and escape sequences of file names
// and contents escaped (termsafe); output to a pipe or a file is written
// byte for byte. tty decides which writers are terminals (nil:
// termsafe.IsTerminal). flush writes what the escaping writers hold.
func Wrap(stdout, stderr io.Writer, tty func(io.Writer) bool) (_, _ io.Writer, flush func()) {
	stdout, stderr = termsafe.Wrap(stdout, tty), termsafe.Wrap(stderr, tty)
	return stdout, stderr, func() {
		for _, w := range []io.Writer{stdout, stderr} {
			if tw, ok := w.(*termsafe.Writer); ok {
				_ = tw.Flush()
			}
		}
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
