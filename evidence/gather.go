package evidence

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

func init() {
	register(&command{group: "evidence", name: "gather", args: "fix|test|refactor|explain TARGET | changes",
		summary: "Add the context seed 004's task strategy lists for TARGET (PATH[::RANGE|::@Symbol]):\n" +
			"fix: target, imported symbols, callees, tests; test: target, its tests, callees;\n" +
			"refactor: target, imported symbols, importers, callers, tests; explain: target, callees,\n" +
			"imported symbols. Each is added as the span of its symbol (a callee's function, the test\n" +
			"functions that name the target), never a whole file unless --whole; spans already in\n" +
			"the flow are not added again. Ranks: target 100s, direct context 200s, wider context\n" +
			"300s-400s. Sets the flow's mode. changes (no TARGET): the working tree's diff against HEAD\n" +
			"(git:diff), each function or type whose lines it touches whole (PATH::@Symbol), and their\n" +
			"tests, as fix finds them.",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.IntVar(&o.limit, "limit", 8, "most parts per kind of relation")
			fs.BoolVar(&o.whole, "whole", false, "add imports, tests and importers as whole files")
		},
		run: (*Engine).gather})
}

// gatherPlan is what one recipe takes from an expansion, and where.
type gatherPlan struct {
	imports, importers, tests, callers, callees string // band names, "" to leave out
}

var recipes = sync.OnceValue(func() map[string]gatherPlan {
	return map[string]gatherPlan{
		"fix":      {imports: "peripheral", tests: "supporting", callees: "peripheral"},
		"test":     {tests: "supporting", callees: "peripheral"},
		"refactor": {imports: "peripheral", importers: "supporting", callers: "supporting", tests: "optional"},
		"explain":  {callees: "supporting", imports: "optional"},
	}
})

// gatherItem is one selector gather adds.
type gatherItem struct {
	sel, band, why string
}

func (e *Engine) gather(c *call) error {
	if len(c.args) > 0 && c.args[0] == "changes" {
		return e.gatherChanges(c)
	}
	if err := c.needArgs(2, 2, "a task (fix, test, refactor, explain) and a TARGET, or changes"); err != nil {
		return err
	}
	task, spec := c.args[0], c.args[1]
	plan, ok := recipes()[task]
	if !ok {
		return usagef("unknown task %q: fix, test, refactor, explain or changes", task)
	}
	sel, err := ParseSelector(spec)
	if err != nil {
		return &UsageError{Msg: err.Error()}
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
	var items []gatherItem
	var notes []string
	err = db.View(func(tx *store.Tx) error {
		x, err := related.Expand(tx, sel.Target, related.Options{Limit: c.o.limit})
		if err != nil {
			return err
		}
		g := &gatherer{tx: tx, x: x, plan: plan, whole: c.o.whole, limit: c.o.limit}
		items, notes, err = g.items()
		return err
	})
	if err != nil {
		return err
	}
	db.Close()
	items = append([]gatherItem{{sel: sel.String(), band: "critical", why: "target"}}, items...)
	return e.addGathered(c.w, task, spec, items, notes)
}

// addGathered adds a recipe's items in order (its target first),
// sets the flow's mode to the task when it has none, and reports each
// item: added, already held (=) or not taken (-).
func (e *Engine) addGathered(w io.Writer, task, spec string, items []gatherItem, notes []string) error {
	f, err := e.flowOrCreate(w)
	if err != nil {
		return err
	}
	if f.Meta.Mode == "" {
		f.Meta.Mode = task
		if err := f.SaveMeta(); err != nil {
			return err
		}
	}
	added, failed := 0, 0
	for _, it := range items {
		b, _ := ParseBand(it.band)
		sel, err := e.asIndexed(it.sel) // its lines are the index's
		if err != nil {
			failed++
			fmt.Fprintf(w, "  - %s: %v\n", it.sel, firstLine(err.Error()))
			continue
		}
		p, err := e.Add(AddRequest{Selector: sel, Role: "evidence", Rank: -1, Band: b, Via: "gather:" + task + " " + it.why})
		var covered *CoveredError
		switch {
		case err == nil:
			added++
			fmt.Fprintf(w, "✓ %-28s %-9s %s\n", p.ID(), it.why, SourceLabel(p))
		case errors.As(err, &covered):
			if it.why != "target" {
				fmt.Fprintf(w, "  = %-28s %-9s %s\n", covered.By.ID, it.why, it.sel)
			}
		default:
			failed++
			fmt.Fprintf(w, "  - %s: %v\n", it.sel, firstLine(err.Error()))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if err := e.finishBatch(w, added); err != nil {
		return err
	}
	return gatherAddedNothing(spec, added, failed)
}

// gatherAddedNothing makes a gather that added no part because spans could
// not be taken (its target changed or went away: the lines above say why)
// fail, so that a script sees it. A gather whose every span is already in
// the flow did what was asked and succeeds.
func gatherAddedNothing(spec string, added, failed int) error {
	if added > 0 || failed == 0 {
		return nil
	}
	return fmt.Errorf("gather %s added nothing: %d span(s) could not be taken (see above); check the target with `dossier evidence add %s`", spec, failed, spec)
}

// finishBatch refreshes build/ after adding several parts and prints the
// totals.
func (e *Engine) finishBatch(w io.Writer, added int) error {
	fmt.Fprintf(w, "✓ Added %d part(s)\n", added)
	return e.finish(w)
}
