package evidence

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

func init() {
	register(&command{group: "evidence", name: "gather", args: "fix|test|refactor|explain TARGET",
		summary: "Add the context seed 004's task strategy lists for TARGET (PATH[::RANGE|::@Symbol]):\n" +
			"fix: target, imported files, tests; test: target, its tests; refactor: target, imports,\n" +
			"importers, callers; explain: target, callees. Ranks: target 100s, direct context 200s,\n" +
			"wider context 300s-400s. Sets the flow's mode.",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.IntVar(&o.limit, "limit", 8, "most parts per kind of relation")
		},
		run: (*Engine).gather})
}

// gatherPlan is what one recipe takes from an expansion, and where.
type gatherPlan struct {
	imports, importers, tests, callers, callees string // band names, "" to leave out
}

var recipes = map[string]gatherPlan{
	"fix":      {imports: "peripheral", tests: "supporting", callees: "peripheral"},
	"test":     {tests: "supporting", callees: "peripheral"},
	"refactor": {imports: "peripheral", importers: "supporting", callers: "supporting", tests: "optional"},
	"explain":  {callees: "supporting", imports: "optional"},
}

func (e *Engine) gather(c *call) error {
	if err := c.needArgs(2, 2, "a task (fix, test, refactor, explain) and a TARGET"); err != nil {
		return err
	}
	task, spec := c.args[0], c.args[1]
	plan, ok := recipes[task]
	if !ok {
		return usagef("unknown task %q: fix, test, refactor or explain", task)
	}
	sel, err := ParseSelector(spec)
	if err != nil {
		return &UsageError{err.Error()}
	}
	db, err := openIndex(e.Root)
	if err != nil {
		return err
	}
	defer db.Close()
	if sel.Path == "" {
		if sel.Path, err = ResolveSymbol(db, sel.Symbol); err != nil {
			return err
		}
	}
	rel, _, err := inRoot(e.Root, sel.Path)
	if err != nil {
		return err
	}
	sel.Path = rel
	var x *related.Expansion
	err = db.View(func(tx *store.Tx) error {
		var err error
		x, err = related.Expand(tx, sel.Target, related.Options{Limit: c.o.limit})
		return err
	})
	if err != nil {
		return err
	}
	db.Close()
	f, err := e.flowOrCreate(c.w)
	if err != nil {
		return err
	}
	if f.Meta.Mode == "" {
		f.Meta.Mode = task
		if err := f.SaveMeta(); err != nil {
			return err
		}
	}
	added := 0
	try := func(selector, band, why string) {
		b, _ := ParseBand(band)
		p, err := e.Add(AddRequest{Selector: selector, Role: "evidence", Rank: -1, Band: b, Via: "gather:" + task + " " + why})
		switch {
		case err == nil:
			added++
			fmt.Fprintf(c.w, "✓ %-28s %-9s %s\n", p.ID(), why, SourceLabel(p))
		case strings.Contains(err.Error(), "already in the flow"):
		default:
			fmt.Fprintf(c.w, "  - %s: %v\n", selector, firstLine(err.Error()))
		}
	}
	try(sel.String(), "critical", "target")
	refs := func(band, why string, rs []related.Ref, whole bool) {
		if band == "" {
			return
		}
		for _, r := range rs {
			s := r.Path
			if !whole && r.StartLine > 0 {
				s = fmt.Sprintf("%s::%d,%d", r.Path, r.StartLine, r.EndLine)
			}
			try(s, band, why)
		}
	}
	if plan.imports != "" {
		for _, imp := range x.Imports {
			for _, p := range imp.Paths[:min(len(imp.Paths), 2)] {
				try(p, plan.imports, "import")
			}
		}
	}
	refs(plan.tests, "test", x.Tests, true)
	refs(plan.importers, "importer", x.Importers, true)
	refs(plan.callers, "caller", x.Callers, false)
	refs(plan.callees, "callee", x.Callees, false)
	return e.finishBatch(c.w, added)
}

// finishBatch refreshes build/ after adding several parts and prints the
// totals.
func (e *Engine) finishBatch(w io.Writer, added int) error {
	fmt.Fprintf(w, "✓ Added %d part(s)\n", added)
	return e.finish(w)
}
