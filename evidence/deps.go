package evidence

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/assemble"
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
		for _, m := range declName.FindAllStringSubmatch(p.Code, -1) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	// Very short names ("x", "Do") match everywhere and say nothing.
	return slices.DeleteFunc(names, func(n string) bool { return len(n) < 3 })
}

// declName finds the declared name on a declaration line.
var declName = regexp.MustCompile(`(?m)^\s*(?:export\s+|pub\s+|async\s+|public\s+|static\s+)*(?:func(?:\s*\([^)]*\))?|def|class|type|interface|struct|enum|trait|fn|function)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// use is one occurrence of a name in a part.
type use struct {
	name     string
	part     *Part
	partLine int // line in the part file
	srcLine  int // line in the source, 0 when unknown
}

// uses finds the identifiers of names in p's code, one per name.
func uses(p *Part, names map[string]bool) []use {
	text := p.Code
	if text == "" {
		text = p.Body
	}
	// The code starts after the heading, the provenance and the fence.
	offset := strings.Count(p.Content[:max(0, strings.Index(p.Content, text))], "\n")
	seen := map[string]bool{}
	var out []use
	line := 0
	for _, l := range strings.Split(text, "\n") {
		line++
		for _, w := range identRE.FindAllString(l, -1) {
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

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

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
	owner := map[string][]*Part{}
	for _, p := range f.Parts {
		if p.Role != assemble.Evidence || p.Broken != "" {
			continue
		}
		defs[p] = defNames(db, p)
		for _, n := range defs[p] {
			owner[n] = append(owner[n], p)
		}
	}
	mine := map[string]bool{}
	for _, n := range defs[target] {
		mine[n] = true
	}
	fmt.Fprintf(c.w, "%s defines %d name(s)%s\n", target.ID(), len(mine), listSome(defs[target], 8))
	n := 0
	for _, p := range f.Parts {
		if p == target || defs[p] == nil && p.Role != assemble.Evidence {
			continue
		}
		for _, u := range uses(p, mine) {
			n++
			fmt.Fprintf(c.w, "  Referenced by %s:%d%s  (%s)\n", p.Name, u.partLine, srcAt(p, u), u.name)
		}
	}
	others := map[string]bool{}
	for name, ps := range owner {
		if !mine[name] || len(ps) > 1 {
			others[name] = true
		}
	}
	for _, u := range uses(target, others) {
		for _, p := range owner[u.name] {
			if p == target {
				continue
			}
			n++
			fmt.Fprintf(c.w, "  Calls %s in %s  (used at %s:%d%s)\n", u.name, p.Name, target.Name, u.partLine, srcAt(target, u))
		}
	}
	if n == 0 {
		fmt.Fprintln(c.w, "  no references between this part and the other evidence")
	}
	return nil
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
