package evidence

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/history"
)

func init() {
	register(&command{group: "flow", name: "diff", args: "",
		summary: "Show what changed in the flow's sources since each part was taken, per part: unchanged,\n" +
			"moved, changed (with a diff), lost or deleted. Nothing is written: `evidence refresh` takes the changes.",
		run: (*Engine).flowDiff})
}

func (e *Engine) flowDiff(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	var unchanged []string
	n := 0
	for _, p := range f.Parts {
		s := p.Source
		if p.Role != assemble.Evidence || p.Link || s.Path == "" || s.CID == "" || p.Broken != "" {
			continue
		}
		n++
		if isGitSource(s) {
			if e.flowDiffGit(c.w, p) {
				unchanged = append(unchanged, p.ID())
			}
			continue
		}
		if budget, ok := isMapPart(p); ok {
			if e.diffMap(c.w, f, p, budget) {
				unchanged = append(unchanged, p.ID())
			}
			continue
		}
		raw, err := ReadRegular(filepath.Join(e.Root, filepath.FromSlash(s.Path)), resolveRoots(e.Root))
		if err != nil {
			what := "deleted"
			if st := refusedState(err); st != "" {
				what = st
			}
			fmt.Fprintf(c.w, "✗ %-8s %s: %s cannot be read (%v)\n", what, p.ID(), s.Path, firstLine(err.Error()))
			continue
		}
		text := string(raw)
		r := e.relocatePart(p, text)
		switch r.state {
		case Unchanged:
			unchanged = append(unchanged, p.ID())
		case Moved:
			fmt.Fprintf(c.w, "  moved    %s: %s\n", p.ID(), r.why)
		case Changed:
			fmt.Fprintf(c.w, "  changed  %s: %s\n", p.ID(), r.why)
			now := text
			if s.Span != "all" {
				now = sliceLines(text, lineStarts(text), r.start, r.end)
			}
			old := oldText(p)
			if old == "" {
				old = p.Code // edited by hand: the diff shows the edit too
			}
			fmt.Fprint(c.w, shortDiff(old, now, 20))
		case Lost:
			fmt.Fprintf(c.w, "✗ lost     %s: %s\n", p.ID(), r.why)
		}
	}
	if len(unchanged) > 0 {
		fmt.Fprintf(c.w, "  unchanged: %s\n", strings.Join(unchanged, ", "))
	}
	if n == 0 {
		fmt.Fprintln(c.w, "no parts taken from a source")
	}
	return nil
}

// commitRange says which commits the flow's parts were taken at, oldest
// first, and how many parts came from files that differed from them:
// `flow show`'s "Commits:" line.
func (e *Engine) commitRange(f *Flow) string {
	count := map[string]int{}
	dirty, untracked := 0, 0
	for _, p := range f.Parts {
		if _, isMap := isMapPart(p); isMap || p.Role != assemble.Evidence || p.Link || p.Source.Path == "" {
			continue // a link is always the file as it is, a map the index's
		}
		if p.Source.Commit == "" {
			untracked++
			continue
		}
		count[p.Source.Commit]++
		if p.Source.Dirty {
			dirty++
		}
	}
	if len(count) == 0 {
		if untracked > 0 {
			return "none recorded (the parts were taken outside a git repository, or before dossier kept it)"
		}
		return "-"
	}
	commits := make([]string, 0, len(count))
	for c := range count {
		commits = append(commits, c)
	}
	when := commitTimes(e.Root, commits)
	slices.SortFunc(commits, func(a, b string) int {
		if when[a] != when[b] {
			return when[a].Compare(when[b])
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	if len(commits) == 1 {
		fmt.Fprintf(&b, "%.12s (all %d part(s))", commits[0], count[commits[0]])
	} else {
		fmt.Fprintf(&b, "%.12s..%.12s (%d commits:", commits[0], commits[len(commits)-1], len(commits))
		for _, c := range commits {
			fmt.Fprintf(&b, " %.12s×%d", c, count[c])
		}
		b.WriteString(")")
	}
	if dirty > 0 {
		fmt.Fprintf(&b, "; %d part(s) from uncommitted changes", dirty)
	}
	if untracked > 0 {
		fmt.Fprintf(&b, "; %d without a commit", untracked)
	}
	return b.String()
}

// commitTimes is each commit's committer time; a commit git does not
// know (another clone's) sorts first.
func commitTimes(root string, commits []string) map[string]time.Time {
	out := map[string]time.Time{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range commits {
		raw, err := history.Git(ctx, root, "show", "-s", "--format=%ct", c)
		if err != nil {
			continue
		}
		if sec, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err == nil {
			out[c] = time.Unix(sec, 0)
		}
	}
	return out
}
