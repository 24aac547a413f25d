package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/evidence"
)

// exactTokens is the sum of the files' tokens by the budget's tokenizer.
func exactTokens(t testing.TB, m Model, rels ...string) int {
	t.Helper()
	c, err := tokens.ForEncoding(m.snap.Encoding)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rel := range rels {
		text, err := os.ReadFile(filepath.Join(m.opts.Root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		n += c.Count(string(text))
	}
	return n
}

// TestTreeCountsExactlyInTheBackground: the tree's first frame shows
// bytes/4 estimates (~) at once, a key works while the exact count is
// still to come, and the count, with the budget's tokenizer, replaces
// them: rows without ~, the title naming the tokenizer.
func TestTreeCountsExactlyInTheBackground(t *testing.T) {
	m, _ := treeModel(t)
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")})
	m = next.(Model)
	tm := findMsg[treeMsg](t, cmd)
	next, count := m.Update(tm)
	m = next.(Model)
	lines := treeLines(m)
	if !strings.Contains(m.View(), "Files · 11 indexed · ~tokens: estimate (bytes/4)") || !hasLine(lines, "▸   util/", "7 files ~70") {
		t.Fatalf("the first frame does not show the estimates:\n%s", strings.Join(lines, "\n"))
	}
	m = key1(t, m, tea.KeyDown)
	m = key1(t, m, tea.KeyRight) // parser/ opens before any count
	if !hasLine(treeLines(m), "lex.go", "~100") {
		t.Fatalf("parser/ did not open with estimates:\n%s", strings.Join(treeLines(m), "\n"))
	}
	m = send(t, m, findMsg[treeCountMsg](t, count))
	lines = treeLines(m)
	lex := exactTokens(t, m, "parser/lex.go")
	if !strings.Contains(m.View(), "Files · 11 indexed · tokens o200k_base") || !hasLine(lines, "lex.go", " "+shortCount(lex)) ||
		!hasLine(lines, "▸   util/", "7 files "+shortCount(exactTokens(t, m, "util/u0.go")*7)) || strings.Contains(strings.Join(lines[2:], "\n"), "~") {
		t.Fatalf("the exact counts did not replace the estimates (lex.go %d):\n%s", lex, strings.Join(lines, "\n"))
	}
}

// TestTreeCountsOnceOpened: the tree read in the background when the
// index is ready counts nothing until it is first shown; then it counts
// every file.
func TestTreeCountsOnceOpened(t *testing.T) {
	m, _ := treeModel(t)
	m = send(t, m, indexReport(indexMsg{kind: indexReady}))
	if m.tree.t == nil || m.tree.t.counted != 0 || m.tree.counting {
		t.Fatalf("a tree never opened is counted (%d files)", m.tree.t.counted)
	}
	m = keys(t, m, "t")
	if m.tree.t.counted != 11 || m.tree.counting {
		t.Fatalf("opening the tree counted %d of its 11 files", m.tree.t.counted)
	}
}

// TestTreeKeepsCountsAcrossBatches: a tree read again after an index
// batch keeps the counts of the files whose content did not change and
// counts only the changed and the new one.
func TestTreeKeepsCountsAcrossBatches(t *testing.T) {
	m, files := treeModel(t)
	m = keys(t, m, "t")
	if m.tree.t.counted != 11 {
		t.Fatalf("counted %d of 11 files", m.tree.t.counted)
	}
	if err := os.WriteFile(filepath.Join(files.root, "util", "u0.go"), []byte("package util\n\nvar changed = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files.write(t, "parser/new.go", "package parser\n")
	next, cmd := m.Update(indexReport(indexMsg{kind: indexBatch, indexed: 2}))
	m = next.(Model)
	next, count := m.Update(findMsg[treeMsg](t, cmd))
	m = next.(Model)
	if m.tree.t.counted != 10 || !hasLine(treeLines(m), "▸ "+markPart+" render/", "1 in flow · 1 file "+shortCount(exactTokens(t, m, "render/render.go"))) {
		t.Fatalf("the unchanged files' counts were not kept (%d of 12 counted):\n%s", m.tree.t.counted, strings.Join(treeLines(m), "\n"))
	}
	msg := findMsg[treeCountMsg](t, count)
	var counted []string
	for _, id := range msg.ids {
		counted = append(counted, m.tree.t.nodes[id].path)
	}
	if strings.Join(counted, " ") != "parser/new.go util/u0.go" {
		t.Fatalf("the count after the batch reads %v, want the new and the changed file", counted)
	}
	m = send(t, m, msg)
	if m.tree.t.counted != 12 || !hasLine(treeLines(m), "▸   util/", "7 files "+shortCount(exactTokens(t, m, "util/u0.go", "util/u1.go")+exactTokens(t, m, "util/u1.go")*5)) {
		t.Fatalf("after the count (%d of 12):\n%s", m.tree.t.counted, strings.Join(treeLines(m), "\n"))
	}
}

// TestTreeCountsWithoutAFlow: with no current flow, the tree counts with
// the default budget's tokenizer (the configured model's: gpt-4 counts
// with cl100k_base), not only estimates until it is read again.
func TestTreeCountsWithoutAFlow(t *testing.T) {
	m, _ := treeModelWith(t, func(root string, o *Options) {
		if err := os.Remove(filepath.Join(evidence.FlowsDir(root), "current")); err != nil {
			t.Fatal(err)
		}
		o.Engine.Reload()
		o.Engine.Model = "gpt-4"
	})
	m = keys(t, m, "t")
	lines := treeLines(m)
	c, err := tokens.ForEncoding(tokens.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(m.opts.Root, "parser", "lex.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.View(), "tokens cl100k_base") || !hasLine(lines, "▸   parser/", "2 files "+shortCount(c.Count(string(text))+c.Count(parseGo))) {
		t.Fatalf("without a flow the tree is not counted with the default tokenizer:\n%s", m.View())
	}
}
