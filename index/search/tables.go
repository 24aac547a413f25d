package search

import (
	"context"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/store"
)

// TypeTable is the `table` type: one result per table of the application
// graph (seed 002's table source), located at the migration that created
// it and ranked on what every migration did to it, its models and the
// models related to them. Tables are no chunks (a table's migrations are
// spread over files), so they are answered from the graph.
const TypeTable = "table"

// searchTables answers q, whose types name `table`: the tables alone, or
// fused with the other types' results by reciprocal rank.
func (e *Engine) searchTables(ctx context.Context, root string, q Query) (Response, error) {
	q, err := prepare(q)
	if err != nil {
		return Response{Query: q.Text, Results: []Result{}}, err
	}
	var tables []Result
	err = e.read(ctx, root, func(tx *store.Tx) error {
		g, err := appgraph.Load(tx)
		if err != nil {
			return err
		}
		if g.Empty() && len(q.Types) == 1 {
			return badQuery("--type table: the index holds no application dossier can read (%s); then `dossier index`",
				strings.Join(appgraph.Detected, ", "))
		}
		tables, err = tableResults(g.Tables(), q)
		return err
	})
	if err != nil {
		return Response{Query: q.Text, Results: []Result{}}, err
	}
	rest := slices.DeleteFunc(slices.Clone(q.Types), func(t string) bool { return t == TypeTable })
	if len(rest) == 0 {
		resp := Response{Query: q.Text, Results: tables[:min(len(tables), q.K)], MinScore: q.MinScore}
		return resp, nil
	}
	q.Types = rest
	resp, err := e.SearchRoot(ctx, root, q)
	if err != nil {
		return resp, err
	}
	resp.Results = fuseRanks(tables, resp.Results, q.K)
	return resp, nil
}

// tableResults ranks the tables on q: BM25 over each table's document
// (its name, thrice, then the columns, migrations and models of its walk),
// each at the migration that created it (or its model when no migration
// touches it),
// or, in regex mode, the tables whose document matches, by name. Scores
// are relative to the best (1); q's path prefix and min score apply.
func tableResults(tables []appgraph.Table, q Query) ([]Result, error) {
	docs := make([]string, len(tables))
	for i, t := range tables {
		var b strings.Builder
		b.WriteString(strings.Repeat(t.Name+" ", 3))
		for _, n := range t.Nodes {
			b.WriteString(n.Type + " " + n.Name + " " + n.Detail + "\n")
		}
		docs[i] = b.String()
	}
	var scores []float64
	if q.Mode == Regex {
		expr := q.Text
		if !hasUpper(expr) {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile("(?m)" + expr)
		if err != nil {
			return nil, badQuery("bad regular expression %q: %v", q.Text, err)
		}
		scores = make([]float64, len(docs))
		for i, d := range docs {
			if re.MatchString(d) {
				scores[i] = 1
			}
		}
	} else {
		scores = bm25Docs(docs, q.Text)
	}
	best := 0.0
	for _, s := range scores {
		best = math.Max(best, s)
	}
	var out []Result
	for i, t := range tables {
		n := t.Nodes[0]
		for _, m := range t.Nodes { // a table no migration touches is at its model
			if n.Path == "" {
				n.Path, n.StartLine, n.EndLine = m.Path, m.StartLine, m.EndLine
			}
		}
		if scores[i] <= 0 || n.Path == "" || q.PathPrefix != "" && !strings.HasPrefix(n.Path, q.PathPrefix) {
			continue
		}
		s := scores[i] / best
		if s < q.MinScore {
			continue
		}
		out = append(out, Result{ID: "table:" + t.Name, Path: n.Path, StartLine: n.StartLine, EndLine: n.EndLine,
			Symbol: t.Name, Kind: TypeTable, Score: s, Sources: []string{"graph"}, Line: n.Detail})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}

// bm25Docs scores each doc on the query's terms (k1 1.2, b 0.75).
func bm25Docs(docs []string, query string) []float64 {
	tok := terms.New()
	qt := tok.Terms(query)
	tfs := make([]map[string]int, len(docs))
	lens := make([]float64, len(docs))
	df := map[string]int{}
	total := 0.0
	for i, d := range docs {
		tfs[i] = tok.Terms(d)
		for t, c := range tfs[i] {
			lens[i] += float64(c)
			if qt[t] > 0 {
				df[t]++
			}
		}
		total += lens[i]
	}
	avg := max(total/float64(max(1, len(docs))), 1)
	n := float64(len(docs))
	scores := make([]float64, len(docs))
	for i := range docs {
		for t := range qt {
			tf := float64(tfs[i][t])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			scores[i] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*lens[i]/avg))
		}
	}
	return scores
}

// fuseRanks merges two ranked lists by reciprocal rank (k 60), keeping k.
func fuseRanks(a, b []Result, k int) []Result {
	type ranked struct {
		r   Result
		rrf float64
	}
	var all []ranked
	for _, l := range [][]Result{a, b} {
		for i, r := range l {
			all = append(all, ranked{r, 1 / float64(60+i+1)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rrf > all[j].rrf })
	out := make([]Result, 0, min(k, len(all)))
	for _, x := range all[:min(k, len(all))] {
		out = append(out, x.r)
	}
	return out
}
