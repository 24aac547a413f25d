package ui

import (
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/store/fsafe"
)

// The tree opens with bytes/4 estimates (the index's file sizes, no text
// read) and then counts each file's text with the tokenizer the budget
// uses (the default budget's without a flow), in the background, a batch
// at a time: each batch is a command that reads and counts the next
// files and answers with their counts, which Update folds into the files
// and their folders (a few additions per file), and which is issued again
// until every file is counted. A row shows ~N while any file under it is
// an estimate, N once all are exact. Nothing waits for it: the first
// frame and every key draw what is counted so far.
//
// The count starts when the tree is first opened, not when it is read in
// the background at start-up: a workbench whose tree is never opened
// reads no file for it. A tree read again after an index batch keeps the
// counts of the files whose content hash is unchanged (same tokenizer)
// and counts only the new and changed ones.

// countBatch is how many files one counting command reads: a few hundred
// ms of work on a loaded machine, so a newer tree stops the old count
// soon.
const countBatch = 128

// treeCountMsg answers one batch: the counts of tree t's files ids (-1:
// not readable, left an estimate); next is where the following batch
// starts looking, in t.files.
type treeCountMsg struct {
	t      *fileTree
	ids    []int32
	counts []int
	next   int
}

// treeCountMax is the largest file the tree counts exactly (the index's
// own default cap on a file's size is far below it).
const treeCountMax = 16 << 20

// countTreeCmd counts the next batch of t's files not counted yet, from
// t.files[from] on, with the encoding, reading them from root; nil when
// none is left or the encoding is no tokenizer. The batch is chosen here,
// on the Update loop, which alone changes the tree.
func countTreeCmd(t *fileTree, from int, root, encoding string) tea.Cmd {
	if t == nil {
		return nil
	}
	c, err := tokens.ForEncoding(encoding)
	if err != nil || !c.Exact() {
		return nil
	}
	var ids []int32
	var paths []string
	for ; from < len(t.files) && len(ids) < countBatch; from++ {
		if id := t.files[from]; t.nodes[id].exact == 0 {
			ids, paths = append(ids, id), append(paths, t.paths[from])
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return func() tea.Msg {
		counts := make([]int, len(paths))
		for i, p := range paths {
			// as it is now, which may not be what was indexed: a log
			// grown to gigabytes, a FIFO or a link to a device keeps its
			// estimate (fsafe refuses them) rather than holding the count
			text, err := fsafe.ReadFile(filepath.Join(root, filepath.FromSlash(p)), treeCountMax)
			if err != nil {
				counts[i] = -1
				continue
			}
			counts[i] = c.Count(string(text))
		}
		return treeCountMsg{t: t, ids: ids, counts: counts, next: from}
	}
}

// startCount starts counting the tree's files when the tree has been
// opened and no count of it is under way.
func (p *treePane) startCount(root string) tea.Cmd {
	if !p.opened || p.counting {
		return nil
	}
	cmd := countTreeCmd(p.t, 0, root, p.encoding)
	p.counting = cmd != nil
	return cmd
}

// takeCounts folds a batch of exact counts into the tree they were taken
// for (a tree read since drops them) and asks for the next batch.
func (m Model) takeCounts(msg treeCountMsg) (tea.Model, tea.Cmd) {
	p := &m.tree
	if msg.t != p.t {
		return m, nil
	}
	for i, n := range msg.counts {
		if n >= 0 {
			p.t.setExact(msg.ids[i], n, p.flt)
		}
	}
	next := countTreeCmd(p.t, msg.next, m.opts.Root, p.encoding)
	p.counting = next != nil
	return m, next
}

// keepCounts gives t the exact counts old has for the same files with
// the same content hash; both were counted with one tokenizer.
func (t *fileTree) keepCounts(old *fileTree) {
	if old == nil {
		return
	}
	was := make(map[string]int, old.counted)
	for i, id := range old.files {
		if old.nodes[id].exact > 0 && old.hashes[i] != "" {
			was[old.paths[i]+"\x00"+old.hashes[i]] = old.nodes[id].tokens
		}
	}
	for i, id := range t.files {
		if n, ok := was[t.paths[i]+"\x00"+t.hashes[i]]; ok && t.hashes[i] != "" {
			t.setExact(id, n, nil)
		}
	}
}

// setExact replaces file id's estimate with its exact count n, in every
// folder above it and in the filter's sums when the file matches.
func (t *fileTree) setExact(id int32, n int, flt *treeFilter) {
	f := &t.nodes[id]
	if f.exact > 0 {
		return
	}
	delta := n - f.tokens
	matched := flt != nil && flt.hit[id]
	for a := id; a >= 0; a = t.nodes[a].parent {
		t.nodes[a].tokens += delta
		t.nodes[a].exact++
		if matched {
			flt.sums[a] += delta
		}
	}
	t.counted++
}
