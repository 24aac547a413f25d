package query

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Search is `dossier search`: the index's ranked chunks for a query.
type Search struct {
	ws         Workspace
	handOff    func() error
	k          int
	mode       string
	types      []string
	pathPrefix string
	near       string
	minScore   float64
	json       bool
	embedder   string
	// other repositories of a shared store (see repos.go)
	repo     string
	allRepos bool
	store    string
	// graph filters (Laravel, Django, Express, Next.js): keep results a walk of these reaches
	routes, controllers, tables []string
}

// The command's help.
const (
	SearchUse   = "search [QUERY]"
	SearchShort = "Search the index (hybrid text, vector and symbol retrieval)"
	SearchLong  = "Search the index for QUERY and print the ranked chunks.\n\n" +
		"Modes: hybrid (default: BM25 text, the index's vectors and symbol names, their\n" +
		"scores fused), text, vector, symbol (exact, prefix and fuzzy names) and regex\n" +
		"(Go regular expressions over the files' text, case-insensitive unless the pattern\n" +
		"has an upper-case letter).\n\n" +
		"With --json and no QUERY (or \"-\"), one query per line is read from standard input\n" +
		"and one JSON line is written per query, in order."
)

// NewSearch is `dossier search` on the workspace ws resolves. handOff,
// when not nil, is how a binary that cannot answer a search passes the
// whole command on (the one-shot front, to dossier-full): a stream of
// queries from standard input, or an index whose vectors come from a
// remote endpoint.
func NewSearch(ws Workspace, handOff func() error) *Search {
	return &Search{ws: ws, handOff: handOff}
}

// Flags adds the command's flags to f.
func (o *Search) Flags(f *pflag.FlagSet) {
	f.IntVarP(&o.k, "k", "k", search.DefaultK, "number of results")
	f.StringVar(&o.mode, "mode", string(search.Hybrid), "hybrid, text, vector, symbol or regex")
	f.StringSliceVar(&o.types, "type", nil, "keep only these kinds or source types (function,method,test,doc,file_change,run_summary,...)")
	f.StringVar(&o.pathPrefix, "path-prefix", "", "keep only paths starting with this")
	f.StringVar(&o.near, "near", "", "rank results near this path higher")
	f.Float64Var(&o.minScore, "min-score", search.DefaultMinScore, "drop results scoring below this (absolute: 1 is a strong match, 0 none)")
	f.BoolVar(&o.json, "json", false, "print JSON (one object per query)")
	f.StringSliceVar(&o.routes, "route", nil, "keep results on the walk of these routes (Laravel, Django, Express, Next.js: name, URI or \"METHOD URI\")")
	f.StringSliceVar(&o.controllers, "controller", nil, "keep results on the walk of these controllers (a class, a module of views or handlers, Name@method)")
	f.StringSliceVar(&o.tables, "table", nil, "keep results on the walk of these tables (migrations, models, related models)")
	f.StringVar(&o.embedder, "embedder", "", "embed the query with this provider (builtin or openai); it must be the index's (default: the index's)")
	f.StringVar(&o.repo, "repo", "", "search this repository of the shared store instead of the workspace (its name: the normalised remote URL, as `dossier store status` lists it)")
	f.BoolVar(&o.allRepos, "all-repos", false, "search every repository of the shared store, results merged by score")
	f.StringVar(&o.store, "store", "", "the shared store: a workspace with no index of its own reads the store's snapshot of its commit; the store of --repo and --all-repos (default: [store] url, or the workspace's)")
}

// Run answers args (at most one: the query; none or "-" reads queries
// from standard input, with --json).
func (o *Search) Run(ctx context.Context, std IO, args []string) error {
	stream := len(args) == 0 || args[0] == "-"
	if stream && o.handOff != nil {
		// Many queries in one process: dossier-full's start is paid
		// once, and it embeds with any endpoint.
		return o.handOff()
	}
	root, cfg, err := o.ws()
	if err != nil {
		return err
	}
	if o.store != "" && o.repo == "" && !o.allRepos {
		// A fresh clone reads the store's snapshot of its commit.
		note, err := cli.LinkFromStore(root, o.store, cfg.Store.PasswordEnv, cfg)
		if err != nil {
			return err
		}
		if note != "" {
			cfg.Notices = append(cfg.Notices, note)
		}
	}
	q, e, scope, err := o.prepare(ctx, root, cfg)
	var resp search.Response
	if err == nil && (o.repo != "" || o.allRepos) {
		switch {
		case stream:
			err = fmt.Errorf("%w: --repo and --all-repos answer one QUERY", cli.ErrUsage)
		case o.repo != "" && o.allRepos:
			err = fmt.Errorf("%w: give --repo NAME or --all-repos, not both", cli.ErrUsage)
		case scope != nil:
			err = fmt.Errorf("%w: --route, --controller and --table walk the workspace's own application", cli.ErrUsage)
		default:
			q.Text = args[0]
			resp, err = o.searchRepos(ctx, root, cfg, q)
		}
	} else if err == nil && !stream {
		q.Text = args[0]
		e.OneShot()
		resp, err = e.SearchRoot(ctx, root, q)
	}
	if errors.Is(err, embed.ErrNoRemote) && o.handOff != nil {
		return o.handOff() // nothing is written yet, not even the notices
	}
	printNotices(std.Err, cfg)
	var bad *search.BadQueryError
	if errors.As(err, &bad) {
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	if err != nil {
		return err
	}
	out := std.Out
	warn := newWarner(std.Err)
	if stream {
		if !o.json {
			return fmt.Errorf("%w: give a QUERY (queries from standard input need --json)", cli.ErrUsage)
		}
		return searchStream(ctx, std.In, out, warn, e, root, q, scope, o.k)
	}
	if scope != nil {
		resp.Results = search.KeepScope(resp.Results, scope, o.k)
	}
	warn.of(resp)
	if o.json {
		return json.NewEncoder(out).Encode(resp)
	}
	printResults(out, resp)
	return nil
}

// prepare checks the flags and makes the query (without its text), the
// engine and the graph scope (nil without --route, --controller, --table).
func (o *Search) prepare(ctx context.Context, root string, cfg config.Config) (search.Query, *search.Engine, *appgraph.Scope, error) {
	mode := search.Mode(o.mode)
	if !slices.Contains(search.Modes, mode) {
		return search.Query{}, nil, nil, fmt.Errorf("%w: --mode %q: use one of hybrid, text, vector, symbol, regex", cli.ErrUsage, o.mode)
	}
	if o.k <= 0 {
		return search.Query{}, nil, nil, fmt.Errorf("%w: -k %d: give a positive number of results", cli.ErrUsage, o.k)
	}
	if o.minScore < 0 || o.minScore > 1 {
		return search.Query{}, nil, nil, fmt.Errorf("%w: --min-score %g: scores are between 0 and 1", cli.ErrUsage, o.minScore)
	}
	// A query is embedded by the index's own model unless the user chose
	// one (flag, or config): then a mismatch is refused.
	want := cfg.Embed.Provider
	if o.embedder != "" {
		want = o.embedder
	}
	q := search.Query{K: o.k, Mode: mode, Types: o.types, PathPrefix: o.pathPrefix, Near: o.near, MinScore: o.minScore, Embedder: want}
	e := search.NewEngine()
	e.AllowEndpoint(cfg.Embed)
	scope, err := o.graphScope(ctx, root)
	if err != nil {
		return q, nil, nil, err
	}
	if scope != nil {
		q.K = appgraph.Widen(q.K)
	}
	return q, e, scope, nil
}

// searchStream answers one query per input line with one JSON line each.
// A failing query yields {"query", "error"} and the stream goes on.
// A scope (search --route/--controller/--table) keeps k results on its walk.
func searchStream(ctx context.Context, in io.Reader, out io.Writer, warn *warner, e *search.Engine, root string, q search.Query, scope *appgraph.Scope, k int) error {
	// The lines are read on a goroutine of their own, so that the index is
	// kept open from one query to the next while the next is already
	// there (see Engine.Hold), and let go before waiting for one.
	lines, done := make(chan string, 64), make(chan struct{})
	var readErr error
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				select {
				case lines <- line:
				case <-done: // the answers stopped (an error)
					return
				}
			}
		}
		readErr = sc.Err()
	}()
	defer close(done)
	defer e.Release()
	enc := json.NewEncoder(out)
	for {
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
			e.Hold()
		default:
			if err := e.Release(); err != nil {
				return err
			}
			select {
			case line, ok = <-lines:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if !ok {
			break
		}
		q.Text = line
		resp, err := e.SearchRoot(ctx, root, q)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := enc.Encode(map[string]string{"query": line, "error": err.Error()}); err != nil {
				return err
			}
			continue
		}
		if scope != nil {
			resp.Results = search.KeepScope(resp.Results, scope, k)
		}
		warn.of(resp)
		if err := enc.Encode(resp); err != nil {
			return err
		}
	}
	if readErr != nil {
		return fmt.Errorf("reading queries: %w", readErr)
	}
	return e.Release()
}

// warner writes a response's warnings (a retriever left out, see
// search.Debug.Warnings) to standard error, each once per command: the
// results on standard output stay what they were, JSON or text, and the
// user still hears that they are partial.
type warner struct {
	w    io.Writer
	seen map[string]bool
}

func newWarner(w io.Writer) *warner { return &warner{w: w, seen: map[string]bool{}} }

func (wr *warner) of(resp search.Response) {
	for _, m := range resp.Debug.Warnings {
		if !wr.seen[m] {
			wr.seen[m] = true
			fmt.Fprintln(wr.w, "dossier:", m)
		}
	}
}

// hasTerms reports whether a query has a word text search looks for: a
// query of stop words alone ("the") has none, and no spelling would help.
func hasTerms(q string) bool {
	found := false
	terms.New().Each(q, func(string) { found = true })
	return found
}

func printResults(w io.Writer, resp search.Response) {
	if len(resp.Results) == 0 {
		fmt.Fprintf(w, "no results for %q scoring at least %.2f (%s, %.1f ms)\n", resp.Query, resp.MinScore, resp.Debug.Strategy, resp.Debug.LatencyMS)
		if len(resp.Debug.NearMisses) > 0 {
			fmt.Fprintln(w, "near misses (lower --min-score to see them):")
			for _, r := range resp.Debug.NearMisses {
				fmt.Fprintf(w, "      %.3f  %s:%d-%d  %s\n", r.Score, termsafe.Line(r.Path), r.StartLine, r.EndLine, orDash(r.Symbol))
			}
		} else if !hasTerms(resp.Query) {
			fmt.Fprintln(w, "its words are all common ones (the, of, to...) that search leaves out: add a word that names what you look for, or look for a pattern (--mode regex)")
		} else {
			fmt.Fprintln(w, "nothing in the index matches its words: check the spelling, or look for a name (--mode symbol) or a pattern (--mode regex)")
		}
		for _, n := range resp.Debug.Notes {
			fmt.Fprintln(w, "note:", n)
		}
		return
	}
	for i, r := range resp.Results {
		path := r.Path
		if r.Repo != "" {
			path = r.Repo + ": " + path
		}
		fmt.Fprintf(w, "%2d  %.3f  %s:%d-%d  %s  %s  [%s]\n", i+1, r.Score, termsafe.Line(path), r.StartLine, r.EndLine, r.Kind, orDash(r.Symbol), strings.Join(r.Sources, ","))
		if r.Line != "" {
			if r.MatchLine > 0 {
				fmt.Fprintf(w, "      %d: %s\n", r.MatchLine, r.Line)
			} else {
				fmt.Fprintf(w, "      %s\n", r.Line)
			}
		}
		if len(r.Paths) > 1 {
			fmt.Fprintf(w, "      identical in %d files: %s\n", len(r.Paths), listPaths(r.Paths[1:]))
		}
		if len(r.Similar) > 0 {
			fmt.Fprintf(w, "      +%d similar: %s\n", len(r.Similar), listPaths(r.Similar))
		}
	}
	fmt.Fprintf(w, "%d results, %s, %d candidates, %.1f ms\n", len(resp.Results), resp.Debug.Strategy, resp.Debug.TotalCandidates, resp.Debug.LatencyMS)
	for _, n := range resp.Debug.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shownPaths is how many paths of a folded group the text output names;
// --json lists them all.
const shownPaths = 4

func listPaths(ps []string) string {
	var b strings.Builder
	for i, p := range ps {
		if i == shownPaths {
			fmt.Fprintf(&b, " … (%d more, all in --json)", len(ps)-shownPaths)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(termsafe.Line(p))
	}
	return b.String()
}
