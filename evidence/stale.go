package evidence

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
)

func init() {
	register(&command{group: "evidence", name: "refresh", args: "[ID...]",
		summary: "Find every part's code again in the working tree (or the named parts') and re-extract it,\n" +
			"reporting per part: unchanged, moved (the same text at new lines), changed (with a short\n" +
			"diff) or lost. A symbol part is found by its symbol, a range by its content, as patch finds\n" +
			"a hunk; a lost part keeps its old text, and refresh exits 1 (`refresh ID --force` takes\n" +
			"its old lines as they are now).",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.BoolVar(&o.force, "force", false, "replace parts edited by hand too (the edited file is kept in build/removed/)")
		},
		run: (*Engine).refresh})
}

// Staleness compares every evidence part with its source: Moved, Changed
// or Lost when its span is found elsewhere, changed, or not at all (see
// relocate), "edited" when the part's content was changed by hand,
// "source gone" when the file is missing.
//
// A part's answer is remembered with its content id and its source file's
// size and time, so asking again (the workbench does after every change)
// costs one stat per part.
func (e *Engine) Staleness(f *Flow) map[*Part]string {
	out := map[*Part]string{}
	files := map[string]string{}
	if e.stale == nil {
		e.stale = map[staleKey]string{}
	}
	seen := map[staleKey]bool{}
	for _, p := range f.Parts {
		if budget, ok := isMapPart(p); ok {
			if s := e.mapState(f, p, budget); s != "" {
				out[p] = s
			}
			continue
		}
		k, ok := e.staleKeyOf(p)
		if !ok {
			if s := e.staleness(p, files); s != "" {
				out[p] = s
			}
			continue
		}
		seen[k] = true
		s, hit := e.stale[k]
		if !hit {
			s = e.staleness(p, files)
			// A source changed within the last seconds may change again
			// within the same timestamp: answer it afresh next time
			// (git's racy-clean rule).
			if time.Since(time.Unix(0, k.mtime)) > 2*time.Second {
				e.stale[k] = s
			}
		}
		if s != "" {
			out[p] = s
		}
	}
	for k := range e.stale {
		if !seen[k] {
			delete(e.stale, k)
		}
	}
	return out
}

// staleKey identifies one staleness answer.
type staleKey struct {
	cid   string // the part file's content id
	size  int64  // of the source file
	mtime int64
}

func (e *Engine) staleKeyOf(p *Part) (staleKey, bool) {
	if p.Role != assemble.Evidence || p.Link || p.Source.Path == "" || p.Source.CID == "" {
		return staleKey{}, false
	}
	st, err := os.Stat(filepath.Join(e.Root, filepath.FromSlash(p.Source.Path)))
	if err != nil {
		return staleKey{}, false
	}
	return staleKey{p.CID, st.Size(), st.ModTime().UnixNano()}, true
}

func (e *Engine) staleness(p *Part, files map[string]string) string {
	s := p.Source
	if p.Role != assemble.Evidence || p.Link || p.Broken != "" || s.Path == "" || s.CID == "" {
		return ""
	}
	// Any byte that differs from what dossier wrote is a hand edit: a
	// note beside the fence as much as a changed line of code.
	if !pristine(p.Content) {
		return "edited"
	}
	if isGitSource(s) {
		return e.gitStaleness(p)
	}
	text, ok := files[s.Path]
	if !ok {
		raw, err := ReadRegular(filepath.Join(e.Root, filepath.FromSlash(s.Path)), resolveRoots(e.Root))
		if state := refusedState(err); state != "" {
			// A FIFO or a link out of the workspace is never read.
			files[s.Path] = "\x00source " + state
			return "source " + state
		}
		if err != nil {
			files[s.Path] = "\x00missing"
			return "source gone"
		}
		text = string(raw)
		files[s.Path] = text
	}
	if text == "\x00missing" {
		return "source gone"
	}
	if state, ok := strings.CutPrefix(text, "\x00"); ok {
		return state
	}
	if s.File != "" && fileHash(text) == s.File || s.File == "" && sameSpan(text, s) {
		return ""
	}
	if r := e.relocatePart(p, text); r.state != Unchanged {
		return r.state
	}
	return ""
}

// oldText is the span text a pristine part was taken with, "" when the
// part was edited by hand (its anchor then finds it alone).
func oldText(p *Part) string {
	for _, code := range []string{p.Code, strings.TrimSuffix(p.Code, "\n")} {
		if CID([]byte(code)) == p.Source.CID {
			return code
		}
	}
	return ""
}

// relocatePart finds p's span in text, its source as it is now (see
// relocate); a symbol is looked up in the index when it describes text,
// else in a parse of text.
func (e *Engine) relocatePart(p *Part, text string) relocation {
	index, done := lazyIndex(e.Root)
	defer done()
	find := func(sym string) (int, int, bool) {
		a, b, err := symbolSpan(index, p.Source.Path, sym, []byte(text))
		return a, b, err == nil
	}
	return relocate(p.Source, oldText(p), text, find)
}

// spanText cuts a provenance span out of the source text; "" when the
// span no longer fits.
func spanText(text string, s assemble.Source) string {
	if s.Span == "all" {
		return text
	}
	if v, ok := strings.CutPrefix(s.Span, "bytes="); ok {
		a, b, _ := strings.Cut(v, ":")
		from, err1 := strconv.Atoi(a)
		to, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || from < 0 || from > to || to > len(text) {
			return ""
		}
		return text[from:to]
	}
	starts := lineStarts(text)
	if s.StartLine < 1 || s.EndLine > len(starts) || s.StartLine > s.EndLine {
		return ""
	}
	return sliceLines(text, starts, s.StartLine, s.EndLine)
}

func (e *Engine) refresh(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	e.stale = nil // refresh trusts only what it reads now
	stale := e.Staleness(f)
	var parts []*Part
	var edited []string
	if len(c.args) == 0 {
		for _, p := range f.Parts {
			if stale[p] == "edited" {
				edited = append(edited, p.ID())
			} else if p.Role == assemble.Evidence && !p.Link && p.Source.Path != "" && p.Source.CID != "" && p.Broken == "" {
				parts = append(parts, p)
			}
		}
	} else {
		if parts, err = f.SelectAll(c.args); err != nil {
			return err
		}
		for _, p := range parts {
			if p.Refused == Damaged && (!c.o.force || p.Source.Path == "" || p.Source.CID == "") {
				return fmt.Errorf("%s", p.Broken)
			}
			if stale[p] == "edited" && !c.o.force {
				return fmt.Errorf("%s was edited by hand: `refresh %s --force` replaces it from the source (the edited file is kept in build/removed/)", p.ID(), p.ID())
			}
		}
	}
	if err := f.Writable(); err != nil {
		return err
	}
	var unchanged, lostIDs []string
	for _, p := range f.Parts { // in flow order, for stable output
		if !containsPart(parts, p) {
			continue
		}
		old := p.Code
		r, err := e.RefreshPart(f, p, c.o.force && len(c.args) > 0)
		if err != nil {
			return fmt.Errorf("refresh %s: %w", p.ID(), err)
		}
		switch r.state {
		case Unchanged, "":
			unchanged = append(unchanged, p.ID())
		case Lost:
			lostIDs = append(lostIDs, p.ID()+" ("+r.why+")")
			fmt.Fprintf(c.w, "✗ lost     %s: %s; it keeps its old text (`evidence show %s`)\n", p.ID(), r.why, p.ID())
		case Changed:
			fmt.Fprintf(c.w, "✓ changed  %s: %s\n", p.ID(), r.why)
			fmt.Fprint(c.w, shortDiff(old, p.Code, 8))
		default:
			fmt.Fprintf(c.w, "✓ %-8s %s: %s\n", r.state, p.ID(), r.why)
		}
	}
	if len(unchanged) > 0 {
		fmt.Fprintf(c.w, "  unchanged: %s\n", strings.Join(unchanged, ", "))
	}
	if len(parts) == 0 {
		fmt.Fprintln(c.w, "no parts taken from a source: nothing to refresh")
	}
	if len(edited) > 0 {
		fmt.Fprintf(c.w, "  edited by hand, left alone: %s (`refresh ID --force` replaces one from its source and keeps the edited file in build/removed/)\n", strings.Join(edited, ", "))
	}
	if err := e.finish(c.w); err != nil {
		return err
	}
	if len(lostIDs) > 0 {
		return fmt.Errorf("%d part(s) lost their code: %s; add what they showed again (`evidence add PATH::@Symbol`) and remove them, or edit them by hand", len(lostIDs), strings.Join(lostIDs, "; "))
	}
	return nil
}

// backup copies a part file to build/removed/NAME.edited before it is
// overwritten; an older copy there is kept as NAME.edited~N.
func backup(f *Flow, p *Part) (string, error) {
	dst := filepath.Join(f.BuildDir(), "removed", p.Name.String()+".edited")
	if err := keepAside(dst); err != nil {
		return "", err
	}
	return dst, WriteFileAtomic(dst, []byte(p.Content))
}

func containsPart(ps []*Part, p *Part) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// RefreshPart finds p's span in its source as it is now (see relocate)
// and rewrites the part file with it: a symbol part holds what
// `evidence add PATH::@Symbol` gives now, a range part its content where
// it moved, with the new numbers. A lost part is left as it is. A part
// file that is not byte for byte what dossier wrote (pristine) is copied
// to build/removed/ first, so no hand edit is ever lost; whether to
// replace such a part at all is the caller's choice (refresh asks for
// --force). retake takes a lost part's old lines (or bytes) as they are
// now, which only the user may ask for.
func (e *Engine) RefreshPart(f *Flow, p *Part, retake bool) (relocation, error) {
	s := p.Source
	if budget, ok := isMapPart(p); ok {
		return e.refreshMap(f, p, budget)
	}
	if p.Role != assemble.Evidence || p.Link || s.Path == "" {
		return relocation{}, nil
	}
	if isGitSource(s) {
		return e.refreshDiff(f, p)
	}
	raw, err := ReadRegular(filepath.Join(e.Root, filepath.FromSlash(s.Path)), resolveRoots(e.Root))
	if err != nil {
		// Its file is gone (or refused): that part is lost, the others
		// are still refreshed.
		return lost(s, fmt.Sprintf("%s cannot be read now: %v", s.Path, firstLine(err.Error()))), nil
	}
	r := e.relocatePart(p, string(raw))
	if r.state == Lost && !retake {
		return r, nil
	}
	if r.state == Lost {
		r.state, r.why = Changed, "its old lines taken as they are now (--force)"
		if strings.HasPrefix(s.Span, "bytes=") {
			r.start, r.end = byteSpan(s.Span)
		}
	}
	sel := Selector{}
	sel.Path, sel.Tags = s.Path, s.Tags
	switch {
	case s.Span == "all":
	case strings.HasPrefix(s.Span, "bytes="):
		sel.Start, sel.End, sel.Bytes = r.start, r.end, true
	default:
		sel.Start, sel.End = r.start, r.end
	}
	x, err := e.resolveSelector(sel)
	if err != nil {
		return relocation{}, err
	}
	e.track(&x)
	if r.state == Unchanged {
		// The same text: it was taken at its old commit still.
		x.Source.Commit, x.Source.Dirty = s.Commit, s.Dirty
	}
	if x.Source.Symbol == "" && s.Symbol != "" {
		// Found by its content, not its name: the name stays, for the
		// next refresh to try first.
		x.Source.Symbol = s.Symbol
	}
	content := renderEvidence(x.Source, x.Content)
	if content == p.Content {
		return relocation{state: Unchanged}, nil
	}
	if err := rewritePart(f, p, content); err != nil {
		return relocation{}, err
	}
	return r, nil
}

// rewritePart writes content, a part's text taken again from its source,
// over p and reads p back; a part edited by hand is copied to
// build/removed/ first, so no hand edit is ever lost.
func rewritePart(f *Flow, p *Part, content string) error {
	if !pristine(p.Content) {
		if _, err := backup(f, p); err != nil {
			return err
		}
	}
	if err := WriteFileAtomic(p.Path, []byte(content)); err != nil {
		return err
	}
	np, err := f.readPart(p.File, p.Name)
	if err != nil {
		return err
	}
	*p = *np
	return nil
}

func (e *Engine) statusJSON(w io.Writer, f *Flow, res assemble.Result, stale map[*Part]string) error {
	type row struct {
		ID     string   `json:"id"`
		File   string   `json:"file"`
		Rank   string   `json:"rank"`
		Role   string   `json:"role"`
		States []string `json:"states"`
		Tokens int      `json:"tokens"`
		Source string   `json:"source,omitempty"`
		Found  string   `json:"found,omitempty"`
		// Commit is the commit the part was taken at; Dirty that its
		// file differed from it then.
		Commit string `json:"commit,omitempty"`
		Dirty  bool   `json:"dirty,omitempty"`
	}
	out := struct {
		Flow     string   `json:"flow"`
		Dir      string   `json:"dir"`
		Format   string   `json:"format"`
		Encoding string   `json:"encoding"`
		Exact    bool     `json:"exact"`
		Tokens   int      `json:"tokens"`
		Budget   int      `json:"budget"`
		Parts    []row    `json:"parts"`
		Problems []string `json:"problems"`
	}{f.Meta.ID, f.Dir, string(res.Format), res.Encoding, res.Exact, res.Tokens, e.Budget(), []row{}, f.Problems}
	for _, p := range f.Parts {
		out.Parts = append(out.Parts, row{p.ID(), p.File, p.Rank, string(p.Role), States(p, stale[p]), f.partTokens(res, p), SourceLabel(p), f.Meta.Found[p.ID()], p.Source.Commit, p.Source.Dirty})
	}
	if out.Problems == nil {
		out.Problems = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
