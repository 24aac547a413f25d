package ui

import (
	"github.com/dossierhq/dossier/store/fsafe"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// The tree opens with bytes/4 estimates (the index's file sizes, no text
// read) and then counts each file's text with the tokenizer the budget
// uses, in the background, a batch at a time: each batch is a command
// that reads and counts the next files and answers with their counts,
// which Update folds into the files and their folders (a few additions
// per file), and which is issued again until every file is counted. A
// row shows ~N while any file under it is an estimate, N once all are
// exact. Nothing waits for it: the first frame and every key draw what
// is counted so far.

// countBatch is how many files one counting command reads: a few hundred
// ms of work on a loaded machine, so a newer tree stops the old count
// soon.
const countBatch = 128

// treeCountMsg answers one batch: the counts of tree t's files from from
// on (-1: not readable, left an estimate).
type treeCountMsg struct {
	t      *fileTree
	from   int
	counts []int
}

// treeCountMax is the largest file the tree counts exactly (the index's
// own default cap on a file's size is far below it).
const treeCountMax = 16 << 20

// countTreeCmd counts the batch of t's files starting at from, with the
// budget's encoding, reading them from root; nil when from is past the
// end or the encoding is no tokenizer.
func countTreeCmd(t *fileTree, from int, root, encoding string) tea.Cmd {
	if t == nil || from >= len(t.paths) {
		return nil
	}
	c, err := tokens.ForEncoding(encoding)
	if err != nil || !c.Exact() {
		return nil
	}
	paths := t.paths[from:min(len(t.paths), from+countBatch)]
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
		return treeCountMsg{t: t, from: from, counts: counts}
	}
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
			p.t.setExact(p.t.files[msg.from+i], n, p.flt)
		}
	}
	return m, countTreeCmd(p.t, msg.from+len(msg.counts), m.opts.Root, p.encoding)
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
