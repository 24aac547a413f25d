package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/dossierhq/dossier/ui/termsafe"
)

// markPart marks a file of which a part of the flow holds some lines (a
// search hit, a symbol); markIn and markSkipped mark whole files, and a
// folder holding any file of the flow.
const markPart = "◐"

// treeWidth is the tree's share of the screen; the evidence list keeps
// the rest, so an add shows there as it lands.
func (m Model) treeWidth() int { return m.width - m.listWidth() }

// treeRows is the rows of files the tree pane shows (inside its border,
// under the filter and the hint lines).
func (m Model) treeRows() int { return max(1, m.bodyHeight()-4) }

// treeBody is the tree pane beside the evidence list.
func (m Model) treeBody(h int) string {
	left := m.treeView(m.treeWidth(), h)
	right := m.listView(m.listWidth(), h)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// treeView draws the filter, a hint and the rows on screen: only those,
// so a 10k-file tree draws as fast as a small one.
func (m Model) treeView(w, h int) string {
	p, st := &m.tree, m.styles
	var b strings.Builder
	b.WriteString(p.input.View() + "\n")
	title := "Files"
	hint := "enter open/add · ←/→ close/open · " + m.keys.TreeAdd.Help().Key + " add file or folder · esc close"
	switch {
	case p.err != "":
		b.WriteString(st.StatusError.Render(termsafe.Line(p.err)) + "\n")
		if p.t == nil && m.opts.Index != nil {
			// The start-up run reads it again when it is done (treeAgain).
			b.WriteString(st.Help.Render("the tree fills in once the index run is done") + "\n")
		}
		return m.pane(title, b.String(), w, h, true)
	case p.t == nil:
		b.WriteString(st.Help.Render("reading the index's file list…") + "\n")
		return m.pane(title, b.String(), w, h, true)
	}
	title = fmt.Sprintf("Files · %d indexed · %s", len(p.t.files), p.tokensNote())
	if p.flt != nil {
		title = fmt.Sprintf("Files · %d of %d match · %s", len(p.flt.cands), len(p.t.files), p.tokensNote())
	}
	if m.indexing != "" {
		hint = "the index is still being built: these are the files indexed so far · " + hint
	}
	b.WriteString(st.Help.Render(hint) + "\n")
	end := min(len(p.rows), p.top+m.treeRows())
	for i := p.top; i < end; i++ {
		b.WriteString(m.treeRow(p.rows[i], i == p.cursor, w-2) + "\n")
	}
	if len(p.rows) == 0 {
		what := "no file matches"
		if p.flt == nil {
			what = "the index holds no file yet"
		}
		b.WriteString(st.RowMuted.Render(what))
	}
	return m.pane(title, b.String(), w, h, true)
}

// treeRow is one row: indent, folder arrow, flow mark, name, and on the
// right the tokens (of the matches, under a filter) and a folder's files.
func (m Model) treeRow(id int32, selected bool, w int) string {
	p, st := &m.tree, m.styles
	n := &p.t.nodes[id]
	arrow, name := "  ", termsafe.Line(n.name)
	tokens, files := n.tokens, n.files
	if p.flt != nil {
		tokens, files = p.flt.sums[id], p.flt.count[id]
	}
	right := shortCount(tokens)
	if n.exact < n.files {
		right = "~" + right // an estimate under it yet
	}
	if n.dir {
		arrow, name = "▸ ", name+"/"
		if p.expanded(id) {
			arrow = "▾ "
		}
		noun := "file" + plural(files)
		switch {
		case p.flt != nil && files == 1:
			noun = "match"
		case p.flt != nil:
			noun = "matches"
		}
		right = fmt.Sprintf("%d %s %s", files, noun, right)
	}
	mark, inFlow := m.treeMark(n.path, n.dir)
	if inFlow > 0 {
		right = fmt.Sprintf("%d in flow · %s", inFlow, right)
	}
	left := strings.Repeat("  ", int(n.depth)) + arrow + mark + " " + name
	room := max(1, w-lipgloss.Width(right)-1)
	line := fit(left, room) + " " + st.Tokens.Render(right)
	if selected {
		return st.RowSelected.Render(fit(left, room) + " " + right)
	}
	return line
}

// treeMark is a row's mark of the flow (see coverMark), and for a folder
// how many of its files the flow holds. It asks the snapshot's coverage,
// a list of the parts' spans: a row on screen costs a pass over the
// parts, never the index or the disk.
func (m Model) treeMark(path string, dir bool) (string, int) {
	if dir {
		prefix, seen := path+"/", map[string]bool{}
		for _, s := range m.snap.Coverage {
			if strings.HasPrefix(s.Path, prefix) {
				seen[s.Path] = true
			}
		}
		if len(seen) > 0 {
			return markPart, len(seen)
		}
		return " ", 0
	}
	whole, span, skipped := false, false, false
	for _, s := range m.snap.Coverage {
		if s.Path != path {
			continue
		}
		switch {
		case !s.Active:
			skipped = true
		case s.Start == 0:
			whole = true
		default:
			span = true
		}
	}
	switch {
	case whole:
		return markIn, 0
	case span:
		return markPart, 0
	case skipped:
		return markSkipped, 0
	}
	return " ", 0
}

// shortCount is n in at most five cells: 950, 12.3k, 4.1M.
func shortCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// addFromTree adds the selected file, or the selected folder's files
// (the matching ones under a filter), one `evidence add` each through the
// command engine, as `:evidence add PATH` would: each part its own, each
// undoable. Files a part of the flow already holds are left out. More
// than a handful of files ask first (confirm is the folder the last key
// asked about), naming the count and the tokens against the budget.
func (m Model) addFromTree(confirm int32) (tea.Model, tea.Cmd) {
	p := &m.tree
	id, ok := p.selectedID()
	if !ok {
		return m, nil
	}
	n := p.t.nodes[id]
	var todo []string
	held, tokens, estimated := 0, 0, false
	for _, f := range p.t.under(id, p.flt) {
		path := p.t.nodes[f].path
		if _, _, in := m.snap.Coverage.Held(path, 0, 0); in {
			held++
			continue
		}
		todo = append(todo, path)
		tokens += p.t.nodes[f].tokens
		estimated = estimated || p.t.nodes[f].exact == 0
	}
	what := termsafe.Line(n.path)
	if n.dir {
		what += "/"
	}
	switch {
	case len(todo) == 0 && !n.dir:
		m.status, m.statusErr = what+" is already in the flow", false
		return m, nil
	case len(todo) == 0:
		m.status, m.statusErr = fmt.Sprintf("the %d file%s of %s shown are already in the flow", held, plural(held), what), false
		return m, nil
	case len(todo) > treeMaxAdd:
		m.status, m.statusErr = fmt.Sprintf("%s holds %d files not in the flow: more than %d at once from the tree; filter the tree or pick a sub-folder", what, len(todo), treeMaxAdd), true
		return m, nil
	case len(todo) > treeConfirmOver && confirm != id:
		p.confirm = id
		count := fmt.Sprintf("%d tokens", tokens)
		if estimated {
			count = "~" + count + " (estimate)"
		}
		m.status, m.statusErr = fmt.Sprintf("add %d files of %s as %d parts, %s, the flow at %d of %d: %s again to add, any other key cancels",
			len(todo), what, len(todo), count, m.snap.Tokens, m.snap.Budget, m.keys.TreeAdd.Help().Key), false
		return m, nil
	}
	cmds := make([]tea.Cmd, 0, len(todo))
	for _, path := range todo {
		cmds = append(cmds, m.addCmd([]string{"evidence", "add", path, "--via", "file tree"}))
	}
	m.status, m.statusErr = fmt.Sprintf("adding %s …", what), false
	if n.dir {
		m.status = fmt.Sprintf("adding %d file%s of %s …", len(todo), plural(len(todo)), what)
		if held > 0 {
			m.status += fmt.Sprintf(" (%d already in the flow)", held)
		}
	}
	return m, tea.Batch(cmds...) // queued: they run one after another
}

// tokensNote says how the rows' tokens were taken: estimates, counted
// with the budget's tokenizer, or some of each while counting goes on.
func (p *treePane) tokensNote() string {
	switch {
	case p.t.counted == 0:
		return "~tokens: estimate (bytes/4)"
	case p.t.counted < len(p.t.files):
		return fmt.Sprintf("tokens %s: %d of %d counted, ~ estimates", p.encoding, p.t.counted, len(p.t.files))
	}
	return "tokens " + p.encoding
}
