package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/index/search"
)

// TestSearchOverlayCancelsStaleSearches: a search waiting on a slow
// embeddings endpoint is cancelled by a newer query and by closing the
// overlay, and a warning of the answer (vectors left out) is shown.
func TestSearchOverlayCancelsStaleSearches(t *testing.T) {
	waiting := make(chan context.Context, 4)
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		if q.Text == "slow" {
			waiting <- ctx
			<-ctx.Done()
			return search.Response{}, ctx.Err()
		}
		return search.Response{Results: []search.Result{{Path: "parser/parse.go", StartLine: 3, EndLine: 6, Symbol: "Parse", Language: "go", Score: 0.9, Sources: []string{"text"}}},
			Debug: search.Debug{Warnings: []string{"vectors left out: embeddings endpoint http://127.0.0.1:9/v1/embeddings unreachable after 2 attempts"}}}, nil
	}
	m, _ := newTestModel(t, fake)
	m = keys(t, m, "/")
	// start issues the search for text and runs it in the background, as
	// the runtime would, until it reaches the fake endpoint.
	start := func(m Model, text string) (Model, context.Context, <-chan tea.Msg) {
		t.Helper()
		m.search.input.SetValue(text)
		m.search.seq++
		next, cmd := m.Update(searchTickMsg{m.search.seq})
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		select {
		case ctx := <-waiting:
			return next.(Model), ctx, done
		case <-time.After(30 * time.Second):
			t.Fatal("the search never started")
			return m, nil, nil
		}
	}
	ended := func(ctx context.Context, done <-chan tea.Msg, why string) {
		t.Helper()
		select {
		case msg := <-done:
			if r, ok := msg.(searchResultMsg); !ok || !errors.Is(r.err, context.Canceled) || ctx.Err() == nil {
				t.Errorf("%s: the waiting search ended with %#v", why, msg)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the waiting search was not cancelled", why)
		}
	}

	m, ctx, done := start(m, "slow")
	m = typeText(t, m, "x") // "slowx": a newer query
	ended(ctx, done, "newer query")
	if !strings.Contains(m.View(), "parser/parse.go:3-6") || !strings.Contains(m.View(), "vectors left out") {
		t.Errorf("the newer query's answer and its warning:\n%s", m.View())
	}

	m, ctx, done = start(m, "slow")
	m = keys(t, m, "esc")
	ended(ctx, done, "overlay closed")
}

// TestSearchOverlayMarksWhatIsInTheFlow: a result that a part already
// holds says which part; one outside every part does not.
func TestSearchOverlayMarksWhatIsInTheFlow(t *testing.T) {
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		return search.Response{Results: []search.Result{
			{Path: "parser/parse.go", StartLine: 3, EndLine: 6, Symbol: "Parse", Language: "go", Score: 0.9, Sources: []string{"text"}},
			{Path: "lexer/lex.go", StartLine: 1, EndLine: 9, Symbol: "Lex", Language: "go", Score: 0.5, Sources: []string{"text"}},
		}}, nil
	}
	m, _ := newTestModel(t, fake)
	m = keys(t, m, "/")
	m.search.input.SetValue("parse")
	m.search.seq++
	next, cmd := m.Update(searchTickMsg{m.search.seq})
	m = drive(t, next.(Model), cmd)
	view := m.View()
	var parse, lex string
	for _, l := range strings.Split(view, "\n") {
		switch {
		case parse == "" && strings.Contains(l, "parser/parse.go:3-6"):
			parse = l
		case lex == "" && strings.Contains(l, "lexer/lex.go:1-9"):
			lex = l
		}
	}
	if !strings.Contains(parse, "already in the flow as 100_parse_go") {
		t.Errorf("a result inside part 100_parse_go is not marked:\n%s", view)
	}
	if lex == "" || strings.Contains(lex, "already in the flow") {
		t.Errorf("a result outside the flow: %q\n%s", lex, view)
	}
}

// TestSearchOverlayShowsBestLineAndFolds: the overlay asks for the
// default threshold, shows the best-matching line of the selected result
// and how many copies were folded into it, and says when nothing passed
// the threshold.
func TestSearchOverlayShowsBestLineAndFolds(t *testing.T) {
	var asked search.Query
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		asked = q
		if q.Text == "xyzzyplugh" {
			return search.Response{Query: q.Text, Results: []search.Result{}, MinScore: q.MinScore}, nil
		}
		return search.Response{Query: q.Text, MinScore: q.MinScore, Results: []search.Result{{Path: "lang/en/auth.php", StartLine: 2, EndLine: 40,
			Language: "php", Score: 0.91, Sources: []string{"text"}, Line: "'password' => 'The provided password is incorrect.',", MatchLine: 31,
			Paths: []string{"lang/en/auth.php", "lang/ka/auth.php"}, Similar: []string{"lang/fr/auth.php", "lang/de/auth.php"}}}}, nil
	}
	m, _ := newTestModel(t, fake)
	m = keys(t, m, "/")
	run := func(m Model, text string) Model {
		t.Helper()
		m.search.input.SetValue(text)
		m.search.seq++
		next, cmd := m.Update(searchTickMsg{m.search.seq})
		next, _ = next.(Model).Update(cmd())
		return next.(Model)
	}
	m = run(m, "password")
	if asked.MinScore != search.DefaultMinScore {
		t.Errorf("the overlay searched with threshold %v", asked.MinScore)
	}
	view := m.View()
	for _, want := range []string{"+3 similar", "31: 'password' => 'The provided password"} {
		if !strings.Contains(view, want) {
			t.Errorf("overlay lacks %q:\n%s", want, view)
		}
	}
	m = run(m, "xyzzyplugh")
	if view := m.View(); !strings.Contains(view, "no results scoring at least 0.10") {
		t.Errorf("no results not said:\n%s", view)
	}
}

// TestSearchOverlayGraphFilters: route:, controller: and table: tokens
// leave the words and reach the search function as its graph filter; a
// filter alone searches (it lists the walk), and the function's error
// (an unknown target, a workspace that is no Laravel app) is shown in
// the overlay.
func TestSearchOverlayGraphFilters(t *testing.T) {
	type call struct {
		q search.Query
		g search.Graph
	}
	var calls []call
	fake := func(ctx context.Context, q search.Query, g search.Graph) (search.Response, error) {
		calls = append(calls, call{q, g})
		if len(g.Tables) > 0 && g.Tables[0] == "nope" {
			return search.Response{}, errors.New(`no table "nope" in the index: no migration creates or alters it and no model maps to it`)
		}
		return search.Response{Query: q.Text, Results: []search.Result{{Path: "app/Http/Controllers/InvoiceController.php", StartLine: 10,
			EndLine: 20, Symbol: "store", Language: "php", Score: 1, Sources: []string{"graph"}}}}, nil
	}
	m, _ := newTestModel(t, fake)
	m = keys(t, m, "/")
	run := func(m Model, text string) Model {
		t.Helper()
		m.search.input.SetValue(text)
		m.search.seq++
		next, cmd := m.Update(searchTickMsg{m.search.seq})
		if cmd == nil {
			t.Fatalf("%q: no search was run", text)
		}
		return drive(t, next.(Model), cmd)
	}
	m = run(m, "store invoice route:invoices.store type:method controller:InvoiceController@store")
	last := calls[len(calls)-1]
	if last.q.Text != "store invoice" || len(last.q.Types) != 1 || last.q.Types[0] != "method" {
		t.Errorf("query %+v", last.q)
	}
	if fmt.Sprint(last.g.Routes) != "[invoices.store]" || fmt.Sprint(last.g.Controllers) != "[InvoiceController@store]" || len(last.g.Tables) != 0 {
		t.Errorf("graph filter %+v", last.g)
	}
	m = run(m, "table:songs")
	last = calls[len(calls)-1]
	if last.q.Text != "" || fmt.Sprint(last.g.Tables) != "[songs]" || len(last.g.Routes) != 0 {
		t.Errorf("a filter alone: query %+v, graph %+v", last.q, last.g)
	}
	if !strings.Contains(m.View(), "InvoiceController.php:10-20") {
		t.Errorf("a filter alone lists no result:\n%s", m.View())
	}
	m = run(m, "table:nope")
	if view := m.View(); !strings.Contains(view, `no table "nope" in the index`) || strings.Contains(view, "InvoiceController.php") {
		t.Errorf("an unknown table is not shown as such:\n%s", view)
	}
	// Neither words nor a filter: nothing to search ("route:" is a word
	// with no name, searched as text).
	m.search.input.SetValue("type:method")
	m.search.seq++
	if _, cmd := m.Update(searchTickMsg{m.search.seq}); cmd != nil {
		t.Errorf("type:method alone ran a search")
	}
}
