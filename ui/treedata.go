package ui

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sahilm/fuzzy"

	indexsum "github.com/dossierhq/dossier/index/summary"
)

// fileTree is the indexed files as a tree. It is built once per index
// generation, off the Update loop, and never changed afterwards: models
// share it by pointer, and a keystroke only walks it.
type fileTree struct {
	nodes []treeNode
	top   []int32 // the root's children, folders first, each by name
	// files are the file nodes in path order, and paths their paths: the
	// fuzzy filter's candidates.
	files []int32
	paths []string
	// hashes are the files' content hashes as indexed ("": not known):
	// a file whose hash a tree read again keeps has its count kept.
	hashes []string
	gen    int // Model.indexGen when it was read
	// counted is how many files have exact counts.
	counted int
}

// treeNode is a folder or a file. Tokens and files are the sums over a
// folder's files.
type treeNode struct {
	name, path string // path: workspace relative, slash separated
	parent     int32  // -1 at the top
	depth      int32
	dir        bool
	tokens     int
	files      int
	// exact counts the files under the node (itself, for a file) whose
	// tokens are counted, not estimated (treecount.go).
	exact int
	kids  []int32
}

// estimateTokens is the tokens of a file of size bytes as dossier's
// estimate counts them (bytes/4, tokens.Estimate): what the index's chunks
// carry, without decoding them.
func estimateTokens(size int64) int { return int((size + 3) / 4) }

// buildTree builds the tree of files (any order).
func buildTree(files []indexsum.FileSize, gen int) *fileTree {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b indexsum.FileSize) int { return strings.Compare(a.Path, b.Path) })
	t := &fileTree{gen: gen, nodes: make([]treeNode, 0, len(files)+len(files)/8)}
	dirs := map[string]int32{}
	var folder func(path string) int32
	folder = func(path string) int32 {
		if path == "" {
			return -1
		}
		if id, ok := dirs[path]; ok {
			return id
		}
		parent, name := -1, path
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			parent, name = int(folder(path[:i])), path[i+1:]
		}
		id := t.add(treeNode{name: name, path: path, parent: int32(parent), dir: true})
		dirs[path] = id
		return id
	}
	for _, f := range files {
		dir, name := "", f.Path
		if i := strings.LastIndexByte(f.Path, '/'); i >= 0 {
			dir, name = f.Path[:i], f.Path[i+1:]
		}
		id := t.add(treeNode{name: name, path: f.Path, parent: folder(dir), tokens: estimateTokens(f.Size), files: 1})
		t.files = append(t.files, id)
		t.paths = append(t.paths, f.Path)
		t.hashes = append(t.hashes, f.Hash)
	}
	// Parents come before their children: one pass from the end sums.
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if p := t.nodes[i].parent; p >= 0 {
			t.nodes[p].tokens += t.nodes[i].tokens
			t.nodes[p].files += t.nodes[i].files
		}
	}
	order := func(a, b int32) int {
		na, nb := &t.nodes[a], &t.nodes[b]
		if na.dir != nb.dir {
			if na.dir {
				return -1
			}
			return 1
		}
		return strings.Compare(na.name, nb.name)
	}
	slices.SortFunc(t.top, order)
	for i := range t.nodes {
		slices.SortFunc(t.nodes[i].kids, order)
	}
	return t
}

// add appends a node under its parent and returns its id.
func (t *fileTree) add(n treeNode) int32 {
	id := int32(len(t.nodes))
	if n.parent >= 0 {
		n.depth = t.nodes[n.parent].depth + 1
		t.nodes[n.parent].kids = append(t.nodes[n.parent].kids, id)
	} else {
		t.top = append(t.top, id)
	}
	t.nodes = append(t.nodes, n)
	return id
}

// treeFilter is the files that match a fuzzy query, and what that keeps
// of the folders: the matching files' tokens and count under each.
type treeFilter struct {
	query string
	cands []int32 // matching files, in path order
	best  int32   // the best scoring match, -1 for none
	hit   []bool  // by node: a match or a folder holding one
	sums  []int   // by node: tokens of the matches under it
	count []int   // by node: matches under it
}

// candidates is a fuzzy.Source over some of a tree's files.
type candidates struct {
	t   *fileTree
	ids []int32
}

func (c candidates) String(i int) string { return c.t.nodes[c.ids[i]].path }
func (c candidates) Len() int            { return len(c.ids) }

// filter matches query against the files' paths. A query that extends
// the previous one (prev) searches only prev's matches: a fuzzy match of
// "abc" is a match of "ab", so typing narrows instead of starting over.
func (t *fileTree) filter(query string, prev *treeFilter) *treeFilter {
	from := t.files
	if prev != nil && prev.query != "" && strings.HasPrefix(query, prev.query) {
		from = prev.cands
	}
	f := &treeFilter{query: query, best: -1, hit: make([]bool, len(t.nodes)),
		sums: make([]int, len(t.nodes)), count: make([]int, len(t.nodes))}
	f.cands = t.matching(query, from)
	if len(f.cands) <= scoreAtMost {
		bestScore := 0
		for _, m := range fuzzy.FindFromNoSort(query, candidates{t, f.cands}) {
			if f.best < 0 || m.Score > bestScore {
				f.best, bestScore = f.cands[m.Index], m.Score
			}
		}
	} else if len(f.cands) > 0 {
		f.best = f.cands[0]
	}
	for _, id := range f.cands {
		tok := t.nodes[id].tokens
		for n := id; n >= 0; n = t.nodes[n].parent {
			f.hit[n] = true
			f.sums[n] += tok
			f.count[n]++
		}
	}
	return f
}

// scoreAtMost is the most matches the filter ranks to pick the best:
// fuzzy's scoring allocates per path, and among thousands of matches (a
// first letter) the first in path order serves as well.
const scoreAtMost = 1000

// matching is the files among from whose path holds query's letters in
// order, ignoring case: the paths fuzzy.Find matches. An ASCII query is
// checked without fuzzy's scoring, which costs an allocation a path.
func (t *fileTree) matching(query string, from []int32) []int32 {
	var out []int32
	for i := 0; i < len(query); i++ {
		if query[i] >= utf8.RuneSelf {
			for _, m := range fuzzy.FindFromNoSort(query, candidates{t, from}) {
				out = append(out, from[m.Index])
			}
			return out
		}
	}
	q := []byte(strings.ToLower(query))
	for _, id := range from {
		if subsequence(q, t.nodes[id].path) {
			out = append(out, id)
		}
	}
	return out
}

// subsequence says whether the bytes of q (lower case ASCII) appear in
// order in s, ignoring ASCII case.
func subsequence(q []byte, s string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(q); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == q[j] {
			j++
		}
	}
	return j == len(q)
}

// under is the file nodes under id (id itself for a file), in path
// order, only the matching ones when f is set.
func (t *fileTree) under(id int32, f *treeFilter) []int32 {
	var out []int32
	var walk func(id int32)
	walk = func(id int32) {
		n := &t.nodes[id]
		if f != nil && !f.hit[id] {
			return
		}
		if !n.dir {
			out = append(out, id)
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(id)
	return out
}
