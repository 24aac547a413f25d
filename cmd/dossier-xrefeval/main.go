// Command dossier-xrefeval measures related's callees and callers against
// the true call edges of a repository (written by gotruth for Go, by
// tstruth/truth.mjs for TypeScript, by javatruth/Truth.java for Java, by
// pytruth/truth.py for Python, from jedi's inference, offline): it
// samples definitions, expands each
// as path::@Container.Name, maps the refs back to definitions and prints
// precision and recall, micro-averaged over (target, definition) pairs.
//
//	dossier-xrefeval -truth glow.json -root /tmp/xref-repos/glow [-n 300] [-seed 1] [-json]
//
// The repository is indexed first when it has no .dossier. Refs into files
// the truth does not know (another platform's build) and to types
// (conversions, literals, which the truth leaves out) are not scored.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dossierhq/dossier/cmd/dossier-xrefeval/truth"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

// Score is one list's figures.
type Score struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// Report is the comparator's result.
type Report struct {
	Repo    string   `json:"repo"`
	Commit  string   `json:"commit"`
	Lang    string   `json:"lang"`
	Sampled int      `json:"sampled"`
	Skipped int      `json:"skipped"` // not selectable as a symbol
	Edges   int      `json:"edges"`   // true edges touching the sampled defs
	Callees Score    `json:"callees"`
	Callers Score    `json:"callers"`
	Misses  []string `json:"misses,omitempty"`
	False   []string `json:"false_hits,omitempty"`
}

func main() {
	truthPath := flag.String("truth", "", "truth JSON (gotruth, tstruth/truth.mjs, javatruth/Truth.java, pytruth/truth.py)")
	root := flag.String("root", ".", "the repository the truth describes")
	n := flag.Int("n", 300, "definitions to sample")
	seed := flag.Uint64("seed", 1, "sampling seed")
	asJSON := flag.Bool("json", false, "print JSON")
	show := flag.Int("show", 15, "misses and false hits to list")
	flag.Parse()
	if *truthPath == "" {
		fmt.Fprintln(os.Stderr, "dossier-xrefeval: -truth is required (write one with gotruth, tstruth/truth.mjs, javatruth/Truth.java or pytruth/truth.py)")
		os.Exit(2)
	}
	rep, err := run(*truthPath, *root, *n, *seed, *show)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dossier-xrefeval:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	print(os.Stdout, rep)
}

func run(truthPath, root string, n int, seed uint64, show int) (*Report, error) {
	raw, err := os.ReadFile(truthPath)
	if err != nil {
		return nil, err
	}
	var t truth.File
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", truthPath, err)
	}
	if _, err := os.Stat(store.Path(root)); errors.Is(err, os.ErrNotExist) {
		ix, err := index.Open(index.Options{Root: root})
		if err != nil {
			return nil, err
		}
		if _, err := ix.Run(context.Background()); err != nil {
			ix.Close()
			return nil, err
		}
		if err := ix.Close(); err != nil {
			return nil, err
		}
	}
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	e := newEval(&t)
	rep := &Report{Repo: t.Repo, Commit: t.Commit, Lang: t.Lang}
	for _, i := range e.sample(n, seed) {
		d := t.Defs[i]
		sym := d.Name
		if d.Container != "" {
			sym = d.Container + "." + d.Name
		}
		target := related.Target{Path: d.Path, Symbol: sym}
		if d.End > 0 {
			// The symbol names every overload: the lines name one.
			target = related.Target{Path: d.Path, Start: d.Line, End: d.End}
		}
		var x *related.Expansion
		err := db.View(func(tx *store.Tx) error {
			var err error
			x, err = related.Expand(tx, target, related.Options{Limit: 1 << 20})
			return err
		})
		if errors.Is(err, related.ErrNoSymbol) || errors.Is(err, related.ErrNotIndexed) {
			rep.Skipped++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("expand %s: %w", target, err)
		}
		rep.Sampled++
		e.score(i, x, rep)
	}
	finish(&rep.Callees)
	finish(&rep.Callers)
	slices.Sort(rep.Misses)
	slices.Sort(rep.False)
	rep.Misses = firstN(rep.Misses, show)
	rep.False = firstN(rep.False, show)
	return rep, nil
}

type eval struct {
	t       *truth.File
	byName  map[[3]string][]int // path, container, name -> defs (several: overloads)
	files   map[string]bool     // files the truth knows
	callees map[int]map[int]int
	callers map[int]map[int]int
}

func newEval(t *truth.File) *eval {
	e := &eval{t: t, byName: map[[3]string][]int{}, files: map[string]bool{}, callees: map[int]map[int]int{},
		callers: map[int]map[int]int{}}
	for i, d := range t.Defs {
		k := [3]string{d.Path, d.Container, d.Name}
		e.byName[k] = append(e.byName[k], i)
		e.files[d.Path] = true
	}
	for _, ed := range t.Edges {
		if ed.Caller == ed.Callee {
			continue // recursion: related never lists the target as its own callee or caller
		}
		if e.callees[ed.Caller] == nil {
			e.callees[ed.Caller] = map[int]int{}
		}
		if e.callers[ed.Callee] == nil {
			e.callers[ed.Callee] = map[int]int{}
		}
		e.callees[ed.Caller][ed.Callee] = ed.Line
		e.callers[ed.Callee][ed.Caller] = ed.Line
	}
	return e
}

// sample picks up to n functions and methods (interface methods have no
// chunk of their own to select), seeded.
func (e *eval) sample(n int, seed uint64) []int {
	var all []int
	for i, d := range e.t.Defs {
		if d.Kind != "interface method" && sampled[d.Kind] {
			all = append(all, i)
		}
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	if len(all) > n {
		all = all[:n]
	}
	slices.Sort(all)
	return all
}

// lookup maps a ref's path and "Container.Name" symbol to a truth def;
// of several overloads, the one in the caller's chunk, or for a callee the
// first at or after the ref's line (its chunk's start).
func (e *eval) lookup(r related.Ref) (int, bool) {
	container, name := "", r.Symbol
	if i := strings.LastIndexByte(r.Symbol, '.'); i >= 0 {
		container, name = r.Symbol[:i], r.Symbol[i+1:]
	}
	cands := e.byName[[3]string{r.Path, container, name}]
	if len(cands) <= 1 {
		return firstOf(cands)
	}
	best, bestLine := -1, 0
	for _, i := range cands {
		line := e.t.Defs[i].Line
		if r.StartLine > 0 && r.StartLine <= line && line <= r.EndLine {
			return i, true
		}
		if r.StartLine == 0 && line >= r.Line && (best < 0 || line < bestLine) {
			best, bestLine = i, line
		}
	}
	return best, best >= 0
}

func firstOf(list []int) (int, bool) {
	if len(list) == 0 {
		return 0, false
	}
	return list[0], true
}

// sampled are the kinds of definition whose callees and callers the
// truth lists: a class is a set of methods, a field or variable holds a
// value (TypeScript's truth lists them only for attribution).
var sampled = map[string]bool{"": true, "function": true, "method": true, "constructor": true}

// within finds the definition named like r's symbol whose line lies in
// r's chunk: the index names some chunks oddly (a receiver with several
// type parameters), the lines still tell.
func (e *eval) within(r related.Ref) (int, bool) {
	name := r.Symbol[strings.LastIndexByte(r.Symbol, '.')+1:]
	for i, d := range e.t.Defs {
		if d.Path == r.Path && d.Name == name && r.StartLine <= d.Line && d.Line <= r.EndLine {
			return i, true
		}
	}
	return 0, false
}

var scored = map[string]bool{"function": true, "method": true, "constructor": true, "interface method": true}

func (e *eval) score(target int, x *related.Expansion, rep *Report) {
	tname := e.name(target)
	list := func(s *Score, refs []related.Ref, truth map[int]int, what string) {
		got := map[int]bool{}
		for _, r := range refs {
			if !e.files[r.Path] {
				continue // another platform's file: the truth has not checked it
			}
			i, ok := e.lookup(r)
			if !ok {
				i, ok = e.within(r)
			}
			switch {
			case ok:
				got[i] = true
			case scored[r.Kind]:
				s.FP++
				rep.False = append(rep.False, fmt.Sprintf("%s %s: %s:%d %s (unknown to the truth)", what, tname, r.Path, r.Line, r.Symbol))
			}
		}
		for i := range got {
			if _, ok := truth[i]; ok {
				s.TP++
			} else {
				s.FP++
				rep.False = append(rep.False, fmt.Sprintf("%s %s: %s", what, tname, e.name(i)))
			}
		}
		for i, line := range truth {
			if !got[i] {
				s.FN++
				rep.Misses = append(rep.Misses, fmt.Sprintf("%s %s: %s (line %d)", what, tname, e.name(i), line))
			}
		}
		rep.Edges += len(truth)
	}
	list(&rep.Callees, x.Callees, e.callees[target], "callee of")
	list(&rep.Callers, x.Callers, e.callers[target], "caller of")
}

func (e *eval) name(i int) string {
	d := e.t.Defs[i]
	if d.Container != "" {
		return fmt.Sprintf("%s:%d %s.%s", d.Path, d.Line, d.Container, d.Name)
	}
	return fmt.Sprintf("%s:%d %s", d.Path, d.Line, d.Name)
}

func finish(s *Score) {
	s.Precision, s.Recall = 1, 1
	if s.TP+s.FP > 0 {
		s.Precision = float64(s.TP) / float64(s.TP+s.FP)
	}
	if s.TP+s.FN > 0 {
		s.Recall = float64(s.TP) / float64(s.TP+s.FN)
	}
}

func firstN(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func print(w io.Writer, r *Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "repo\tcommit\tdefs sampled\tedges\tcallees P\tcallees R\tcallers P\tcallers R\n")
	commit := r.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\n", r.Repo, commit, r.Sampled, r.Edges,
		r.Callees.Precision, r.Callees.Recall, r.Callers.Precision, r.Callers.Recall)
	tw.Flush()
	if r.Skipped > 0 {
		fmt.Fprintf(w, "%d sampled definitions are no symbol of the index (skipped)\n", r.Skipped)
	}
	for _, m := range r.Misses {
		fmt.Fprintln(w, "miss:", m)
	}
	for _, f := range r.False {
		fmt.Fprintln(w, "false:", f)
	}
}
