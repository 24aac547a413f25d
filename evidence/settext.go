package evidence

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

// textPart says where `flow set request|policy` writes: the role, kind
// and rank of the part it creates when the flow has none (seed 003's
// 000_policy.system.md and 010_request.user.md).
var textParts = map[string]struct {
	role assemble.Role
	rank int
	band Band
}{
	"request": {assemble.User, 10, userParts},
	"policy":  {assemble.System, 0, systemParts},
}

// flowSetText is `flow set request|policy TEXT`: the words after the
// setting are the text, so an unquoted request works from a shell too
// (after `--`, a text may start with '-': `flow set request -- "- item"`).
func (e *Engine) flowSetText(c *call) error {
	which := c.args[0]
	text := strings.Join(c.args[1:], " ")
	if strings.TrimSpace(text) == "" {
		return usagef("flow set %s: no text: give the %s's text (quote it, or let the words follow)", which, which)
	}
	p, created, err := e.SetText(c.w, which, text)
	if err != nil {
		return err
	}
	verb := "Set"
	if created {
		verb = "Added"
	}
	fmt.Fprintf(c.w, "✓ %s %s: %s\n", verb, which, p.Name)
	return e.finish(c.w)
}

// TextPart is the flow's request (which "request") or policy ("policy")
// part: the first user part of kind request, or the first system part of
// kind policy; nil when there is none.
func (f *Flow) TextPart(which string) *Part {
	tp, ok := textParts[which]
	if !ok {
		return nil
	}
	for _, p := range f.Parts {
		if p.Role == tp.role && p.Name.Kind == which {
			return p
		}
	}
	return nil
}

// SetText sets the text of the flow's request or policy part, keeping its
// name and rank, or adds the part (rank 010 or 000, else the next free
// one of its band). created says which. w hears of a flow started for it.
func (e *Engine) SetText(w io.Writer, which, text string) (p *Part, created bool, err error) {
	tp, ok := textParts[which]
	if !ok {
		return nil, false, usagef("unknown text part %q: request or policy", which)
	}
	f, err := e.flowOrCreate(w)
	if err != nil {
		return nil, false, err
	}
	if err := f.Writable(); err != nil {
		return nil, false, err
	}
	content := strings.TrimRight(text, "\n") + "\n"
	if p := f.TextPart(which); p != nil {
		if st, err := os.Lstat(p.Path); err == nil && st.Mode()&os.ModeSymlink != 0 {
			target, _ := filepath.EvalSymlinks(p.Path)
			return nil, false, fmt.Errorf("the %s part %s is a symlink to %s: edit that file, or remove the symlink and set the %s again", which, p.Name, target, which)
		}
		if err := WriteFileAtomic(p.Path, []byte(content)); err != nil {
			return nil, false, err
		}
		// Setting the text means sending it: a skipped part is turned on
		// (else `send` would say there is no request, and point here).
		if p.Status == assemble.Skipped {
			if _, err := f.SetStatus(p, assemble.Active); err != nil {
				return nil, false, err
			}
		}
		e.Reload()
		f, err := e.Flow()
		if err != nil {
			return nil, false, err
		}
		if q := f.TextPart(which); q != nil {
			return q, false, nil
		}
		return nil, false, fmt.Errorf("the %s part %s was written but does not read back: see `dossier flow show`", which, p.Name)
	}
	rank := tp.rank
	if f.byRank(rank) != nil {
		rank = -1
	}
	p, err = e.Add(AddRequest{Role: tp.role, Rank: rank, Band: tp.band, Kind: which, Text: content})
	if err != nil {
		return nil, false, err
	}
	return p, true, nil
}
