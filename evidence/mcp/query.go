package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// DefaultTextBudget is how many bytes of chunk text a search returns in
// all when the caller sets no text_budget.
const DefaultTextBudget = 12000

// MaxK and MaxTextBudget bound a search's results and their text, so one
// call cannot make the server read and return the whole workspace (a regex
// matching every line once returned 30 MB and took the server to 271 MB).
// 100 results are more than an agent reads in one answer; 256 KiB of code
// is some 64k tokens, a third to a half of a model's context, which an
// agent asks for in pieces with read instead. The schema says so, and a
// call over either is refused before it runs (see checkBounds).
const (
	MaxK          = 100
	MaxTextBudget = 256 << 10
)

type searchIn struct {
	Query      string   `json:"query" jsonschema:"what to look for: words, an identifier, or a Go regular expression in regex mode"`
	K          int      `json:"k,omitempty" jsonschema:"number of results (default 12, at most 100)"`
	Mode       string   `json:"mode,omitempty" jsonschema:"hybrid (default: text, vectors and symbol names fused), text (BM25), vector, symbol (exact, prefix and fuzzy names) or regex"`
	Types      []string `json:"types,omitempty" jsonschema:"keep only these chunk kinds or source types, e.g. function, method, type, test, doc, file_change (recent commits per file), run_summary (kept answers)"`
	PathPrefix string   `json:"path_prefix,omitempty" jsonschema:"keep only paths starting with this, e.g. index/search/"`
	Near       string   `json:"near,omitempty" jsonschema:"a workspace path you are working on: results near it rank higher"`
	MinScore   *float64 `json:"min_score,omitempty" jsonschema:"drop results scoring below this, between 0 and 1 (default 0.1; 1 is a strong match)"`
	TextBudget *int     `json:"text_budget,omitempty" jsonschema:"bytes of chunk text to return over all results, best first (default 12000, at most 262144; 0 returns locations only)"`
	Route      []string `json:"route,omitempty" jsonschema:"Laravel, Django, Express, Next.js: keep results on the walk of these routes (name, URI or 'METHOD URI')"`
	Controller []string `json:"controller,omitempty" jsonschema:"Laravel, Django, Express, Next.js: keep results on the walk of these controllers (Name or Name@method)"`
	Table      []string `json:"table,omitempty" jsonschema:"Laravel, Django, Express, Next.js: keep results on the walk of these tables"`
}

// searchResult is a search.Result with the chunk's text.
type searchResult struct {
	search.Result
	// Text is the chunk's lines as they are on disk now, redacted, cut
	// to the text budget; Trimmed says it was cut.
	Text    string `json:"text,omitempty"`
	Trimmed bool   `json:"trimmed,omitempty"`
}

// searchOut is the CLI's `search --json` object with texts in its results.
type searchOut struct {
	search.Response
	Results []searchResult `json:"results"`
}

type readIn struct {
	Selector string `json:"selector" jsonschema:"what to read, relative to the workspace root: path, path::10,40 (lines 10-40), path::10 (line 10 to the end), path::100c,500c (bytes), path::@Name or path::@Type.Method (a definition), or @Name (found through the index)"`
}

type readOut struct {
	Selector  string `json:"selector"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol,omitempty"`
	Language  string `json:"language,omitempty"`
	Text      string `json:"text"`
}

type relatedIn struct {
	Target string `json:"target" jsonschema:"a file, a range or a symbol, relative to the workspace root: path, path::10,40, or path::@Name; in a Laravel, Django, Express or Next.js app also route:NAME, route:URI, route:METHOD URI, table:NAME, model:Name, controller:Name[@method]"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most entries per list (default 50)"`
}

type assembleIn struct {
	Format string `json:"format,omitempty" jsonschema:"mdctx (default: the flow's), aptix, responses or pack"`
	Budget int    `json:"budget,omitempty" jsonschema:"token budget to measure the prompt against (default: the flow's)"`
}

type assembleOut struct {
	Format     string `json:"format"`
	Tokens     int    `json:"tokens"`
	Encoding   string `json:"encoding"`
	Exact      bool   `json:"exact"`
	Budget     int    `json:"budget"`
	OverBudget bool   `json:"over_budget"`
	Bytes      int    `json:"bytes"`
	Flow       string `json:"flow"`
	Redactions int    `json:"redactions"`
	Text       string `json:"text"`
}

func (s *Server) addQueryTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	addTool(s, &sdk.Tool{Name: "search", Annotations: ro, InputSchema: searchSchema(),
		Description: "Search the workspace's index and return ranked code chunks: path, lines, symbol, kind, score and the chunk's text " +
			"with line numbers. Use it to find where something is implemented or used; then read a selector (path::start,end) for more. " +
			"At most 100 results (k) and 262144 bytes of chunk text in all (text_budget) per call."},
		s.search)
	addTool(s, &sdk.Tool{Name: "read", Annotations: ro,
		Description: "Read a selector's text with line numbers: a whole file, a line or byte range, or a definition by name " +
			"(path::@Name, @Name). Paths are relative to the workspace root; nothing outside it is readable."},
		s.read)
	addTool(s, &sdk.Tool{Name: "related", Annotations: ro,
		Description: "List what a file, range or symbol is connected to: its imports (resolved to workspace files), the files " +
			"importing it, its tests, the definitions it calls (callees) and the code calling it (callers). In a Laravel, Django, Express or Next.js app, " +
			"route:, table:, model: and controller: targets walk routes, controller methods, models, tables and migrations."},
		s.related)
	addTool(s, &sdk.Tool{Name: "assemble", Annotations: &sdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: ptr(false)},
		Description: "Assemble the current flow's active evidence into one prompt and return it with its exact token count " +
			"(refreshes the flow's build/prompt.mdctx and ctxplan.json as `dossier assemble` does)."},
		s.assemble)
}

// checkBounds refuses a search over MaxK or MaxTextBudget with a tool
// error that says what to do. The SDK would refuse it too, checking the
// schema, but in its own words ("maximum: 1000/1 is greater than
// 100.000000"); this runs first.
func checkBounds(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		p, ok := req.GetParams().(*sdk.CallToolParamsRaw)
		if !ok || p.Name != "search" {
			return next(ctx, method, req)
		}
		var in struct {
			K          *float64 `json:"k"`
			TextBudget *float64 `json:"text_budget"`
		}
		_ = json.Unmarshal(p.Arguments, &in) // what is not numbers, the schema refuses
		msg := ""
		switch {
		case in.K != nil && *in.K > MaxK:
			msg = fmt.Sprintf("k %s is over the maximum of %d results per search: ask for fewer, or narrow the search (path_prefix, types)", num(*in.K), MaxK)
		case in.TextBudget != nil && *in.TextBudget > MaxTextBudget:
			msg = fmt.Sprintf("text_budget %s is over the maximum of %d bytes per search: ask for less, and read a selector (path::start,end) for more of a result", num(*in.TextBudget), MaxTextBudget)
		default:
			return next(ctx, method, req)
		}
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}, nil
	}
}

// num is a JSON number as the client wrote it, without an exponent.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// searchSchema is searchIn's schema with the choices spelled out.
func searchSchema() *jsonschema.Schema {
	sc, err := jsonschema.For[searchIn](nil)
	if err != nil {
		panic(err) // a static type: a bug, caught by every test
	}
	for _, m := range search.Modes {
		sc.Properties["mode"].Enum = append(sc.Properties["mode"].Enum, string(m))
	}
	sc.Properties["k"].Minimum, sc.Properties["k"].Maximum = ptr(1.0), ptr(float64(MaxK))
	sc.Properties["min_score"].Minimum, sc.Properties["min_score"].Maximum = ptr(0.0), ptr(1.0)
	sc.Properties["text_budget"].Minimum, sc.Properties["text_budget"].Maximum = ptr(0.0), ptr(float64(MaxTextBudget))
	sc.Properties["query"].MinLength = ptr(1)
	return sc
}

func (s *Server) search(ctx context.Context, in searchIn) (string, any, error) {
	mode := search.Mode(in.Mode)
	if in.Mode == "" {
		mode = search.Hybrid
	}
	if !slices.Contains(search.Modes, mode) {
		return "", nil, fmt.Errorf("mode %q: use one of hybrid, text, vector, symbol, regex", in.Mode)
	}
	q := search.Query{Text: in.Query, K: in.K, Mode: mode, Types: in.Types, PathPrefix: in.PathPrefix, Near: in.Near,
		MinScore: search.DefaultMinScore, Embedder: s.opts.Embedder}
	if q.K == 0 {
		q.K = search.DefaultK
	}
	if in.MinScore != nil {
		q.MinScore = *in.MinScore
	}
	budget := DefaultTextBudget
	if in.TextBudget != nil {
		budget = *in.TextBudget
	}
	if err := s.ready(); err != nil {
		return "", nil, err
	}
	scope, err := appgraph.ScopeRoot(ctx, s.opts.Root, in.Route, in.Controller, in.Table)
	if err != nil {
		return "", nil, err
	}
	k := q.K
	if scope != nil {
		q.K = appgraph.Widen(q.K)
	}
	resp, err := s.opts.Search.SearchRoot(ctx, s.opts.Root, q)
	if err != nil {
		return "", nil, err
	}
	if scope != nil {
		resp.Results = search.KeepScope(resp.Results, scope, k)
	}
	out := searchOut{Response: resp, Results: make([]searchResult, len(resp.Results))}
	var b strings.Builder
	for i, r := range resp.Results {
		out.Results[i].Result = r
		fmt.Fprintf(&b, "%d. %s:%d-%d  %s  %s  score %.3f\n", i+1, r.Path, r.StartLine, r.EndLine, r.Kind, dash(r.Symbol), r.Score)
		if budget <= 0 {
			out.Results[i].Trimmed = in.TextBudget == nil || *in.TextBudget > 0
			if r.Line != "" {
				fmt.Fprintf(&b, "   %d: %s\n", r.MatchLine, r.Line)
			}
			continue
		}
		text, trimmed, err := s.chunkText(r, budget)
		if err != nil {
			fmt.Fprintf(&b, "   (text not shown: %v)\n", err)
			continue
		}
		budget -= len(text)
		out.Results[i].Text, out.Results[i].Trimmed = text, trimmed
		b.WriteString(numbered(text, r.StartLine))
		if trimmed {
			fmt.Fprintf(&b, "   … trimmed to the text budget: read %s::%d,%d for all of it\n", r.Path, r.StartLine, r.EndLine)
		}
	}
	if len(resp.Results) == 0 {
		fmt.Fprintf(&b, "no results for %q scoring at least %.2f (%s)\n", resp.Query, resp.MinScore, resp.Debug.Strategy)
		for _, r := range resp.Debug.NearMisses {
			fmt.Fprintf(&b, "near miss: %.3f  %s:%d-%d  %s\n", r.Score, r.Path, r.StartLine, r.EndLine, dash(r.Symbol))
		}
	}
	for _, n := range resp.Debug.Notes {
		fmt.Fprintln(&b, "note:", n)
	}
	return b.String(), out, nil
}

// chunkText reads a result's lines from the disk (the index keeps no
// copy), through the evidence reader with its refusals, cut to budget
// bytes at a line end.
func (s *Server) chunkText(r search.Result, budget int) (string, bool, error) {
	sel := evidence.Selector{Target: related.Target{Path: r.Path, Start: r.StartLine, End: r.EndLine}}
	if _, err := s.confine(r.Path); err != nil {
		return "", false, err
	}
	x, err := evidence.ExtractSpan(s.opts.Root, sel, nil)
	if err != nil {
		return "", false, err
	}
	// Redacted whole, before the cut: the cut may fall inside a secret.
	text := s.opts.Engine.RedactSpan(x.Source.Path, x.Source.StartLine, x.Content)
	if len(text) <= budget {
		return text, false, nil
	}
	cut := text[:budget]
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	} else {
		cut = ""
	}
	return cut, true, nil
}

func (s *Server) read(_ context.Context, in readIn) (string, any, error) {
	sel, err := s.confineSelector(strings.TrimSpace(in.Selector))
	if err != nil {
		return "", nil, err
	}
	var db *store.DB
	if sel.Symbol != "" {
		if err := s.ready(); err != nil {
			return "", nil, err
		}
		db, err = store.Open(store.Path(s.opts.Root), store.Options{ReadOnly: true})
		if err != nil {
			return "", nil, fmt.Errorf("%s needs the index to find @%s: %w", sel, sel.Symbol, err)
		}
		defer db.Close()
		if sel.Path == "" {
			if sel.Path, err = evidence.ResolveSymbol(db, sel.Symbol); err != nil {
				return "", nil, err
			}
		}
	}
	x, err := evidence.ExtractSpan(s.opts.Root, sel, db)
	if err != nil {
		return "", nil, err
	}
	src := x.Source
	text := s.opts.Engine.RedactSpan(src.Path, src.StartLine, x.Content)
	out := readOut{Selector: sel.String(), Path: src.Path, StartLine: src.StartLine, EndLine: src.EndLine,
		Symbol: src.Symbol, Language: src.Language, Text: text}
	head := fmt.Sprintf("%s:%d-%d", src.Path, src.StartLine, src.EndLine)
	if src.Symbol != "" {
		head += "  @" + src.Symbol
	}
	return head + "\n" + numbered(text, max(src.StartLine, 1)), out, nil
}

func (s *Server) related(ctx context.Context, in relatedIn) (string, any, error) {
	if target := strings.TrimSpace(in.Target); appgraph.IsTarget(target) {
		if err := s.ready(); err != nil {
			return "", nil, err
		}
		nodes, err := appgraph.WalkRoot(ctx, s.opts.Root, target)
		if err != nil {
			return "", nil, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%d nodes)\n", target, len(nodes))
		for _, n := range nodes {
			fmt.Fprintf(&b, "%s %s %s:%d-%d %s %s\n", n.Type, n.Name, n.Path, n.StartLine, n.EndLine, n.Via, n.Detail)
		}
		return b.String(), map[string]any{"target": target, "nodes": nodes}, nil
	}
	t, err := related.ParseTarget(strings.TrimSpace(in.Target))
	if err != nil {
		return "", nil, fmt.Errorf("target %q: %v", in.Target, err)
	}
	if t.Path, err = s.confine(t.Path); err != nil {
		return "", nil, err
	}
	if in.Limit < 0 {
		return "", nil, fmt.Errorf("limit %d: give a positive number of entries per list", in.Limit)
	}
	if err := s.ready(); err != nil {
		return "", nil, err
	}
	x, err := related.ExpandRoot(ctx, s.opts.Root, t, related.Options{Limit: in.Limit})
	if err != nil {
		return "", nil, err
	}
	return relatedText(t, x), x, nil
}

// relatedText is the expansion for the model, one line per entry.
func relatedText(t related.Target, x *related.Expansion) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, lines %d-%d)\n", t, x.Target.Language, x.Target.StartLine, x.Target.EndLine)
	list := func(title, key string, n int, line func(i int) string) {
		fmt.Fprintf(&b, "\n%s (%d", title, n)
		if more := x.Omitted[key]; more > 0 {
			fmt.Fprintf(&b, " of %d", n+more)
		}
		b.WriteString(")\n")
		for i := range n {
			b.WriteString("  " + line(i) + "\n")
		}
	}
	list("Imports", "imports", len(x.Imports), func(i int) string {
		imp := x.Imports[i]
		to := "external"
		switch {
		case imp.Dir != "":
			to = imp.Dir + "/"
		case len(imp.Paths) > 0:
			to = strings.Join(imp.Paths, ", ")
		}
		return fmt.Sprintf("line %d  %s -> %s", imp.Line, imp.Spec, to)
	})
	list("Importers", "importers", len(x.Importers), func(i int) string {
		return fmt.Sprintf("%s:%d", x.Importers[i].Path, x.Importers[i].Line)
	})
	list("Tests", "tests", len(x.Tests), func(i int) string { return x.Tests[i].Path + "  (" + x.Tests[i].Role + ")" })
	list("Callees", "callees", len(x.Callees), func(i int) string {
		r := x.Callees[i]
		return fmt.Sprintf("%s:%d  %s (%s)  called at line %d%s", r.Path, r.Line, r.Symbol, r.Kind, r.CallLine, guess(r))
	})
	if len(x.Constructs) > 0 {
		list("Constructs (literals and conversions, not calls)", "constructs", len(x.Constructs), func(i int) string {
			r := x.Constructs[i]
			return fmt.Sprintf("%s:%d  %s (%s)  at line %d", r.Path, r.Line, r.Symbol, r.Kind, r.CallLine)
		})
	}
	list("Callers", "callers", len(x.Callers), func(i int) string {
		r := x.Callers[i]
		return fmt.Sprintf("%s:%d  %s (%s) calls %s%s: %s", r.Path, r.Line, dash(r.Symbol), r.Kind, r.Name, guess(r), strings.TrimSpace(r.Text))
	})
	for _, n := range x.Notes {
		fmt.Fprintln(&b, "\nnote:", n)
	}
	return b.String()
}

func guess(r related.Ref) string {
	if r.Guess {
		return " (guess: by name)"
	}
	return ""
}

func (s *Server) assemble(_ context.Context, in assembleIn) (string, any, error) {
	e := s.opts.Engine
	e.Reload()
	format, err := s.format(in.Format)
	if err != nil {
		return "", nil, err
	}
	if _, err := e.Build(); err != nil {
		return "", nil, s.noFlow(err)
	}
	res, _, err := e.Assemble(format)
	if err != nil {
		return "", nil, err
	}
	f, _ := e.Flow()
	budget := e.Budget()
	if in.Budget > 0 {
		budget = in.Budget
	}
	out := assembleOut{Format: string(res.Format), Tokens: res.Tokens, Encoding: res.Encoding, Exact: res.Exact,
		Budget: budget, OverBudget: res.Tokens > budget, Bytes: len(res.Text), Flow: f.Meta.ID, Redactions: len(res.Redactions), Text: res.Text}
	return res.Text, out, nil
}

// format reads a format name; empty is the flow's.
func (s *Server) format(name string) (assemble.Format, error) {
	if name == "" {
		if _, err := s.opts.Engine.Flow(); err != nil {
			return "", s.noFlow(err)
		}
		return s.opts.Engine.Format(), nil
	}
	return assemble.ParseFormat(name)
}

// noFlow says how to start a flow when there is none.
func (s *Server) noFlow(err error) error {
	if errors.Is(err, evidence.ErrNoFlow) {
		// The engine's message names the CLI; an agent has a tool for it.
		return errors.New("no flow yet: start one with the flow_new tool (or `dossier flow new NAME` in a shell), then add evidence with evidence_add")
	}
	return err
}

// numbered prefixes each line of text with its number.
func numbered(text string, first int) string {
	if text == "" {
		return ""
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	width := len(fmt.Sprint(first + len(lines) - 1))
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%*d  %s", width, first+i, l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
