package evidence

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/clip"
)

func init() {
	register(&command{name: "assemble", args: "[--format F] [--out FILE] [--copy]",
		summary: "Refresh build/ (prompt.mdctx, ctxplan.json) and print the prompt in a format:\n" +
			"mdctx (seed 003), aptix (seed 000 [CONTEXT]), responses (seed 000 /responses input), pack (seed 004).",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.StringVar(&o.format, "format", "", "mdctx, aptix, responses or pack (default: the flow's, else mdctx)")
			fs.StringVar(&o.out, "out", "", "write the prompt to FILE instead of stdout")
			fs.BoolVar(&o.copy, "copy", false, "copy the prompt to the clipboard (OSC52, wl-copy/xclip/xsel/pbcopy, else a file)")
			fs.StringVar(&o.copyTo, "copy-method", "auto", "auto, osc52, native or file")
			fs.BoolVar(&o.allowSecrets, "allow-secrets", false, "send secrets as they are instead of [REDACTED:<rule-id>] (ctxplan.json records them)")
		},
		run: (*Engine).assembleCmd})
	register(&command{name: "env", args: "", summary: "Print export lines for FLOW_DIR, EVIDENCE_COUNT and e1, e2, ... (seed 003): eval \"$(dossier env)\"", run: (*Engine).env})
}

func (e *Engine) assembleCmd(c *call) error {
	if err := c.needArgs(0, 0, "no words (flags only)"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if c.o.allowSecrets && !e.AllowSecrets {
		e.AllowSecrets = true
		defer func() { e.AllowSecrets = false }()
	}
	if _, err := e.Build(); err != nil {
		return err
	}
	format := e.Format()
	if c.o.format != "" {
		if format, err = assemble.ParseFormat(c.o.format); err != nil {
			return usagef("%v", err)
		}
	}
	res, _, err := e.Assemble(format)
	if err != nil {
		return err
	}
	summary := fmt.Sprintf("%d bytes, %s, %d%% of %d", len(res.Text), tokenWord(res.Tokens, res), pct(res.Tokens, e.Budget()), e.Budget())
	// With the prompt itself on c.w, warnings go to Stderr, or after the
	// prompt where there is none (the workbench's output pane).
	toOut := c.o.out == "" && !c.o.copy
	switch {
	case !toOut:
		e.printSecrets(c.w, res, nil)
		printNotUTF8(c.w, f)
		e.printDrift(c.w, f)
	case e.Stderr != nil:
		e.printSecrets(e.Stderr, res, nil)
		printNotUTF8(e.Stderr, f)
		e.printDrift(e.Stderr, f)
	default:
		defer e.printDrift(c.w, f)
		defer printNotUTF8(c.w, f)
		defer e.printSecrets(c.w, res, nil)
	}
	switch {
	case c.o.out != "":
		out := c.o.out
		if !filepath.IsAbs(out) {
			out = filepath.Join(e.cwd(), out)
		}
		if err := WriteOutput(c.ctx, out, []byte(res.Text)); err != nil {
			return err
		}
		fmt.Fprintf(c.w, "✓ Wrote %s (%s, %s)\n", out, format, summary)
	case !c.o.copy:
		_, err := fmt.Fprint(c.w, res.Text)
		return err
	}
	if c.o.copy {
		return e.copy(c, f, res, summary)
	}
	return nil
}

// copy sends the prompt to the clipboard and says where it went.
func (e *Engine) copy(c *call, f *Flow, res assemble.Result, summary string) error {
	o := clip.Options{Method: c.o.copyTo, File: filepath.Join(f.BuildDir(), "clipboard.txt"), Getenv: e.Getenv}
	if tty, err := clip.OpenTTY(); err == nil {
		defer tty.Close()
		o.TTY = tty
	}
	rep, err := clip.Copy(c.ctx, []byte(res.Text), o)
	for _, w := range rep.Warnings {
		fmt.Fprintln(c.w, "  ! "+w)
	}
	if err != nil {
		return fmt.Errorf("the prompt was not copied: %w", err)
	}
	where := rep.Method
	if rep.Method == "file" {
		where = "file " + rep.Path + " (no clipboard reachable)"
	}
	fmt.Fprintf(c.w, "✓ Copied %s via %s (%s)\n", res.Format, where, summary)
	return nil
}

func (e *Engine) env(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	// The variables matter more than a fresh build/: a read-only flow
	// still gets them.
	_, _ = e.Build()
	ev := f.EvidenceParts()
	fmt.Fprintln(c.w, envLine("FLOW_DIR", f.Dir))
	fmt.Fprintln(c.w, envLine("EVIDENCE_COUNT", strconv.Itoa(len(ev))))
	for i, p := range ev {
		fmt.Fprintln(c.w, envLine("e"+strconv.Itoa(i+1), p.Path))
	}
	return nil
}

// printSecrets warns of the secrets an assembly found, part by part (only
// the parts in ids when it is not nil): where they are and what became of
// them.
func (e *Engine) printSecrets(w io.Writer, res assemble.Result, ids map[string]bool) {
	var parts []string
	where := map[string][]string{}
	for _, r := range res.Redactions {
		if ids != nil && !ids[r.Part] {
			continue
		}
		if _, ok := where[r.Part]; !ok {
			parts = append(parts, r.Part)
		}
		at := "line " + strconv.Itoa(r.Line)
		if r.Source != "" {
			at = r.Source + ":" + strconv.Itoa(r.Line)
		}
		where[r.Part] = append(where[r.Part], at+" ("+r.Rule+")")
	}
	fate := "redacted as [REDACTED:<rule-id>] on every exit; `assemble --allow-secrets` (or [secrets] allow, for send too) sends them as they are"
	if e.AllowSecrets {
		fate = "sent as they are (--allow-secrets or [secrets] allow)"
	}
	for _, p := range parts {
		fmt.Fprintf(w, "  ! secret in %s: %s: %s\n", p, strings.Join(where[p], ", "), fate)
	}
}

// printDrift warns of active parts that no longer show their source as
// it is (moved, changed or lost, see Staleness): what the model gets
// differs from the code, and the user must know before it goes.
func (e *Engine) printDrift(w io.Writer, f *Flow) {
	by := map[string][]string{}
	stale := e.Staleness(f)
	for _, p := range f.Parts {
		if st := stale[p]; p.Active() && (st == Moved || st == Changed || st == Lost) {
			by[st] = append(by[st], p.ID())
		}
	}
	for _, x := range []struct{ st, what string }{
		{Moved, "moved in their source (the same text, old line numbers)"},
		{Changed, "changed in their source, and are sent as they were"},
		{Lost, "lost their code (renamed, deleted or rewritten), and are sent as they were"},
	} {
		if ids := by[x.st]; len(ids) > 0 {
			fmt.Fprintf(w, "warning: %d part(s) %s: %s (`dossier evidence refresh` brings them up to date)\n", len(ids), x.what, strings.Join(ids, ", "))
		}
	}
}

// printNotUTF8 warns of active parts whose bytes are not all UTF-8: the
// prompt carries U+FFFD where they were.
func printNotUTF8(w io.Writer, f *Flow) {
	for _, p := range f.Parts {
		if p.NotUTF8 && p.Active() {
			fmt.Fprintf(w, "warning: %s holds bytes that are not UTF-8 (another encoding?): the prompt carries U+FFFD in their place; the file is left as it is (convert it to UTF-8 to keep the characters)\n", p.File)
		}
	}
}
