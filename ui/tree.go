package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	indexsum "github.com/dossierhq/dossier/index/summary"
)

// FilesFunc lists the files the index holds (summary.Files on the
// workspace): the tree pane shows what discovery kept, gitignore and
// .dossierignore applied, without walking the disk.
type FilesFunc func(ctx context.Context) ([]indexsum.FileSize, error)

// treeConfirmOver is how many files a folder add takes before it asks:
// a handful are added at once, more wait for the add key again.
const treeConfirmOver = 5

// treeMaxAdd is the most files one add from the tree queues, one part
// each: past it, a filter or a sub-folder narrows the choice.
const treeMaxAdd = 200

// treePane is the file tree: the indexed files as folders to expand, a
// fuzzy filter over their paths, and adding a file or folder as evidence.
// Its rows are recomputed when a folder opens or the filter changes, and
// only the rows on screen are drawn.
type treePane struct {
	t       *fileTree
	loading bool
	err     string
	input   textinput.Model
	flt     *treeFilter // nil without a query
	// open holds the folders expanded without a filter, shut those
	// collapsed under the current one, both by path so they survive the
	// tree being read again after the index changed.
	open, shut  map[string]bool
	rows        []int32
	cursor, top int
	// confirm is the folder whose add waits for the add key again.
	confirm int32
	// encoding is the tokenizer the tree's exact counts are taken with.
	encoding string
	// opened says the tree has been shown: its files are counted from
	// then on (treecount.go); counting says a count of t is under way.
	opened, counting bool
}

type treeMsg struct {
	t   *fileTree
	err error
}

func newTreePane() treePane {
	ti := textinput.New()
	ti.Prompt = "filter: "
	ti.Placeholder = "fuzzy path"
	return treePane{input: ti, open: map[string]bool{}, shut: map[string]bool{}, confirm: -1}
}

// loadTreeCmd reads the index's file list and builds the tree, off the
// Update loop.
func (m Model) loadTreeCmd() tea.Cmd {
	fn, gen, ctx := m.opts.Files, m.indexGen, m.opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return func() tea.Msg {
		if fn == nil {
			return treeMsg{err: fmt.Errorf("the file tree is not available")}
		}
		files, err := fn(ctx)
		if err != nil {
			return treeMsg{err: err}
		}
		return treeMsg{t: buildTree(files, gen)}
	}
}

// treeAgain reads the tree once the index is ready or changed: while it
// is open, so it shows the index as it is, and when it was never read,
// so that the first t finds it built (reading 10k file records takes a
// few hundred ms). A closed tree is read again when it opens (openTree),
// showing the one it has meanwhile: a save does not cost a read.
func (m *Model) treeAgain() tea.Cmd {
	if m.opts.Files == nil || m.tree.loading || (m.tree.t != nil && m.focus != focusTree) {
		return nil
	}
	m.tree.loading = true
	return m.loadTreeCmd()
}

// openTree shows the tree, read from the index when it is not yet or the
// index changed since.
func (m Model) openTree() (tea.Model, tea.Cmd) {
	m.focus = focusTree
	m.tree.input.Focus()
	m.tree.confirm = -1
	m.tree.opened = true
	if m.tree.t != nil && m.tree.t.gen == m.indexGen || m.tree.loading {
		return m, m.tree.startCount(m.opts.Root)
	}
	m.tree.loading = true
	return m, m.loadTreeCmd()
}

// takeTree adopts a tree read from the index, keeping the selection, the
// open folders and the filter.
func (m Model) takeTree(msg treeMsg) (tea.Model, tea.Cmd) {
	p := &m.tree
	p.loading = false
	if msg.err != nil {
		p.err = firstLine(msg.err.Error())
		return m, nil
	}
	sel := p.selectedPath()
	old := p.t
	p.t, p.err = msg.t, ""
	if p.encoding == m.snap.Encoding {
		p.t.keepCounts(old)
	}
	p.encoding = m.snap.Encoding
	p.flt = nil
	if q := p.input.Value(); q != "" {
		p.flt = p.t.filter(q, nil)
	}
	p.layout(sel)
	p.counting = false // a count of the old tree drops its answers
	return m, p.startCount(m.opts.Root)
}

// treeRecount reads the tree again when the budget's tokenizer changed
// (a flow started or switched, its model set): its counts are another
// tokenizer's.
func (m *Model) treeRecount() tea.Cmd {
	if m.tree.t == nil || m.tree.loading || m.snap.Encoding == m.tree.encoding || m.opts.Files == nil {
		return nil
	}
	m.tree.loading = true
	return m.loadTreeCmd()
}

// selectedPath is the path of the selected row, "" for none.
func (p *treePane) selectedPath() string {
	if p.t == nil || p.cursor >= len(p.rows) {
		return ""
	}
	return p.t.nodes[p.rows[p.cursor]].path
}

// expanded says whether folder id shows its children.
func (p *treePane) expanded(id int32) bool {
	path := p.t.nodes[id].path
	if p.flt != nil {
		return !p.shut[path]
	}
	return p.open[path]
}

// layout lists the rows as shown, and puts the cursor on the row of
// path when it is among them.
func (p *treePane) layout(path string) {
	if p.t == nil {
		return
	}
	rows := make([]int32, 0, len(p.rows))
	var walk func(ids []int32)
	walk = func(ids []int32) {
		for _, id := range ids {
			if p.flt != nil && !p.flt.hit[id] {
				continue
			}
			rows = append(rows, id)
			if p.t.nodes[id].dir && p.expanded(id) {
				walk(p.t.nodes[id].kids)
			}
		}
	}
	walk(p.t.top)
	p.rows = rows
	if path != "" {
		if i := slices.IndexFunc(rows, func(id int32) bool { return p.t.nodes[id].path == path }); i >= 0 {
			p.cursor = i
		}
	}
	p.cursor = max(0, min(p.cursor, len(rows)-1))
}

// scrollTo keeps the cursor among the h rows on screen.
func (p *treePane) scrollTo(h int) {
	l := listPane{cursor: p.cursor, top: p.top}
	l.clamp(len(p.rows), h)
	p.cursor, p.top = l.cursor, l.top
}

// refilter applies the filter's text: the matching files with the
// folders that hold them, all open, the best match selected.
func (p *treePane) refilter() {
	q := strings.TrimSpace(p.input.Value())
	if p.t == nil {
		return
	}
	if q == "" {
		sel := p.selectedPath()
		p.flt = nil
		p.layout(sel)
		return
	}
	p.flt = p.t.filter(q, p.flt)
	p.shut = map[string]bool{}
	sel := ""
	if p.flt.best >= 0 {
		sel = p.t.nodes[p.flt.best].path
	}
	p.layout(sel)
}

// treeKey handles a key in the tree: moving, opening and closing
// folders, adding; any other key edits the filter.
func (m Model) treeKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	p, k := &m.tree, m.keys
	h := m.treeRows()
	confirm := p.confirm
	p.confirm = -1
	switch {
	case key.Matches(msg, k.Cancel):
		if p.input.Value() != "" {
			p.input.SetValue("")
			p.refilter()
		} else {
			m.focus = focusList
			p.input.Blur()
		}
	case msg.Type == tea.KeyDown || msg.Type == tea.KeyCtrlN:
		p.cursor++
	case msg.Type == tea.KeyUp || msg.Type == tea.KeyCtrlP:
		p.cursor--
	case key.Matches(msg, k.PageDown):
		p.cursor += h / 2
	case key.Matches(msg, k.PageUp):
		p.cursor -= h / 2
	case key.Matches(msg, k.TreeOpen):
		p.openSelected(true)
	case key.Matches(msg, k.TreeClose):
		p.openSelected(false)
	case key.Matches(msg, k.TreeAdd):
		return m.addFromTree(confirm)
	case msg.Type == tea.KeyEnter:
		if id, ok := p.selectedID(); ok && p.t.nodes[id].dir {
			p.openSelected(!p.expanded(id))
			break
		}
		return m.addFromTree(confirm)
	default:
		before := p.input.Value()
		var cmd tea.Cmd
		p.input, cmd = p.input.Update(msg)
		if p.input.Value() != before {
			p.refilter()
		}
		p.scrollTo(h)
		return m, cmd
	}
	p.scrollTo(h)
	return m, nil
}

func (p *treePane) selectedID() (int32, bool) {
	if p.t == nil || p.cursor < 0 || p.cursor >= len(p.rows) {
		return 0, false
	}
	return p.rows[p.cursor], true
}

// openSelected opens (or closes) the selected folder; on a file, or on a
// folder already closed, closing goes to the parent folder.
func (p *treePane) openSelected(open bool) {
	id, ok := p.selectedID()
	if !ok {
		return
	}
	n := &p.t.nodes[id]
	if !n.dir || (!open && !p.expanded(id)) {
		if !open && n.parent >= 0 {
			p.layout(p.t.nodes[n.parent].path)
		}
		return
	}
	if p.flt != nil {
		p.shut[n.path] = !open
	} else {
		p.open[n.path] = open
	}
	p.layout(n.path)
}
