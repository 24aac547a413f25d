package evidence

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

// gatherChanges is `gather changes`: the working tree's diff against HEAD
// (git:diff), then each function, method or type whose lines the diff
// touches, whole (PATH::@Symbol, found in the file as it is now), then
// the tests of each, as `gather fix` finds them (the test functions that
// call it, or that name it where calls are not resolved).
func (e *Engine) gatherChanges(c *call) error {
	if len(c.args) > 1 {
		return usagef("gather changes takes no target: it gathers the working tree's change against HEAD (git:diff)")
	}
	const spec = "git:diff"
	zero, _, err := gitDiff(e.Root, "diff", []string{"-U0"})
	if err != nil {
		return err
	}
	db, err := openIndex(e.Root)
	if err != nil {
		return err
	}
	defer db.Close()
	items := []gatherItem{{sel: spec, band: "critical", why: "target"}}
	var changed []gatherItem
	var notes []string
	outside := 0
	for _, fc := range changedLines(zero) {
		raw, err := ReadRegular(filepath.Join(e.Root, filepath.FromSlash(fc.path)), resolveRoots(e.Root))
		if err != nil {
			continue // deleted, or not a regular file: the diff shows it
		}
		units, _, err := unitsNow(known(db), fc.path, raw)
		if err != nil {
			return err
		}
		syms, rest := touchedSymbols(units, fc.lines)
		outside += rest
		for _, s := range syms {
			changed = append(changed, gatherItem{sel: fc.path + "::@" + s, band: "critical", why: "changed"})
		}
	}
	if outside > 0 {
		notes = append(notes, fmt.Sprintf("%d changed line(s) are in no function or type: the diff shows them", outside))
	}
	items = append(items, changed...)
	limit := c.o.limit
	err = db.View(func(tx *store.Tx) error {
		seen := map[string]bool{}
		for _, it := range changed {
			path, sym, _ := strings.Cut(it.sel, "::@")
			x, err := related.Expand(tx, related.Target{Path: path, Symbol: sym}, related.Options{Limit: limit})
			if err != nil {
				notes = append(notes, fmt.Sprintf("no tests for %s: %v (`dossier index` takes new symbols)", it.sel, firstLine(err.Error())))
				continue
			}
			g := &gatherer{tx: tx, x: x, plan: gatherPlan{tests: "supporting"}, limit: limit}
			tests, more, err := g.items()
			if err != nil {
				return err
			}
			for _, n := range more {
				notes = append(notes, it.sel+": "+n)
			}
			for _, t := range tests {
				if !seen[t.sel] {
					seen[t.sel] = true
					items = append(items, t)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	db.Close()
	return e.addGathered(c.w, "changes", spec, items, slices.Compact(notes))
}

// fileChange is the lines of one file a diff touches, as the file is now.
type fileChange struct {
	path  string
	lines []lineRange
}

// lineRange is lines start-end, inclusive; a deletion is the two lines
// around it.
type lineRange struct {
	start, end int
	deletion   bool
}

// changedLines reads a -U0 diff: for each file still there, the new-side
// lines of each hunk (@@ -a,b +c,d @@). A hunk that only deletes (d = 0)
// touches the lines c and c+1 it falls between.
func changedLines(diff string) []fileChange {
	var out []fileChange
	var cur *fileChange
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff "):
			cur = nil
		case strings.HasPrefix(line, "+++ "):
			p := strings.TrimPrefix(line, "+++ ")
			if p, ok := strings.CutPrefix(p, "b/"); ok {
				out = append(out, fileChange{path: p})
				cur = &out[len(out)-1]
			}
		case strings.HasPrefix(line, "@@ ") && cur != nil:
			fields := strings.Fields(line)
			if len(fields) < 3 || !strings.HasPrefix(fields[2], "+") {
				continue
			}
			a, b, ok := strings.Cut(fields[2][1:], ",")
			start, err := strconv.Atoi(a)
			n := 1
			if ok {
				n, _ = strconv.Atoi(b)
			}
			if err != nil {
				continue
			}
			if n == 0 {
				cur.lines = append(cur.lines, lineRange{start, start + 1, true})
			} else {
				cur.lines = append(cur.lines, lineRange{start, start + n - 1, false})
			}
		}
	}
	return out
}

// touchedSymbols names the symbols (as selectors name them, "Type.Method")
// whose chunks hold a changed line, in file order, and counts the changed
// ranges no symbol holds. A deletion between two lines counts for the
// symbol that holds both.
func touchedSymbols(units []unit, ranges []lineRange) (names []string, outside int) {
	for _, r := range ranges {
		hit := false
		for _, u := range units {
			if u.member || u.sym == "" || u.outline {
				continue
			}
			in := u.start <= r.end && r.start <= u.end
			if r.deletion {
				in = u.start <= r.start && r.end <= u.end
			}
			if in {
				hit = true
				if n := u.name(); !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		if !hit {
			outside++
		}
	}
	return names, outside
}
