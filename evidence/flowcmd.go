package evidence

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/tokens"
)

func init() {
	register(&command{group: "flow", name: "new", args: "NAME", summary: "Start a flow (id NAME-<UTC time>) and make it current.",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.StringVar(&o.mode, "mode", "", "Aptix mode for [MODE: ...] (fix, test, refactor, explain, ...)")
			fs.StringVar(&o.model, "model", "", "model profile: sets the tokenizer and the default budget")
			fs.StringVar(&o.text, "request", "", "the user request, written as 010_request.user.md")
		},
		run: (*Engine).flowNew})
	register(&command{group: "flow", name: "list", args: "", summary: "List the workspace's flows, newest first (* marks the current one).",
		flags: func(fs *pflag.FlagSet, o *opts) { fs.BoolVar(&o.json, "json", false, "print JSON") },
		run:   (*Engine).flowList})
	register(&command{group: "flow", name: "use", args: "ID", summary: "Make a flow current; a unique prefix of its id is enough.", run: (*Engine).flowUse})
	register(&command{group: "flow", name: "show", args: "", summary: "Print the current flow's directory, settings and totals.", run: (*Engine).flowShow})
	register(&command{group: "flow", name: "set", args: "mode|model|format|budget VALUE | request|policy TEXT",
		summary: "Change a setting of the current flow, or set its request (user part) or policy (system part) text.",
		run:     (*Engine).flowSet})
}

func (e *Engine) flowNew(c *call) error {
	if err := c.needArgs(1, 1, "a NAME"); err != nil {
		return err
	}
	if c.o.model != "" {
		if _, err := tokens.Lookup(c.o.model); err != nil {
			return usagef("%v", err)
		}
	}
	f, err := Create(e.Root, c.args[0], c.o.mode, c.o.model, e.Now())
	if err != nil {
		return err
	}
	e.flow = f
	fmt.Fprintf(c.w, "✓ Flow %s\n  %s\n", f.Meta.ID, f.Dir)
	e.warnFlowDir(c)
	if c.o.text != "" {
		p, err := e.Add(AddRequest{Role: assemble.User, Rank: 10, Kind: "request", Text: c.o.text})
		if err != nil {
			return err
		}
		fmt.Fprintf(c.w, "✓ Added user part: %s\n", p.Name)
	} else {
		fmt.Fprintln(c.w, "  no request yet: write it with /request TEXT in the workbench, or `dossier evidence add --role user --text \"...\"`")
	}
	if _, err := e.Build(); err != nil {
		return err
	}
	return nil
}

func (e *Engine) flowList(c *call) error {
	list, err := List(e.Root)
	if err != nil {
		return err
	}
	if c.o.json {
		if list == nil {
			list = []FlowInfo{}
		}
		enc := json.NewEncoder(c.w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.w, "no flows yet: `dossier flow new NAME`")
		return nil
	}
	for _, fi := range list {
		mark := " "
		if fi.Current {
			mark = "*"
		}
		turns := ""
		if fi.Turns > 0 {
			turns = fmt.Sprintf(" %3d turns", fi.Turns)
		}
		fmt.Fprintf(c.w, "%s %-44s %3d parts%s  %s\n", mark, fi.ID, fi.Parts, turns, fi.Name)
	}
	return nil
}

func (e *Engine) flowUse(c *call) error {
	if err := c.needArgs(1, 1, "a flow ID"); err != nil {
		return err
	}
	id, err := Use(e.Root, c.args[0])
	if err != nil {
		return err
	}
	e.Reload()
	fmt.Fprintf(c.w, "✓ Current flow: %s\n", id)
	e.warnFlowDir(c)
	return nil
}

func (e *Engine) flowShow(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	res, _, err := e.Assemble(e.Format())
	if err != nil {
		return err
	}
	p, _ := e.Profile()
	active := 0
	for _, q := range f.Parts {
		if q.Active() {
			active++
		}
	}
	fmt.Fprintf(c.w, "Flow:    %s\nName:    %s\nDir:     %s\n", f.Meta.ID, f.Meta.Name, f.Dir)
	fmt.Fprintf(c.w, "Mode:    %s\nModel:   %s (%s, %d-token window)\nFormat:  %s\n", orDash(f.Meta.Mode), p.Model, p.Encoding, p.Window, res.Format)
	fmt.Fprintf(c.w, "Parts:   %d (%d active)\n", len(f.Parts), active)
	fmt.Fprintf(c.w, "Tokens:  %s of %d (%d%%)\n", tokenWord(res.Tokens, res), e.Budget(), pct(res.Tokens, e.Budget()))
	fmt.Fprintf(c.w, "Commits: %s\n", e.commitRange(f))
	fmt.Fprintf(c.w, "Build:   %s/prompt.mdctx, ctxplan.json\n", f.BuildDir())
	return showTurns(c.w, f)
}

// showTurns lists the flow's conversation under `flow show`: a damaged
// turn file is named with its fix, and the rest is still shown.
func showTurns(w io.Writer, f *Flow) error {
	turns, err := f.Turns()
	if err != nil {
		fmt.Fprintf(w, "Turns:   ! %v\n", err)
		return nil
	}
	if len(turns) == 0 {
		fmt.Fprintln(w, "Turns:   none yet (`dossier send`)")
		return nil
	}
	fmt.Fprintf(w, "Turns:   %d in %s\n", len(turns), filepath.Join(f.Dir, turnsDir))
	for _, t := range turns {
		fmt.Fprintln(w, "  "+t.Line())
	}
	return nil
}

// warnFlowDir says when FLOW_DIR overrides the workspace's current flow.
func (e *Engine) warnFlowDir(c *call) {
	if dir := e.Getenv(FlowDirEnv); dir != "" {
		fmt.Fprintf(c.w, "  ! FLOW_DIR=%s is set and wins over the current flow: unset it to use this one\n", dir)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (e *Engine) flowSet(c *call) error {
	if len(c.args) > 0 && (c.args[0] == "request" || c.args[0] == "policy") {
		return e.flowSetText(c)
	}
	if err := c.needArgs(2, 2, "a setting and a value"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	key, val := c.args[0], c.args[1]
	switch key {
	case "mode":
		f.Meta.Mode = val
	case "model":
		if _, err := tokens.Lookup(val); err != nil {
			return usagef("%v", err)
		}
		f.Meta.Model = val
	case "format":
		if _, err := assemble.ParseFormat(val); err != nil {
			return usagef("%v", err)
		}
		f.Meta.Format = val
	case "budget":
		n, err := parseBudget(val)
		if err != nil {
			return usagef("%v", err)
		}
		f.Meta.Budget = n
	default:
		return usagef("unknown setting %q: mode, model, format, budget, request or policy", key)
	}
	if err := f.SaveMeta(); err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ %s = %s\n", key, val)
	return nil
}

// envLine quotes a value for a POSIX shell.
func envLine(name, val string) string {
	return "export " + name + "='" + strings.ReplaceAll(val, "'", `'\''`) + "'"
}
