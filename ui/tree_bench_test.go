package ui

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"

	indexsum "github.com/dossierhq/dossier/index/summary"
)

// treeBenchModel is a 160x50 workbench on the indexed workspace at
// DOSSIER_BENCH_ROOT (a copy of $(go env GOROOT)/src indexed with
// `dossier index`: 10k files), its tree read from the index.
func treeBenchModel(b *testing.B) Model {
	b.Helper()
	root := os.Getenv("DOSSIER_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_ROOT to an indexed workspace")
	}
	files := func(ctx context.Context) ([]indexsum.FileSize, error) { return indexsum.Files(ctx, root) }
	m := New(Options{Root: root, Engine: benchEngine(b, root), Styles: testStyles(), Files: files})
	m.tree.input.Cursor.SetMode(cursor.CursorStatic)
	m = drive(b, m, m.loadCmd())
	return send(b, m, tea.WindowSizeMsg{Width: 160, Height: 50})
}

// BenchmarkTreeOpen is t to the tree's first frame: cold, the index's
// file list read and the tree built (what the first open after the
// start-up index run costs, done in the background by then); warm, a
// tree read before (every later open).
func BenchmarkTreeOpen(b *testing.B) {
	m := treeBenchModel(b)
	t := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")}
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fresh := m
			fresh.tree = newTreePane()
			next, cmd := fresh.Update(t)
			next, _ = next.(Model).Update(findMsg[treeMsg](b, cmd))
			_ = next.(Model).View()
		}
		b.ReportMetric(float64(len(m.treeOpened(b).tree.t.files)), "files")
	})
	opened := m.treeOpened(b)
	opened.focus = focusList
	b.Run("warm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			next, _ := opened.Update(t)
			_ = next.(Model).View()
		}
	})
}

// treeOpened is m with its tree read and open.
func (m Model) treeOpened(b *testing.B) Model {
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")})
	next, _ = next.(Model).Update(findMsg[treeMsg](b, cmd))
	return next.(Model)
}

// BenchmarkTreeKey is a key in the open tree to the next frame: moving,
// opening and closing a folder, and typing a filter (the first letter
// searches every path; each letter after it only the last matches) with
// esc clearing it. ns/op is per key.
func BenchmarkTreeKey(b *testing.B) {
	m := treeBenchModel(b).treeOpened(b)
	press := func(m Model, msg tea.KeyMsg) Model {
		next, _ := m.Update(msg)
		_ = next.(Model).View()
		return next.(Model)
	}
	runes := func(s string) []tea.KeyMsg {
		var out []tea.KeyMsg
		for _, r := range s {
			out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
		return append(out, tea.KeyMsg{Type: tea.KeyEsc})
	}
	for _, k := range []struct {
		name string
		keys []tea.KeyMsg
	}{
		{"move", []tea.KeyMsg{{Type: tea.KeyDown}}},
		{"open-close", []tea.KeyMsg{{Type: tea.KeyRight}, {Type: tea.KeyLeft}}},
		{"filter-first-letter", runes("s")},
		{"filter-word", runes("http/server.go")},
	} {
		b.Run(k.name, func(b *testing.B) {
			cur := m
			for i := 0; i < b.N; i++ {
				cur = press(cur, k.keys[i%len(k.keys)])
			}
		})
	}
}

// BenchmarkTreeCount is the exact count in the background: "batch" is one
// command counting countBatch files with the budget's tokenizer (off the
// Update loop), "fold" is Update taking its answer (what the count costs
// the loop that draws frames and reads keys).
func BenchmarkTreeCount(b *testing.B) {
	m := treeBenchModel(b).treeOpened(b)
	m.tree.encoding = "o200k_base"
	b.Run("batch", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			from := i * countBatch % len(m.tree.t.paths)
			_ = countTreeCmd(m.tree.t, from, m.opts.Root, m.tree.encoding)()
		}
	})
	msg := countTreeCmd(m.tree.t, 0, m.opts.Root, m.tree.encoding)().(treeCountMsg)
	b.Run("fold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			cur := m
			cur.tree.t = cloneTree(m.tree.t)
			msg.t = cur.tree.t
			b.StartTimer()
			next, _ := cur.Update(msg)
			_ = next.(Model).View()
		}
	})
}

// cloneTree copies t's nodes, so each fold starts from estimates.
func cloneTree(t *fileTree) *fileTree {
	c := *t
	c.nodes = slices.Clone(t.nodes)
	return &c
}
