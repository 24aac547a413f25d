package search

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// Mode is a retrieval strategy.
type Mode string

const (
	Hybrid Mode = "hybrid"
	Text   Mode = "text"
	Vector Mode = "vector"
	Symbol Mode = "symbol"
	Regex  Mode = "regex"
)

// Modes lists the modes in the order help shows them.
var Modes = []Mode{Hybrid, Text, Vector, Symbol, Regex}

// Defaults from seed 002's retrieval contract. DefaultMinScore is
// calibrated on cmd/dossier-retrieval's sets (hybrid mode; 1500 Go, 996
// Python and 1500 JavaScript queries, and 300 strings of random letters,
// random.Random(35), on each index): at 0.25, 48, 32 and 48 queries showed
// no result and 27, 16 and 36 answers in the top ten were hidden, while no
// random string scores above 0 (the text and vector calibrations give
// words the index does not hold nothing, see relevance.go); at 0.1, 0, 1
// and 1 queries show nothing, 0, 1 and 0 answers are hidden, and still no
// random string has a result.
const (
	DefaultK        = 12
	DefaultMinScore = 0.1
)

// Query is one search request.
type Query struct {
	Text       string
	K          int      // DefaultK when zero
	Mode       Mode     // Hybrid when empty
	Types      []string // kinds or source types to keep (any of)
	PathPrefix string
	Near       string // a path the user is working on: nearby results rank higher
	// MinScore drops results scoring below it; scores are absolute (see
	// relevance.go), so a query nothing answers well gets none. 0 keeps
	// all; front-ends pass DefaultMinScore unless told otherwise.
	MinScore float64
	// Embedder is the provider the user asked to embed the query with;
	// empty follows the index. A different one than the index's is refused.
	Embedder string
}

// MaxQueryLen bounds a query: longer text is a pasted file, not a search.
const MaxQueryLen = 2000

// Result is one ranked chunk.
type Result struct {
	// Repo names the repository of a shared store the result is from,
	// for a search of other repositories (search --repo, --all-repos);
	// empty for the workspace's own.
	Repo      string   `json:"repo,omitempty"`
	ID        string   `json:"id"`
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Symbol    string   `json:"symbol"`
	Kind      string   `json:"kind"`
	Language  string   `json:"language"`
	Score     float64  `json:"score"`
	Sources   []string `json:"sources"`
	// Line is the chunk's best-matching line (see bestLines): the line
	// that holds the most of the query's words, the pattern's match in
	// regex mode. MatchLine is its number in the file (1-based).
	Line      string `json:"line,omitempty"`
	MatchLine int    `json:"match_line,omitempty"`
	// Paths lists every file holding this chunk's content, its own
	// first, when others hold it too; Similar lists the files of the
	// near-duplicates folded into it (see similar.go).
	Paths   []string `json:"paths,omitempty"`
	Similar []string `json:"similar,omitempty"`
	// Ranks gives the rank (1-based) in each retriever's list.
	Ranks map[string]int `json:"ranks,omitempty"`
}

// Response is the answer to one query.
type Response struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	// MinScore is the threshold the results passed (Query.MinScore).
	MinScore float64 `json:"min_score"`
	Debug    Debug   `json:"debug"`
}

// Debug explains how a response was made.
type Debug struct {
	Strategy        string   `json:"strategy"`
	LatencyMS       float64  `json:"latency_ms"`
	TotalCandidates int      `json:"total_candidates"`
	Dirty           int      `json:"dirty_files"`
	Notes           []string `json:"notes,omitempty"`
	// Warnings are the notes that say the answer is partial: a retriever
	// the mode asks for was left out (an embeddings endpoint that did not
	// answer, or one the settings do not name), and the results come from
	// the others; or the vectors answered the query with a secret of it
	// redacted. Front-ends show them where the user looks (the CLI on
	// standard error); they are in Notes too.
	Warnings []string `json:"warnings,omitempty"`
	// NearMisses are the best results below the threshold, when none
	// passed it: how close the query came.
	NearMisses []Result `json:"near_misses,omitempty"`
}

// Engine answers queries against one index. It keeps what it derived from
// the snapshot between queries and notices when the snapshot changes.
type Engine struct {
	tok  *terms.Tokenizer
	emb  *embed.Builtin
	snap snapshotState
	vecs vectorCache
	// oneShot: the Engine answers one query, so it reads what the query
	// scans in place instead of keeping copies for the next (see OneShot).
	oneShot bool
	// remote embeds queries for an index of a remote model.
	remote      embed.Embedder
	remoteModel store.VectorModel
	// allowed are the remote endpoints the user's settings name, with
	// their limits (see AllowEndpoint).
	allowed []config.Embed
	results *expirable.LRU[string, Response]
	// hold keeps the index open between queries (see Hold): held is the
	// index of heldRoot, open read-only.
	hold      bool
	held      *store.DB
	heldRoot  string
	heldReads int // reads held served so far (see holdReads)
	names     nameCache
}

// BadQueryError is a query that cannot be answered as given: empty, too
// long, an unknown mode, a pattern that does not compile. The query, not
// the index, is at fault.
type BadQueryError struct{ msg string }

func (e *BadQueryError) Error() string { return e.msg }

func badQuery(format string, args ...any) error {
	return &BadQueryError{fmt.Sprintf(format, args...)}
}

// NewEngine returns an Engine; it is not safe for concurrent use.
func NewEngine() *Engine { return &Engine{tok: terms.New(), emb: embed.NewBuiltin()} }

// OneShot tells e it answers a single query and is then dropped (a CLI
// process): it scans vector entries where they lie in the index file
// instead of copying them for later queries, and keeps no cache of
// responses. Results are the same.
//
// It also lets the process's heap grow to oneShotGC percent of the live
// heap before a collection, unless GOGC already allows more: a one-shot
// hybrid query allocates 3-5 MB, just past the runtime's first goal of 4
// MB, so a collection ran for every query (7-9 ms of CPU on 2 cores, a
// 1-2 ms pause) and freed garbage the exit frees anyway. A query that
// keeps allocating (a regex over every file) is still collected.
func (e *Engine) OneShot() {
	e.oneShot = true
	if prev := debug.SetGCPercent(oneShotGC); prev < 0 || prev > oneShotGC {
		debug.SetGCPercent(prev)
	}
}

// oneShotGC is the GOGC a one-shot Engine's process runs with at least.
const oneShotGC = 400

// key identifies a chunk by file and position, which every retriever knows.
type key struct {
	path string
	ord  int
}

// hit is one retriever's candidate: raw is the retriever's own score
// (BM25, cosine, symbol match), score the absolute one (see relevance.go).
type hit struct {
	key        key
	score, raw float64
	line       string  // regex: the matching line
	lineNo     int     // and its number
	cover      float64 // text: the query IDF mass the chunk holds
}

// filter decides which chunks a query may return.
type filter struct {
	types  map[string]bool
	prefix string
}

func newFilter(q Query) filter {
	f := filter{prefix: strings.TrimPrefix(q.PathPrefix, "./")}
	if len(q.Types) > 0 {
		f.types = map[string]bool{}
		for _, t := range q.Types {
			f.types[strings.ToLower(strings.TrimSpace(t))] = true
		}
	}
	return f
}

// path reports whether p starts with the prefix (a plain string prefix of
// the relative path, so "net/http" also keeps "net/httptest").
func (f filter) path(p string) bool { return strings.HasPrefix(p, f.prefix) }

// kind reports whether a chunk of this kind and source type may be
// returned. Without types, the chunks of history and runs (file_change,
// run_summary) are left out: they answer the searches that name them, so
// a search for code finds code, not the commits that touched it.
func (f filter) kind(kind, src string) bool {
	if f.types == nil {
		return src != lang.SrcFileChange && src != lang.SrcRunSummary
	}
	return f.types[kind] || f.types[src]
}

// prepare fills in q's defaults and checks what needs no index.
func prepare(q Query) (Query, error) {
	if q.K <= 0 {
		q.K = DefaultK
	}
	if q.Mode == "" {
		q.Mode = Hybrid
	}
	if strings.TrimSpace(q.Text) == "" {
		return q, badQuery("empty query: give the words, symbol or pattern to look for")
	}
	if len(q.Text) > MaxQueryLen {
		return q, badQuery("the query is %d bytes long, the limit is %d: search for its most specific words", len(q.Text), MaxQueryLen)
	}
	if !slices.Contains(Modes, q.Mode) {
		return q, badQuery("unknown mode %q: use one of %s", q.Mode, joinModes())
	}
	return q, nil
}

// search answers q (prepared) from the index in tx. It never reaches the
// network: an index of a remote model takes the query's vector from qe,
// embedded before the transaction began (see SearchRoot).
func (e *Engine) search(tx *store.Tx, q Query, qe *queryEmbedding) (Response, error) {
	resp := Response{Query: q.Text, Results: []Result{}, MinScore: q.MinScore}
	gen := tx.Generation()
	if r, ok := e.cached(gen, q); ok {
		return r, nil
	}
	if q.Mode != Text || !tx.PostingsCached(e.terms(q.Text)) {
		tx.Warm() // a shared store's connection, made while open reads the cached tables
	}
	v, err := e.open(tx)
	if err != nil {
		return resp, err
	}
	resp.Debug.Dirty = v.dirtyCount()
	f := newFilter(q)
	if err := v.checkTypes(f); err != nil {
		return resp, err
	}
	lists := map[string][]hit{}
	var order []string
	add := func(name string, hs []hit, err error) error {
		if err != nil {
			return err
		}
		lists[name] = hs
		order = append(order, name)
		return nil
	}
	var (
		hs  []hit
		cos map[key]hit
		// transient: the vectors were left out for a reason that may pass
		// (the endpoint failed), so the answer is not kept in the cache.
		transient bool
	)
	switch q.Mode {
	case Text:
		hs, err = v.text(q.Text, f, candidates)
		err = add("text", hs, err)
	case Vector:
		qv, m, ok, qerr := v.queryVector(q.Text, q.Embedder, qe)
		if err = qerr; ok {
			hs, _, err = v.vector(qv, m, f, candidates, nil)
		}
		err = add("vector", hs, err)
	case Symbol:
		hs, err = v.symbols(q.Text, f, true, true)
		err = add("symbol", hs, err)
	case Regex:
		hs, err = v.regex(q.Text, f, q.K)
		err = add("regex", hs, err)
	case Hybrid:
		hs, err = v.text(q.Text, f, candidates)
		if err = add("text", hs, err); err != nil {
			break
		}
		hs, err = v.symbols(q.Text, f, false, len(lists["text"]) == 0)
		if err = add("symbol", hs, err); err != nil {
			break
		}
		hs = nil
		qv, m, ok, qerr := v.queryVector(q.Text, q.Embedder, qe)
		// Text and symbols still answer when the endpoint does not; the
		// warning says why vectors do not.
		var ee *EndpointError
		if transient = errors.As(qerr, &ee); transient {
			resp.Debug.Warnings = append(resp.Debug.Warnings, "vectors left out: "+ee.Err.Error())
			qerr = nil
		} else if errors.Is(qerr, ErrEndpointNotAllowed) {
			resp.Debug.Warnings = append(resp.Debug.Warnings, "vectors left out: "+qerr.Error())
			qerr = nil
		}
		if err = qerr; ok {
			hs, cos, err = v.vector(qv, m, f, candidates, append(lists["text"], lists["symbol"]...))
		}
		err = add("vector", hs, err)
	}
	if err != nil {
		return resp, err
	}
	var active []string
	for _, name := range order {
		if len(lists[name]) > 0 {
			active = append(active, name)
		}
	}
	resp.Debug.Strategy = string(q.Mode)
	if len(active) > 0 {
		resp.Debug.Strategy += "(" + strings.Join(active, "+") + ")"
	}
	if !v.hasSnap && !v.otherLayout {
		resp.Debug.Notes = append(resp.Debug.Notes, "no search snapshot yet: every file read from its own record (run `dossier index`)")
	}
	resp.Debug.Notes = append(resp.Debug.Notes, v.notes...)
	if n := qe.redactedNote(); n != "" {
		// A warning, so that every front-end shows it where the user
		// looks (the workbench's overlay, the CLI's standard error): the
		// vectors answered another query than the one typed.
		resp.Debug.Warnings = append(resp.Debug.Warnings, n)
	}
	resp.Debug.Notes = append(resp.Debug.Notes, resp.Debug.Warnings...)
	fused, total := fuse(lists, order, cos)
	resp.Debug.TotalCandidates = total
	if resp.Results, resp.Debug.NearMisses, err = v.finish(fused, q, f); err != nil {
		return resp, err
	}
	if !transient && !e.oneShot {
		e.remember(gen, q, resp)
	}
	return resp, nil
}

func joinModes() string {
	s := make([]string, len(Modes))
	for i, m := range Modes {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// candidates is how many results each retriever hands to fusion.
const candidates = 200
