package evidence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// UsageError is a command typed wrong: unknown word, missing argument, bad
// flag. The CLI exits 2 for it; the workbench shows it on its command line.
type UsageError struct {
	Msg string
	// Usage is the command's synopsis (evidence add SELECTOR...), for a
	// command line: the CLI and the workbench print it after Msg; the MCP
	// server, whose tools take no command line, leaves it out.
	Usage string
}

func (e *UsageError) Error() string {
	if e.Usage == "" {
		return e.Msg
	}
	return e.Msg + "\nusage: " + e.Usage
}

func usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// command is one word of the engine's vocabulary.
type command struct {
	group   string // "evidence", "flow" or "" for top-level words
	name    string
	args    string // argument synopsis
	summary string
	flags   func(fs *pflag.FlagSet, o *opts)
	run     func(e *Engine, c *call) error
}

// opts holds every flag any command takes; each command registers the
// ones it reads.
type opts struct {
	rank, role, band, kind, text, format, out, mode, model, copyTo, via        string
	link, pin, json, copy, force, allowSecrets, whole, asIndexed, yes, outline bool
	limit                                                                      int
}

// call is one invocation: the positional words, the flags, the output.
type call struct {
	ctx  context.Context
	args []string
	o    opts
	fs   *pflag.FlagSet
	w    io.Writer
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

func lookup(group, name string) *command {
	for _, c := range commands {
		if c.group == group && c.name == name {
			return c
		}
	}
	return nil
}

// Groups are the words that take a subcommand.
var groups = []string{"evidence", "flow"}

// Exec runs one command line, already split into words: "evidence toggle
// off 300-399", "flow new fix-parser", "ask what covers errors", "env".
// Output goes to w. A *UsageError means the words were wrong.
func (e *Engine) Exec(ctx context.Context, args []string, w io.Writer) error {
	if len(args) == 0 {
		return usagef("no command: try `evidence status`")
	}
	group, name, rest := "", args[0], args[1:]
	if slices.Contains(groups, args[0]) {
		if len(args) < 2 {
			fmt.Fprint(w, Usage(args[0]))
			return nil
		}
		group, name, rest = args[0], args[1], args[2:]
	}
	c := lookup(group, name)
	if c == nil {
		return usagef("unknown command %q%s", strings.TrimSpace(group+" "+name), suggest(group, name))
	}
	cl := &call{ctx: ctx, w: w}
	cl.fs = pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	cl.fs.SetOutput(io.Discard)
	cl.fs.SetInterspersed(true)
	if c.flags != nil {
		c.flags(cl.fs, &cl.o)
	}
	help := cl.fs.BoolP("help", "h", false, "show help")
	if err := cl.fs.Parse(rest); err != nil {
		return usagef("%s: %v", c.path(), err)
	}
	if *help {
		fmt.Fprint(w, c.help())
		return nil
	}
	cl.args = cl.fs.Args()
	err := c.run(e, cl)
	var ue *UsageError
	if errors.As(err, &ue) && ue.Usage == "" && !strings.Contains(ue.Msg, "usage:") {
		ue.Usage = c.path() + " " + c.args
	}
	return err
}

func (c *command) path() string { return strings.TrimSpace(c.group + " " + c.name) }

func (c *command) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n\n%s\n", c.path(), c.args, c.summary)
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	var o opts
	if c.flags != nil {
		c.flags(fs, &o)
	}
	if u := fs.FlagUsages(); u != "" {
		b.WriteString("\nFlags:\n" + u)
	}
	return b.String()
}

// Usage lists a group's commands (or all top-level words for "").
func Usage(group string) string {
	var b strings.Builder
	for _, c := range commands {
		if c.group == group {
			fmt.Fprintf(&b, "  %-44s %s\n", c.path()+" "+c.args, firstLine(c.summary))
		}
	}
	return b.String()
}

// Words lists the command words of a group, for completion.
func Words(group string) []string {
	var out []string
	for _, c := range commands {
		if c.group == group {
			out = append(out, c.name)
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// suggest names the nearest command word.
func suggest(group, name string) string {
	best, bestD := "", 4
	for _, c := range commands {
		if c.group != group {
			continue
		}
		if d := EditDistance(name, c.name); d < bestD || strings.HasPrefix(c.name, name) && d < bestD+2 {
			best, bestD = c.name, d
		}
	}
	if best == "" {
		if group == "" {
			return ": try evidence, flow, assemble, ask or env"
		}
		return fmt.Sprintf(": see `%s --help`", group)
	}
	return fmt.Sprintf("; did you mean `%s`?", strings.TrimSpace(group+" "+best))
}

// needArgs checks the count of positional words.
func (c *call) needArgs(lo, hi int, what string) error {
	if len(c.args) < lo || (hi >= 0 && len(c.args) > hi) {
		return usagef("expected %s, got %d word(s)", what, len(c.args))
	}
	return nil
}
