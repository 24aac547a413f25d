package discover

import (
	"slices"
	"strings"
)

// The watcher's updates edit a tree file by file (Put, Drop), so that the
// tree goes on telling the state of every file, and the skips a walk
// would count, between walks.

// Put records rel as a file of the tree with its size, mtime and state
// (see Set), adding it when the tree does not hold it. A file added to a
// directory the tree does not hold makes the tree unusable. A directory
// whose files change is read again by the next Check, which then finds
// its entries changed: the tree never trusts a listing it did not read.
func (t *Tree) Put(rel string, size, mtime int64, state string) {
	dir, name := splitRel(rel)
	d := t.dir(dir)
	if d == nil {
		t.breakOn(rel)
		return
	}
	i, found := slices.BinarySearchFunc(d.files, name, func(f treeFile, name string) int { return strings.Compare(f.name, name) })
	if !found {
		d.files = slices.Insert(d.files, i, treeFile{name: name})
		d.mtime = 0
	}
	d.files[i].size, d.files[i].mtime, d.files[i].state = size, mtime, state
}

// Drop removes rel from the tree's files, when it holds it.
func (t *Tree) Drop(rel string) {
	dir, name := splitRel(rel)
	if d := t.dir(dir); d != nil {
		if i, found := slices.BinarySearchFunc(d.files, name, func(f treeFile, name string) int { return strings.Compare(f.name, name) }); found {
			d.files = slices.Delete(d.files, i, i+1)
			d.mtime = 0
		}
	}
}

// dir is the directory rel of the tree, nil when it holds none.
func (t *Tree) dir(rel string) *treeDir {
	if t.dirAt == nil {
		t.dirAt = make(map[string]int, len(t.dirs))
		for i, d := range t.dirs {
			t.dirAt[d.rel] = i
		}
	}
	if i, ok := t.dirAt[rel]; ok {
		return &t.dirs[i]
	}
	return nil
}

func (t *Tree) breakOn(rel string) {
	if t.broken == "" {
		t.broken = "a file outside the recorded tree changed: " + rel
	}
}

func splitRel(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}
