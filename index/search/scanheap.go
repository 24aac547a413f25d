package search

import (
	"bytes"
	"slices"
)

// docHit is a candidate of the snapshot's text scoring or vector scan: a
// document of the snapshot, by its path's number, and its score. The
// vector scan offers each of the table's hundred thousand documents, the
// text scoring each that holds a query term; a hit (a path as a string,
// boxed into an interface by container/heap) made for every one a heap
// took was most of what the vector leg allocated, and in a new process
// every fresh page of memory is a page fault.
type docHit struct {
	score float64
	path  uint32 // the path's number in the snapshot's path table
	ord   uint32
	cover float64 // text: the query IDF mass the chunk holds
}

// docHeap is hitHeap for docHits: a min-heap, the worst on top, in the
// order worse gives the hits they stand for.
type docHeap struct {
	h     []docHit
	paths *pathTable
}

// worse reports whether a ranks below b, as worse does for their hits.
func (d *docHeap) worse(a, b docHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.path != b.path {
		return bytes.Compare(d.paths.bytes(int(a.path)), d.paths.bytes(int(b.path))) > 0
	}
	return a.ord > b.ord
}

// offer adds x when the heap holds fewer than limit hits or x ranks above
// the worst of them, which it then replaces; true when it did.
func (d *docHeap) offer(x docHit, limit int) bool {
	switch {
	case len(d.h) < limit:
		d.h = append(d.h, x)
		d.up(len(d.h) - 1)
	case d.worse(d.h[0], x):
		d.h[0] = x
		d.down(0)
	default:
		return false
	}
	return true
}

func (d *docHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if i == j || !d.worse(d.h[j], d.h[i]) {
			break
		}
		d.h[i], d.h[j] = d.h[j], d.h[i]
		j = i
	}
}

func (d *docHeap) down(i int) {
	n := len(d.h)
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if r := j + 1; r < n && d.worse(d.h[r], d.h[j]) {
			j = r
		}
		if !d.worse(d.h[j], d.h[i]) {
			break
		}
		d.h[i], d.h[j] = d.h[j], d.h[i]
		i = j
	}
}

// best returns the heap of the n best of d's hits (d's own, reordered),
// so only those become hits with paths.
func (d *docHeap) best(n int) *docHeap {
	if len(d.h) > n {
		slices.SortFunc(d.h, func(a, b docHit) int {
			switch {
			case d.worse(b, a):
				return -1
			case d.worse(a, b):
				return 1
			}
			return 0
		})
		d.h = d.h[:n]
	}
	return d
}

// hits appends the heap's hits to hs, each path made a string.
func (d *docHeap) hits(hs []hit) []hit {
	for _, x := range d.h {
		hs = append(hs, hit{key: key{d.paths.path(int(x.path)), int(x.ord)}, score: x.score})
	}
	return hs
}
