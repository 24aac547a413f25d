// Command dossier-ctagseval measures the index's symbol coverage against
// Universal Ctags: the share of ctags' functions, methods and types of one
// language that the index holds as symbols of the same name, in the same
// file, whose span holds ctags' line.
//
//	dossier-ctagseval -root /tmp/repos/ky -lang TypeScript [-fresh] [-show 30] [-json]
//
// The repository is indexed first (from scratch with -fresh; else an
// existing index is brought up to date). Like is compared with like, and
// what is left out is counted by reason, with how many of those the index
// holds anyway, never silently dropped (see compare in ctags.go):
//   - local definitions: ctags' tags in the body of a function, method or
//     callback (by the syntax tree). They are no symbols by design: the
//     index keeps them in their function's chunk, no code outside it can
//     name them, and symbols named `wrapper` or `inner` in every decorator
//     would turn into false callers and callees in related;
//   - files the index skips (.gitignore, .dossierignore, build output);
//   - names ctags makes up (AnonymousFunction…, __anon…), and JavaScript
//     named function expressions passed as arguments, whose name binds in
//     their own body only;
//   - ctags' errors: TypeScript import lists, keyof and instanceof read as
//     type aliases, JavaScript object literals read as classes, Bash
//     array assignments read as functions `x=`, C# where clauses read as
//     interfaces.
//
// Names are matched as ctags writes them: a Ruby `self.m` as m, a class
// A::B as B, a C++ specialization T<bool> as T, and without white space.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
)

// Report is the comparison's result.
type Report struct {
	Root   string `json:"root"`
	Commit string `json:"commit,omitempty"`
	Lang   string `json:"lang"`
	Ctags  string `json:"ctags"`
	// Tags are ctags' counted tags, Found those the index holds.
	Tags     int     `json:"tags"`
	Found    int     `json:"found"`
	Coverage float64 `json:"coverage"`
	// ByKind is found/tags per ctags kind.
	ByKind map[string][2]int `json:"by_kind"`
	// Left are the tags not counted, by reason, with how many of them the
	// index holds anyway.
	Left   map[string][2]int `json:"left_out,omitempty"`
	Misses []string          `json:"misses,omitempty"`
}

func main() {
	root := flag.String("root", ".", "the repository to measure")
	language := flag.String("lang", "", "ctags language: "+strings.Join(languages(), ", "))
	fresh := flag.Bool("fresh", false, "remove the repository's index.db and build it from scratch first")
	show := flag.Int("show", 30, "misses to list")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	if counted[*language] == nil {
		fmt.Fprintf(os.Stderr, "dossier-ctagseval: -lang %q: want one of %s\n", *language, strings.Join(languages(), ", "))
		os.Exit(2)
	}
	rep, err := run(*root, *language, *fresh, *show)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dossier-ctagseval:", err)
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

func run(root, language string, fresh bool, show int) (*Report, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if fresh {
		if err := os.Remove(store.Path(root)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if err := indexRepo(root); err != nil {
		return nil, fmt.Errorf("index %s: %w", root, err)
	}
	tags, version, err := runCtags(root, language)
	if err != nil {
		return nil, err
	}
	syms, files, err := readSymbols(root)
	if err != nil {
		return nil, err
	}
	local, err := localTags(root, tags)
	if err != nil {
		return nil, err
	}
	rep := compare(tags, local, files, syms, language)
	rep.Root, rep.Ctags = root, version
	if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		rep.Commit = strings.TrimSpace(string(out))
	}
	slices.Sort(rep.Misses)
	if len(rep.Misses) > show {
		rep.Misses = rep.Misses[:show]
	}
	return rep, nil
}

func indexRepo(root string) error {
	ix, err := index.Open(index.Options{Root: root})
	if err != nil {
		return err
	}
	if _, err := ix.Run(context.Background()); err != nil {
		ix.Close()
		return err
	}
	return ix.Close()
}

// span is one index symbol's lines.
type span struct{ start, end int }

// readSymbols maps path and name to the spans of the index's symbols (a
// symbol's own span, or its chunk's when it is its chunk's unit), and
// lists the files the index holds.
func readSymbols(root string) (map[[2]string][]span, map[string]bool, error) {
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	out, files := map[[2]string][]span{}, map[string]bool{}
	err = db.View(func(tx *store.Tx) error {
		if err := tx.Files(func(f store.File) error {
			files[f.Path] = true
			return nil
		}); err != nil {
			return err
		}
		chunks := map[string][]store.Chunk{}
		var ferr error
		err := tx.SymbolsWithPrefix("", func(s store.Symbol) bool {
			sp := span{s.Line, s.EndLine}
			if !s.HasSpan() {
				cs, ok := chunks[s.Path]
				if !ok {
					if cs, ferr = tx.FileChunks(s.Path); ferr != nil {
						return false
					}
					chunks[s.Path] = cs
				}
				if s.Ordinal < len(cs) {
					sp.end = cs[s.Ordinal].EndLine
				}
			}
			// ctags names a Ruby singleton method without its "self.",
			// a class Rack::Builder by its last name and a C++
			// specialization standard_value<bool> by its template's.
			for _, name := range []string{s.Name, lastName(s.Name, "."), lastName(s.Name, "::"), generic(s.Name)} {
				k := [2]string{s.Path, unspaced(name)}
				if name != s.Name && slices.Contains(out[k], sp) {
					continue
				}
				out[k] = append(out[k], sp)
			}
			return true
		})
		if ferr != nil {
			return ferr
		}
		return err
	})
	return out, files, err
}

// unspaced is name without white space: ctags names a C++ operator
// "operator ==", the index as written ("operator==").
func unspaced(name string) string { return strings.Join(strings.Fields(name), "") }

// generic is a C++ specialization's template name (standard_value<bool>:
// standard_value); an operator (operator<<) keeps its name.
func generic(name string) string {
	if i := strings.IndexByte(name, '<'); i > 0 && !strings.HasPrefix(name, "operator") {
		return name[:i]
	}
	return name
}

func lastName(name, sep string) string {
	return name[strings.LastIndex(name, sep)+len(sep):]
}

func print(w io.Writer, r *Report) {
	commit := r.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	fmt.Fprintf(w, "%s %s (%s) against %s\n", r.Root, commit, r.Lang, r.Ctags)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "kind\tfound\ttags\n")
	for _, k := range sortedKeys(r.ByKind) {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", k, r.ByKind[k][0], r.ByKind[k][1])
	}
	fmt.Fprintf(tw, "all\t%d\t%d\tcoverage %.4f\n", r.Found, r.Tags, r.Coverage)
	tw.Flush()
	for _, k := range sortedKeys(r.Left) {
		fmt.Fprintf(w, "left out: %d %s (the index holds %d of them)\n", r.Left[k][1], k, r.Left[k][0])
	}
	for _, m := range r.Misses {
		fmt.Fprintln(w, "miss:", m)
	}
}

func sortedKeys(m map[string][2]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
