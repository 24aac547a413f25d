package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/index/search"
)

// TestSearchMarksSurviveANarrowOverlay: a result a part already holds is
// marked at the head of its row, where a long path or symbol cannot cut
// it off; the overlay says what the marks mean; adding a marked result is
// refused by the engine's coverage check, which names the part, and the
// other results added with it still are.
func TestSearchMarksSurviveANarrowOverlay(t *testing.T) {
	long := "ParseEverythingThatComesThroughTheFrontDoorAndThenSome"
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		return search.Response{Results: []search.Result{
			{Path: "parser/parse.go", StartLine: 3, EndLine: 6, Symbol: long, Language: "go", Score: 0.9, Sources: []string{"text", "vector", "symbol"}},
			{Path: "render/render.go", StartLine: 3, EndLine: 6, Symbol: long, Language: "go", Score: 0.7, Sources: []string{"text", "vector"}},
			{Path: "parser/lex.go", StartLine: 3, EndLine: 6, Symbol: "Lex", Language: "go", Score: 0.5, Sources: []string{"text"}},
		}}, nil
	}
	m, root := newTestModel(t, fake)
	os.WriteFile(filepath.Join(root, "parser", "lex.go"), []byte("package parser\n\n// Lex splits input.\nfunc Lex(s string) []string {\n\treturn nil\n}\n"), 0o644)
	m = keys(t, m, "j", "j", "space") // 110_render_go skipped
	m = send(t, m, tea.WindowSizeMsg{Width: 64, Height: 30})
	m = keys(t, m, "/")
	m = typeText(t, m, "parse")
	m = drive(t, m, func() tea.Msg { return searchTickMsg{m.search.seq} })

	rowOf := func(view, path string) string {
		for _, l := range strings.Split(view, "\n") {
			if strings.Contains(l, path+":3-6") && !strings.Contains(l, "──") {
				return strings.TrimLeft(l, "│┃")
			}
		}
		return ""
	}
	view := m.View()
	for _, c := range []struct{ path, head string }{
		{"parser/parse.go", " ● 0.90"},
		{"render/render.go", " ○ 0.70"},
		{"parser/lex.go", "   0.50"},
	} {
		if r := rowOf(view, c.path); !strings.HasPrefix(r, c.head) {
			t.Errorf("%s: row %q does not start %q\n%s", c.path, r, c.head, view)
		}
	}
	if !strings.Contains(view, "● in the flow") || !strings.Contains(view, "○ in the flow, skipped") {
		t.Errorf("the overlay does not say what its marks mean:\n%s", view)
	}
	// The selected result's title line names the part, uncut.
	if !strings.Contains(view, "── parser/parse.go:3-6 · already in the flow as 100_parse_go") {
		t.Errorf("the selected result does not name the part holding it:\n%s", view)
	}

	// Mark the held parse result and the new lex one, then add both.
	m = send(t, m, tea.KeyMsg{Type: tea.KeyCtrlAt})
	m = send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	m = send(t, m, tea.KeyMsg{Type: tea.KeyCtrlAt})
	m = keys(t, m, "enter")
	if !m.statusErr || !strings.Contains(m.status, "already in the flow as 100_parse_go") || !strings.Contains(m.status, "--force") {
		t.Errorf("status after adding a held result: %q", m.status)
	}
	if !strings.Contains(rowStates(m), "120_lex_go_lex") {
		t.Errorf("the new result was not added with it: %s", rowStates(m))
	}
	if strings.Count(rowStates(m), "parse_go") != 1 {
		t.Errorf("the held result was added again: %s", rowStates(m))
	}
}

// BenchmarkSearchOverlayFrame is one frame of the search overlay with 30
// results over a flow of 500 parts, every other result held by a part:
// the marks and their legend ask the snapshot's coverage on every frame.
func BenchmarkSearchOverlayFrame(b *testing.B) {
	m := benchModel(b)
	var results []search.Result
	for i := range 30 {
		path := fmt.Sprintf("src/f%03d.go", i*17)
		if i%2 == 1 {
			path = fmt.Sprintf("other/g%03d.go", i)
		}
		results = append(results, search.Result{Path: path, StartLine: 3, EndLine: 9, Symbol: "F", Language: "go", Score: 0.5, Sources: []string{"text"}})
	}
	m = keys(b, m, "/")
	m.search.results, m.search.previews = results, make([]string, len(results))
	if !strings.Contains(m.View(), markIn+" in the flow") {
		b.Fatal("no marks drawn")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}
