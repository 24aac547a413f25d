package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/tokens"
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
