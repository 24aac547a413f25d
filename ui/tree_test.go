package ui

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"

	indexsum "github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// treeFiles is an index's file list as Options.Files gives it: the
// fixture's files with more beside them, written to disk (adds read
// them), sizes as on disk. more adds files later, as an index batch would.
type treeFiles struct {
	root  string
	mu    sync.Mutex
	paths []string
}

func (f *treeFiles) write(t testing.TB, rel, text string) {
	t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.paths = append(f.paths, rel)
	f.mu.Unlock()
}

func (f *treeFiles) list(context.Context) ([]indexsum.FileSize, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []indexsum.FileSize
	for _, rel := range f.paths {
		st, err := os.Stat(filepath.Join(f.root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		text, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		out = append(out, indexsum.FileSize{Path: rel, Size: st.Size(), Hash: fmt.Sprintf("%x", sha256.Sum256(text))})
	}
	return out, nil
}

// treeModel is the fixture's workbench with a file list: the fixture's
// three files (all in the flow), parser/lex.go (400 bytes: ~100 tokens)
// and util/ with seven files of 40 bytes.
func treeModel(t testing.TB) (Model, *treeFiles) {
	return treeModelWith(t, nil)
}

// treeModelWith is treeModel with more options set by set (nil: none).
func treeModelWith(t testing.TB, set func(root string, o *Options)) (Model, *treeFiles) {
	files := &treeFiles{}
	m, _ := newModelWith(t, func(root string, o *Options) {
		files.root = root
		o.Files = files.list
		if set != nil {
			set(root, o)
		}
	})
	files.paths = []string{"parser/parse.go", "render/render.go", "docs/guide.md"}
	files.write(t, "parser/lex.go", "package parser\n//"+strings.Repeat("x", 400-15-3)+"\n")
	for i := 0; i < 7; i++ {
		files.write(t, fmt.Sprintf("util/u%d.go", i), "package util\n"+strings.Repeat("/", 40-13-1)+"\n")
	}
	return m, files
}

// parseGo is the fixture's parser/parse.go.
const parseGo = "package parser\n\n// Parse reads input and handles errors.\nfunc Parse(s string) error {\n\treturn nil\n}\n"

func key1(t testing.TB, m Model, typ tea.KeyType) Model { return send(t, m, tea.KeyMsg{Type: typ}) }

// treeLines is the tree pane's rows as drawn, each trimmed.
func treeLines(m Model) []string {
	var out []string
	for _, l := range strings.Split(m.View(), "\n") {
		// The tree is the left pane: its rows start with its border.
		if i := strings.IndexAny(l, "│╭╰"); i > 0 {
			l = l[:i]
		}
		out = append(out, strings.TrimSpace(strings.Trim(l, "┃")))
	}
	return out
}

func hasLine(lines []string, prefix, suffix string) bool {
	return slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, prefix) && strings.HasSuffix(l, suffix)
	})
}

// TestTreeShowsTheIndexedFiles: t opens the tree on the index's file
// list, folders first and closed, each with its files and tokens
// (counted once the background count is done), what the flow holds marked; → opens a folder,
// ← closes it; esc closes the pane.
func TestTreeShowsTheIndexedFiles(t *testing.T) {
	m, _ := treeModel(t)
	m = keys(t, m, "t")
	if m.focus != focusTree || m.tree.t == nil {
		t.Fatalf("t did not open the tree: focus %v, err %q", m.focus, m.tree.err)
	}
	lines := treeLines(m)
	view := m.View()
	for _, want := range []string{"Files · 11 indexed · tokens o200k_base"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	// docs, parser, render, util: the flow holds a file of the first three.
	if !hasLine(lines, "▸ "+markPart+" parser/", "1 in flow · 2 files "+shortCount(exactTokens(t, m, "parser/lex.go", "parser/parse.go"))) {
		t.Errorf("parser/ row wrong:\n%s", strings.Join(lines, "\n"))
	}
	if !hasLine(lines, "▸   util/", "7 files "+shortCount(exactTokens(t, m, "util/u0.go")*7)) {
		t.Errorf("util/ row wrong:\n%s", strings.Join(lines, "\n"))
	}
	// parser is the second row: open it.
	m = key1(t, m, tea.KeyDown)
	m = key1(t, m, tea.KeyRight)
	lines = treeLines(m)
	if !hasLine(lines, "▾ "+markPart+" parser/", "") || !hasLine(lines, markIn+" parse.go", "") || !hasLine(lines, "lex.go", " "+shortCount(exactTokens(t, m, "parser/lex.go"))) {
		t.Errorf("parser/ did not open with its files marked:\n%s", strings.Join(lines, "\n"))
	}
	m = key1(t, m, tea.KeyDown) // lex.go
	m = key1(t, m, tea.KeyLeft) // to parser/
	m = key1(t, m, tea.KeyLeft) // closes it
	if lines = treeLines(m); hasLine(lines, "lex.go", "") {
		t.Errorf("← did not close parser/:\n%s", strings.Join(lines, "\n"))
	}
	m = keys(t, m, "esc")
	if m.focus != focusList {
		t.Errorf("esc left the tree open")
	}
}

// TestTreeFilterAndAdd: typing filters the paths fuzzily, the best match
// selected; enter adds it through `evidence add`, and its row is marked
// once the part is in the flow.
func TestTreeFilterAndAdd(t *testing.T) {
	m, _ := treeModel(t)
	m = keys(t, m, "t")
	m = typeText(t, m, "plex")
	lines := treeLines(m)
	if hasLine(lines, "", "util/") || hasLine(lines, "▾", "render/") || !hasLine(lines, "▾ "+markPart+" parser/", "1 in flow · 1 match "+shortCount(exactTokens(t, m, "parser/lex.go"))) {
		t.Fatalf("filter plex shows wrong rows:\n%s", strings.Join(lines, "\n"))
	}
	if id, _ := m.tree.selectedID(); m.tree.t.nodes[id].path != "parser/lex.go" {
		t.Fatalf("best match not selected: %s", m.tree.t.nodes[id].path)
	}
	m = keys(t, m, "enter")
	if !slices.ContainsFunc(m.snap.Rows, func(r row) bool { return r.Source == "parser/lex.go" }) {
		t.Fatalf("enter did not add parser/lex.go: %s (status %q)", rowStates(m), m.status)
	}
	if !hasLine(treeLines(m), markIn+" lex.go", "") {
		t.Errorf("lex.go not marked once added:\n%s", strings.Join(treeLines(m), "\n"))
	}
	// Added again: said, not sent to the engine.
	m = keys(t, m, "enter")
	if m.status != "parser/lex.go is already in the flow" {
		t.Errorf("second add: status %q", m.status)
	}
	// esc clears the filter first, then closes.
	m = keys(t, m, "esc")
	if m.focus != focusTree || m.tree.flt != nil || !hasLine(treeLines(m), "▸   util/", "") {
		t.Errorf("esc did not clear the filter")
	}
}

// TestTreeFolderAddAsks: a folder of more than a handful of files names
// their count and tokens against the budget and waits for the add key
// again; another key cancels; then one part per file.
func TestTreeFolderAddAsks(t *testing.T) {
	m, _ := treeModel(t)
	m = keys(t, m, "t")
	before := len(m.snap.Rows)
	ctrlA := func(m Model) Model { return key1(t, m, tea.KeyCtrlA) }
	for range 3 {
		m = key1(t, m, tea.KeyDown) // util/
	}
	m = ctrlA(m)
	if want := fmt.Sprintf("add 7 files of util/ as 7 parts, %d tokens, the flow at ", exactTokens(t, m, "util/u0.go")*7); !strings.HasPrefix(m.status, want) || len(m.snap.Rows) != before {
		t.Fatalf("folder add did not ask: %q, %d rows", m.status, len(m.snap.Rows))
	}
	m = key1(t, m, tea.KeyUp)
	m = key1(t, m, tea.KeyDown)
	m = ctrlA(m)
	if len(m.snap.Rows) != before {
		t.Fatalf("a key between did not cancel the ask: %d rows", len(m.snap.Rows))
	}
	m = ctrlA(m)
	if len(m.snap.Rows) != before+7 {
		t.Fatalf("second ctrl+a added %d parts, want 7 (status %q)", len(m.snap.Rows)-before, m.status)
	}
	if !hasLine(treeLines(m), "▸ "+markPart+" util/", "7 in flow · 7 files "+shortCount(exactTokens(t, m, "util/u0.go")*7)) {
		t.Errorf("util/ not marked:\n%s", strings.Join(treeLines(m), "\n"))
	}
	m = ctrlA(m)
	if m.status != "the 7 files of util/ shown are already in the flow" {
		t.Errorf("folder already added: %q", m.status)
	}
}

// TestTreeFollowsTheIndex: the tree is read once the index is ready, so
// t finds it built; a batch the index wrote reads it again while open,
// keeping the open folders.
func TestTreeFollowsTheIndex(t *testing.T) {
	m, files := treeModel(t)
	m = send(t, m, indexReport(indexMsg{kind: indexReady}))
	if m.tree.t == nil || m.focus == focusTree {
		t.Fatalf("the tree was not read in the background once the index was ready")
	}
	m = keys(t, m, "t")
	m = key1(t, m, tea.KeyDown)
	m = key1(t, m, tea.KeyRight) // parser/ open
	files.write(t, "parser/new.go", "package parser\n")
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, indexed: 1}))
	if !hasLine(treeLines(m), "new.go", "") {
		t.Errorf("the batch's file is not in the tree:\n%s", strings.Join(treeLines(m), "\n"))
	}
}

// TestTreeNarrowingFilterMatchesAFreshOne: a query typed on from the
// last searches only its matches; that finds what a search of every file
// finds.
func TestTreeNarrowingFilterMatchesAFreshOne(t *testing.T) {
	var files []indexsum.FileSize
	for i := 0; i < 3000; i++ {
		files = append(files, indexsum.FileSize{Path: fmt.Sprintf("d%d/sub%d/file_%d.go", i%7, i%13, i), Size: int64(i)})
	}
	tr := buildTree(files, 0)
	var prev *treeFilter
	for _, q := range []string{"d", "d3", "d3s", "d3sub1", "d3sub1f", "d3sub1f2", "d3sub1f2.go"} {
		prev = tr.filter(q, prev)
		fresh := tr.filter(q, nil)
		if !slices.Equal(prev.cands, fresh.cands) || !slices.Equal(prev.sums, fresh.sums) {
			t.Fatalf("%q: narrowed %d matches, fresh %d", q, len(prev.cands), len(fresh.cands))
		}
	}
}

// TestHelpNamesTheTree: the help screen and the key help list the tree's
// keys.
func TestHelpNamesTheTree(t *testing.T) {
	m, _ := treeModel(t)
	m = send(t, m, tea.WindowSizeMsg{Width: 140, Height: 30})
	if !strings.Contains(m.View(), "? help • t file tree • q quit") {
		t.Errorf("key help lacks the tree:\n%s", m.View())
	}
	m = keys(t, m, "?")
	for _, want := range []string{"file tree", "tree: open folder", "tree: add file/folder"} {
		if !strings.Contains(m.View(), want) {
			t.Errorf("help lacks %q:\n%s", want, m.View())
		}
	}
}

// TestTreeMatchesAsFuzzy: the filter's own check keeps exactly the
// paths fuzzy.Find matches, on random paths and queries.
func TestTreeMatchesAsFuzzy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	letters := "abcABC/._-x"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var files []indexsum.FileSize
	for range 2000 {
		files = append(files, indexsum.FileSize{Path: word(1 + rng.IntN(20))})
	}
	tr := buildTree(files, 0)
	for range 300 {
		q := word(1 + rng.IntN(5))
		var want []string
		for _, m := range fuzzy.Find(q, tr.paths) {
			want = append(want, m.Str)
		}
		var got []string
		for _, id := range tr.matching(q, tr.files) {
			got = append(got, tr.nodes[id].path)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: %d matches, fuzzy %d", q, len(got), len(want))
		}
	}
}

// TestTreeBeforeTheIndex: without an index the pane says why, and shows
// the tree once the start-up run is done.
func TestTreeBeforeTheIndex(t *testing.T) {
	files := &treeFiles{}
	var ready atomic.Bool
	m, _ := newModelWith(t, func(root string, o *Options) {
		files.root = root
		o.Files = func(ctx context.Context) ([]indexsum.FileSize, error) {
			if !ready.Load() {
				return nil, fmt.Errorf("%w: run `dossier index`", store.ErrNoIndex)
			}
			return files.list(ctx)
		}
	})
	// As if the start-up run were under way (set after Init, which would
	// run it).
	m.opts.Index = func(context.Context, IndexEvents) error { return nil }
	files.write(t, "main.go", "package main\n")
	m = keys(t, m, "t")
	view := m.View()
	if !strings.Contains(view, "no index in this workspace: run `dossier index`") || !strings.Contains(view, "the tree fills in once the index run is done") {
		t.Fatalf("no index: the pane does not say so:\n%s", view)
	}
	ready.Store(true)
	m = send(t, m, indexReport(indexMsg{kind: indexReady}))
	if !hasLine(treeLines(m), "main.go", " "+shortCount(exactTokens(t, m, "main.go"))) {
		t.Errorf("the tree did not fill in once the index was ready:\n%s", m.View())
	}
}
