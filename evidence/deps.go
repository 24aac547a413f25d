package evidence

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

func init() {
	register(&command{group: "evidence", name: "deps", args: "ID",
		summary: "Show which evidence references the part's definitions and which parts' definitions\n" +
			"it calls, with part-file:line and source file:line (seed 003).",
		run: (*Engine).deps})
}

// defNames are the names a part defines: the index's symbols inside its
// span when the file is indexed, else names on declaration lines.
func defNames(db *store.DB, p *Part) []string {
	var names []string
	s := p.Source
	if db != nil && s.Path != "" {
		_ = db.View(func(tx *store.Tx) error {
			chunks, err := tx.FileChunks(s.Path)
			if err != nil {
				return nil
			}
			for _, c := range chunks {
				if c.Symbol != "" && (s.Span == "all" || c.StartLine <= s.EndLine && c.EndLine >= s.StartLine) {
					names = append(names, c.Symbol)
				}
			}
			return nil
		})
	}
	if len(names) == 0 {
		for _, m := range declName().FindAllStringSubmatch(p.Code, -1) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	// Very short names ("x", "Do") match everywhere and say nothing.
	return slices.DeleteFunc(names, func(n string) bool { return len(n) < 3 })
}

// declName finds the declared name on a declaration line.
var declName = lazyRegexp(`(?m)^\s*(?:export\s+|pub\s+|async\s+|public\s+|static\s+)*(?:func(?:\s*\([^)]*\))?|def|class|type|interface|struct|enum|trait|fn|function)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// use is one occurrence of a name in a part.
type use struct {
	name     string
	part     *Part // where the name is used
	partLine int   // line in the part file
	srcLine  int   // line in the source, 0 when unknown
	// calls is set when part (the target) uses a name def defines; else
	// part references a name the target defines.
	calls bool
	def   *Part
}

// wordUses finds the identifiers of names in p's code, one per name.
func wordUses(p *Part, names map[string]bool) []use {
	text := p.Code
	if text == "" {
		text = p.Body
	}
	offset := codeOffset(p)
	seen := map[string]bool{}
	var out []use
	line := 0
	for _, l := range strings.Split(text, "\n") {
		line++
		for _, w := range identRE().FindAllString(l, -1) {
			if names[w] && !seen[w] {
				seen[w] = true
				u := use{name: w, part: p, partLine: offset + line}
				if p.Source.StartLine > 0 {
					u.srcLine = p.Source.StartLine + line - 1
				}
				out = append(out, u)
			}
		}
	}
	return out
}

var identRE = lazyRegexp(`[A-Za-z_][A-Za-z0-9_]*`)

func (e *Engine) deps(c *call) error {
	if err := c.needArgs(1, 1, "a part ID"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	target, err := f.Find(c.args[0])
	if err != nil {
		return err
	}
	db, _ := openIndex(e.Root) // without an index, declarations are read from the text
	if db != nil {
		defer db.Close()
	}
	defs := map[*Part][]string{}
	for _, p := range f.Parts {
		if p.Role == assemble.Evidence && p.Broken == "" {
			defs[p] = defNames(db, p)
		}
	}
	fmt.Fprintf(c.w, "%s defines %d name(s)%s\n", target.ID(), len(defs[target]), listSome(defs[target], 8))
	var uses []use
	resolved := false
	if db != nil {
		if uses, resolved, err = resolvedUses(db, f, target); err != nil {
			return err
		}
	}
	if !resolved {
		why := "it is not in the index"
		if db == nil {
			why = "there is no index"
		}
		fmt.Fprintf(c.w, "  (names matched by text, not resolved: %s)\n", why)
		uses = textUses(f, target, defs)
	}
	for _, u := range uses {
		if u.calls {
			fmt.Fprintf(c.w, "  Calls %s in %s  (used at %s:%d%s)\n", u.name, u.def.Name, target.Name, u.partLine, srcAt(target, u))
		} else {
			fmt.Fprintf(c.w, "  Referenced by %s:%d%s  (%s)\n", u.part.Name, u.partLine, srcAt(u.part, u), u.name)
		}
	}
	if len(uses) == 0 {
		fmt.Fprintln(c.w, "  no references between this part and the other evidence")
	}
	return nil
}

// resolvedUses answers deps from the index's reference resolution (the
// same as `dossier related`): the calls into the target's span from other
// parts, then the definitions other parts hold that the target calls. A
// comment, a string, a definition or a name another type happens to share
// is no reference. ok is false when the target's source is not indexed as
// it is (a file outside the index, a stale span).
func resolvedUses(db *store.DB, f *Flow, target *Part) (out []use, ok bool, err error) {
	s := target.Source
	if s.Path == "" || target.Broken != "" {
		return nil, false, nil
	}
	t := related.Target{Path: s.Path}
	if s.Span != "all" && s.StartLine > 0 {
		t.Start, t.End = s.StartLine, s.EndLine
	}
	var x *related.Expansion
	err = db.View(func(tx *store.Tx) error {
		var err error
		x, err = related.Expand(tx, t, related.Options{Limit: depsLimit})
		return err
	})
	switch {
	case errors.Is(err, related.ErrNotIndexed), errors.Is(err, related.ErrPastEOF):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	type key struct {
		part *Part
		line int
		name string
	}
	seen := map[key]bool{}
	for _, r := range x.Callers {
		for _, p := range holders(f, target, r.Path, r.Line) {
			if k := (key{p, r.Line, r.Name}); !seen[k] {
				seen[k] = true
				out = append(out, use{name: r.Name, part: p, partLine: partLine(p, r.Line), srcLine: r.Line})
			}
		}
	}
	for _, r := range x.Callees {
		for _, p := range holders(f, target, r.Path, r.Line) {
			if k := (key{p, -r.CallLine, r.Name}); !seen[k] {
				seen[k] = true
				out = append(out, use{name: r.Name, part: target, def: p, calls: true,
					partLine: partLine(target, r.CallLine), srcLine: r.CallLine})
			}
		}
	}
	return out, true, nil
}

// depsLimit bounds the callers and callees deps asks the resolver for.
const depsLimit = 500

// holders are the evidence parts other than target whose span holds line
// of path.
func holders(f *Flow, target *Part, p string, line int) []*Part {
	var out []*Part
	for _, q := range f.Parts {
		s := q.Source
		if q == target || q.Role != assemble.Evidence || q.Broken != "" || s.Path != p {
			continue
		}
		if s.Span == "all" || s.StartLine <= line && line <= s.EndLine {
			out = append(out, q)
		}
	}
	return out
}

// partLine is the line of p's part file that shows srcLine of its source.
func partLine(p *Part, srcLine int) int {
	start := p.Source.StartLine
	if p.Source.Span == "all" || start < 1 {
		start = 1
	}
	return codeOffset(p) + srcLine - start + 1
}

// codeOffset is how many lines of p's part file come before its code: the
// heading, the provenance and the fence.
func codeOffset(p *Part) int {
	text := p.Code
	if text == "" {
		text = p.Body
	}
	return strings.Count(p.Content[:max(0, strings.Index(p.Content, text))], "\n")
}

// textUses is deps without an index: names the parts define, matched as
// words in the other parts' text.
func textUses(f *Flow, target *Part, defs map[*Part][]string) []use {
	owner := map[string][]*Part{}
	for _, p := range f.Parts {
		for _, n := range defs[p] {
			owner[n] = append(owner[n], p)
		}
	}
	mine := map[string]bool{}
	for _, n := range defs[target] {
		mine[n] = true
	}
	var out []use
	for _, p := range f.Parts {
		if p == target || defs[p] == nil && p.Role != assemble.Evidence {
			continue
		}
		out = append(out, wordUses(p, mine)...)
	}
	others := map[string]bool{}
	for name, ps := range owner {
		if !mine[name] || len(ps) > 1 {
			others[name] = true
		}
	}
	for _, u := range wordUses(target, others) {
		for _, p := range owner[u.name] {
			if p != target {
				u.def, u.calls = p, true
				out = append(out, u)
			}
		}
	}
	return out
}

func srcAt(p *Part, u use) string {
	if u.srcLine == 0 {
		return ""
	}
	return fmt.Sprintf(", %s:%d", p.Source.Path, u.srcLine)
}

func listSome(names []string, n int) string {
	if len(names) == 0 {
		return ""
	}
	if len(names) > n {
		return ": " + strings.Join(names[:n], ", ") + ", ..."
	}
	return ": " + strings.Join(names, ", ")
}
