// Command dossier is a terminal workbench for curating the context that
// engineers send to LLMs. This binary is its one-shot front: it answers
// `stats` and `search`, which read the index and nothing else, linking only
// the store and the search engine so that a script, an editor or an agent
// gets an answer in a few milliseconds. Every other command it hands to
// dossier-full, which it replaces by exec; dossier alone on a terminal
// execs the workbench, dossier-workbench, as dossier-full would.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/cmd/internal/query"
	"github.com/dossierhq/dossier/cmd/internal/sibling"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/ui/termsafe"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 && cli.IsTerminal() {
		// The workbench, as dossier-full would open it, without its start.
		fail(sibling.Workbench.Exec(nil, os.Environ()))
	}
	if len(args) == 1 && args[0] == "--version" {
		// Answered here: the version is this binary's, and needs no
		// dossier-full beside it.
		fmt.Println("dossier", cli.Version())
		os.Exit(cli.ExitOK)
	}
	if !answers(args) {
		fail(handOff(args))
	}
	os.Exit(answer(args))
}

// fail ends the process after an exec that did not happen (or, where
// there is no exec, with the code of the binary that ran).
func fail(err error) {
	if err == nil {
		os.Exit(cli.ExitOK)
	}
	var r cli.Reported
	if errors.As(err, &r) {
		os.Exit(r.ExitCode())
	}
	// The error names paths from the environment: escaped, as every
	// message of dossier's is.
	fmt.Fprintln(os.Stderr, "dossier:", termsafe.Line(err.Error()))
	os.Exit(cli.ExitError)
}

// handOff replaces this process with dossier-full, given the same
// arguments: it returns only when that fails (or, where there is no exec,
// with dossier-full's exit code).
func handOff(args []string) error {
	if os.Getenv(sibling.HandedOn) != "" {
		return fmt.Errorf("this dossier was started as dossier-full by another dossier (%s names a copy of dossier, not dossier-full): point %s at dossier-full's binary, or unset it", sibling.Full.Env, sibling.Full.Env)
	}
	return sibling.Full.Exec(args, append(os.Environ(), sibling.HandedOn+"=1"))
}

// answers reports whether this binary answers the command line itself
// (see command).
func answers(args []string) bool {
	_, _, ok := command(args)
	return ok
}

// command finds the command of a command line this binary answers itself:
// `stats` or `search`, with nothing before it but --root, and no help
// asked for (dossier-full writes help, completions and every error of
// another command). It returns the command's name and the rest of the
// line, its flags and arguments (--root among them); ok is false for any
// other command line.
func command(args []string) (name string, rest []string, ok bool) {
	at := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if at < 0 {
				return "", nil, false
			}
			i = len(args) // what follows is arguments only
		case a == "-h" || a == "--help" || a == "help" && at < 0:
			return "", nil, false
		case at >= 0:
			// a flag or an argument of the command
		case a == "--root":
			i++
		case strings.HasPrefix(a, "--root="):
		case a == "" || strings.HasPrefix(a, "-"):
			return "", nil, false // a flag of dossier's own, or no command: dossier-full says
		default:
			at = i
		}
	}
	if at < 0 || args[at] != "stats" && args[at] != "search" {
		return "", nil, false
	}
	return args[at], append(slices.Clip(args[:at]), args[at+1:]...), true
}

// answer runs the command line answers accepted and returns the exit
// code. Its flags are parsed as dossier-full's cobra commands parse them
// (the same pflag flags, interspersed with the arguments); a command line
// that does not parse, or has too many arguments, is handed on, so that
// dossier-full says what is wrong in its own words.
func answer(args []string) int {
	name, rest, _ := command(args)
	var root string
	ws := func() (string, config.Config, error) { return cli.Workspace(root, nil) }
	fs := pflag.NewFlagSet("dossier "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&root, "root", "", "workspace root (default: the current directory)")
	var run func(context.Context, query.IO, []string) error
	most := 0 // arguments
	switch name {
	case "stats":
		c := query.NewStats(ws)
		c.Flags(fs)
		run = func(ctx context.Context, std query.IO, _ []string) error { return c.Run(ctx, std) }
	default: // search
		c := query.NewSearch(ws, func() error { return handOff(args) })
		c.Flags(fs)
		run, most = c.Run, 1
	}
	if err := fs.Parse(rest); err != nil || fs.NArg() > most {
		fail(handOff(args))
	}
	ctx, stop := cli.Interruptible(os.Stderr, os.Exit)
	defer stop()
	stdout, stderr, flush := cli.Wrap(os.Stdout, os.Stderr, nil)
	defer flush()
	return cli.Run(ctx, stderr, func() string { return "dossier " + name }, func(ctx context.Context) error {
		return run(ctx, query.IO{In: os.Stdin, Out: stdout, Err: stderr}, fs.Args())
	})
}
