package search

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/dossierhq/dossier/index/embed"
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

// Defaults from seed 002's retrieval contract.
const (
	DefaultK        = 12
	DefaultMinScore = 0.25
)

// Query is one search request.
type Query struct {
	Text       string
	K          int      // DefaultK when zero
	Mode       Mode     // Hybrid when empty
	Types      []string // kinds or source types to keep (any of)
	PathPrefix string
	Near       string  // a path the user is working on: nearby results rank higher
	MinScore   float64 // results below are dropped; 0 keeps all
	// Embedder is the provider the user asked to embed the query with;
	// empty follows the index. A different one than the index's is refused.
	Embedder string
}

// MaxQueryLen bounds a query: longer text is a pasted file, not a search.
const MaxQueryLen = 2000

// Result is one ranked chunk.
type Result struct {
	ID        string   `json:"id"`
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Symbol    string   `json:"symbol"`
	Kind      string   `json:"kind"`
	Language  string   `json:"language"`
	Score     float64  `json:"score"`
	Sources   []string `json:"sources"`
	// Line is the chunk's first non-blank line, or the matching line in
	// regex mode.
	Line string `json:"line,omitempty"`
	// Ranks gives the rank (1-based) in each retriever's list.
	Ranks map[string]int `json:"ranks,omitempty"`
}

// Response is the answer to one query.
type Response struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	Debug   Debug    `json:"debug"`
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
	// the others. Front-ends show them where the user looks (the CLI on
	// standard error); they are in Notes too.
	Warnings []string `json:"warnings,omitempty"`
}

// Engine answers queries against one index. It keeps what it derived from
// the snapshot between queries and notices when the snapshot changes.
type Engine struct {
	tok     *terms.Tokenizer
	emb     *embed.Builtin
	snap    snapshotState
	scores  []float64 // BM25 accumulators, one per snapshot document
	touched []uint32  // documents with a score this query
	vecs    vectorCache
	syms    symbolCache
	// remote embeds queries for an index of a remote model.
	remote      embed.Embedder
	remoteModel store.VectorModel
	// allowed are the remote endpoints the user's settings name, with
	// their limits (see AllowEndpoint).
	allowed []config.Embed
	results *expirable.LRU[string, Response]
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

// key identifies a chunk by file and position, which every retriever knows.
type key struct {
	path string
	ord  int
}

type hit struct {
	key   key
	score float64
	line  string
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

func (f filter) kind(kind, src string) bool {
	return f.types == nil || f.types[kind] || f.types[src]
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
	resp := Response{Query: q.Text, Results: []Result{}}
	gen := tx.Generation()
	if r, ok := e.cached(gen, q); ok {
		return r, nil
	}
	v, err := e.open(tx)
	if err != nil {
		return resp, err
	}
	resp.Debug.Dirty = v.dirtyCount()
	f := newFilter(q)
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
		cos map[key]float64
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
		hs, err = v.symbols(q.Text, f, true)
		err = add("symbol", hs, err)
	case Regex:
		hs, err = v.regex(q.Text, f, q.K)
		err = add("regex", hs, err)
	case Hybrid:
		hs, err = v.text(q.Text, f, candidates)
		if err = add("text", hs, err); err != nil {
			break
		}
		hs, err = v.symbols(q.Text, f, false)
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
	if !v.hasSnap {
		resp.Debug.Notes = append(resp.Debug.Notes, "no search snapshot yet: every file read from its own record (run `dossier index`)")
	}
	resp.Debug.Notes = append(resp.Debug.Notes, v.notes...)
	resp.Debug.Notes = append(resp.Debug.Notes, resp.Debug.Warnings...)
	fused, total := fuse(lists, order, cos)
	resp.Debug.TotalCandidates = total
	if resp.Results, err = v.finish(fused, q, f); err != nil {
		return resp, err
	}
	if !transient {
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

// fused is a candidate with its fused score and where it came from.
type fused struct {
	key   key
	score float64
	line  string
	ranks map[string]int
}

// Hybrid fusion weights. Each retriever's scores are scaled so its best
// candidate has 1; a candidate's fused score is its scaled text score plus
// these shares of its scaled cosine and symbol scores. Scores, not ranks:
// BM25 and cosine both say how well a chunk matches, and rank fusion throws
// that away (measured with cmd/dossier-retrieval: reciprocal-rank fusion
// gained a third of what this does).
const (
	vectorWeight = 0.5
	symbolWeight = 0.1
)

// fuse merges ranked lists by weighted score (see vectorWeight); one list
// keeps its own scores, scaled so the best is 1. cos holds the cosine of
// candidates outside the vector list. The result is sorted, best first.
func fuse(lists map[string][]hit, order []string, cos map[key]float64) ([]fused, int) {
	weight := map[string]float64{"vector": vectorWeight, "symbol": symbolWeight}
	byKey := map[key]*fused{}
	var out []*fused
	for _, name := range order {
		hs := lists[name]
		if len(hs) == 0 || hs[0].score <= 0 {
			continue
		}
		w, top := 1.0, hs[0].score
		if len(order) > 1 && weight[name] > 0 {
			w = weight[name]
		}
		for i, h := range hs {
			f := byKey[h.key]
			if f == nil {
				f = &fused{key: h.key, line: h.line, ranks: map[string]int{}}
				byKey[h.key] = f
				out = append(out, f)
			}
			f.ranks[name] = i + 1
			f.score += w * h.score / top
		}
		if name == "vector" {
			for _, f := range out {
				if c, ok := cos[f.key]; ok && f.ranks[name] == 0 {
					f.score += w * c / top
				}
			}
		}
	}
	res := make([]fused, len(out))
	best := 0.0
	for i, f := range out {
		res[i] = *f
		best = max(best, f.score)
	}
	for i := range res {
		if best > 0 {
			res[i].score /= best
		}
	}
	slices.SortStableFunc(res, func(a, b fused) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.key.path, b.key.path)*2 + cmpInt(a.key.ord, b.key.ord)
	})
	return res, len(res)
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

// Priors of the reranker: tests rank lower unless the query asks for
// them (seed 004), and so do import blocks, which match the words of
// everything a file uses and are almost never what a query looks for.
const (
	testPrior    = 0.85
	importsPrior = 0.7
)

// rerankDepth is how many fused candidates the heuristics look at.
const rerankDepth = 60

// finish resolves candidates to chunks, applies the reranking heuristics
// of seed 004 (proximity, recency, tests last unless asked, no overlapping
// spans from one file) and the type filter, and cuts to K.
func (v *view) finish(cands []fused, q Query, f filter) ([]Result, error) {
	wantTests := false
	for _, w := range strings.Fields(strings.ToLower(q.Text)) {
		if strings.HasPrefix(w, "test") || w == "spec" {
			wantTests = true
		}
	}
	now := time.Now()
	var rs []Result
	for _, c := range cands {
		if len(rs) >= rerankDepth && q.Mode != Regex {
			break
		}
		m, mtime, ok, err := v.meta(c.key)
		if err != nil {
			return nil, err
		}
		if !ok || !f.kind(m.Kind, m.SrcType) {
			continue
		}
		score := c.score
		if q.Mode != Regex {
			if !wantTests && m.IsTest() {
				score *= testPrior
			}
			if m.Kind == "imports" {
				score *= importsPrior
			}
			score *= proximity(q.Near, c.key.path)
			if mtime > 0 {
				// In whole days, so the same search ranks the same all day.
				age := math.Floor(now.Sub(time.Unix(0, mtime)).Hours() / 24)
				if age >= 0 && age < 30 {
					score *= 1 + 0.03*(1-age/30)
				}
			}
		}
		r := Result{ID: m.ID, Path: c.key.path, StartLine: m.StartLine, EndLine: m.EndLine, Symbol: m.Symbol,
			Kind: m.Kind, Language: m.Language, Score: score, Line: c.line, Ranks: c.ranks}
		for _, name := range []string{"text", "vector", "symbol", "regex"} {
			if c.ranks[name] > 0 {
				r.Sources = append(r.Sources, name)
			}
		}
		if r.Line == "" {
			r.Line = m.Line
		}
		rs = append(rs, r)
	}
	if q.Mode != Regex {
		slices.SortStableFunc(rs, func(a, b Result) int { return cmp.Compare(b.Score, a.Score) })
		rs = dedupe(rs)
		// Boosts may lift the best past 1: scale back into 0..1.
		if len(rs) > 0 && rs[0].Score > 1 {
			top := rs[0].Score
			for i := range rs {
				rs[i].Score /= top
			}
		}
	}
	out := []Result{}
	for _, r := range rs {
		if r.Score < q.MinScore {
			continue
		}
		out = append(out, r)
		if len(out) == q.K {
			break
		}
	}
	return out, nil
}

// dedupe drops a result whose lines overlap a better one from the same file.
func dedupe(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		overlaps := false
		for _, o := range out {
			if o.Path == r.Path && r.StartLine <= o.EndLine && o.StartLine <= r.EndLine {
				overlaps = true
				break
			}
		}
		if !overlaps {
			out = append(out, r)
		}
	}
	return out
}

// proximity boosts results near the path the user works on.
func proximity(near, p string) float64 {
	if near == "" {
		return 1
	}
	near = strings.TrimPrefix(path.Clean(near), "./")
	switch {
	case p == near:
		return 1.2
	case path.Dir(p) == path.Dir(near):
		return 1.12
	case strings.SplitN(p, "/", 2)[0] == strings.SplitN(near, "/", 2)[0]:
		return 1.04
	}
	return 1
}
