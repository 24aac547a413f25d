// Package cobracli runs a binary's cobra root command as the process
// (package cli's Run: exit codes, one-line errors, signals, escaped
// terminal output). The one-shot dossier front does without it, and
// without cobra's start.
package cobracli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/cmd/internal/heapcap"
)

// RootFunc builds a binary's root command; the runner sets its output,
// context, arguments and error handling.
type RootFunc func(ctx context.Context, stdout, stderr io.Writer) *cobra.Command

// Main runs the root command that build makes on the process's
// arguments, cancelled by SIGINT or SIGTERM, and exits with its code.
// The heap is capped as package heapcap says: these binaries index.
func Main(build RootFunc) {
	heapcap.Start(heapcap.Floor)
	ctx, stop := cli.Interruptible(os.Stderr, os.Exit)
	code := Execute(ctx, os.Args[1:], os.Stdout, os.Stderr, build)
	stop()
	os.Exit(code)
}

// Execute runs the root command that build makes with args and returns
// the exit code (see cli.Wrap for what a terminal is written).
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer, build RootFunc) int {
	return ExecuteOn(ctx, args, stdout, stderr, nil, build)
}

// ExecuteOn is Execute with the decision of which writers are terminals
// given, so tests can check terminal output without a TTY.
func ExecuteOn(ctx context.Context, args []string, stdout, stderr io.Writer, tty func(io.Writer) bool, build RootFunc) int {
	stdout, stderr, flush := cli.Wrap(stdout, stderr, tty)
	defer flush()
	name := "dossier"
	return cli.Run(ctx, stderr, func() string { return name }, func(ctx context.Context) error {
		cmd := build(ctx, stdout, stderr)
		name = cmd.Name()
		cmd.SetOut(stdout)
		cmd.SetErr(stderr)
		cmd.SetContext(ctx)
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return fmt.Errorf("%w: %v", cli.ErrUsage, err) })
		setVersion(cmd)
		// The command that ran, or failed to: a usage error points at
		// its own --help (`dossier flow new --help`), not the root's.
		ran, err := cmd.ExecuteC()
		if ran != nil {
			name = ran.CommandPath()
		}
		return err
	})
}

// setVersion gives the root command --version, which prints the binary's
// name and build version (cli.Version) on one line.
func setVersion(cmd *cobra.Command) {
	if cmd.Version == "" {
		cmd.Version = cli.Version().String()
	}
	cmd.SetVersionTemplate("{{.Name}} {{.Version}}\n")
}
