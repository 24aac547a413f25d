package search

import "encoding/binary"

// docRange is a run of snapshot documents, [from, to).
type docRange struct{ from, to int }

// docRanges walks sorted, disjoint runs of documents along with documents
// visited in increasing order.
type docRanges struct {
	rs []docRange
	i  int
}

// has reports whether d is in a run; d must not be below the last asked.
func (r *docRanges) has(d int) bool {
	for r.i < len(r.rs) && r.rs[r.i].to <= d {
		r.i++
	}
	return r.i < len(r.rs) && r.rs[r.i].from <= d
}

// pathRuns returns the runs of documents of the snapshot's paths that
// drop reports true for, in document order (a path's documents are a run,
// and paths' runs are in path number order: see consistent).
func (v *view) pathRuns(drop func(n int) bool) []docRange {
	var out []docRange
	for n := range v.e.snap.meta.Paths {
		if !drop(n) {
			continue
		}
		pi := getPathInfo(v.pathInfo, n)
		from, to := int(pi.first), int(pi.first+pi.n)
		if k := len(out) - 1; k >= 0 && out[k].to == from {
			out[k].to = to
		} else if to > from {
			out = append(out, docRange{from, to})
		}
	}
	return out
}

// dirtyDocs returns the runs of the snapshot's documents of dirty files;
// nil when none is.
func (v *view) dirtyDocs() []docRange {
	if len(v.dirtyNum) == 0 {
		return nil
	}
	return v.pathRuns(func(n int) bool { return v.dirtyNum[uint32(n)] })
}

// postingReader walks a postings list (after its document frequency):
// delta-coded document numbers, each with its term frequency and length.
type postingReader struct {
	pl    []byte
	nd, d int // documents in the snapshot; the last document read (-1 before)
	err   error
}

// next returns the next document, its term frequency and its length;
// false at the end of the list or on damage (err set).
func (r *postingReader) next() (d int, tf, dl uint64, ok bool) {
	if len(r.pl) == 0 {
		return 0, 0, 0, false
	}
	delta, n := binary.Uvarint(r.pl)
	if n <= 0 {
		r.err = errRecord
		return 0, 0, 0, false
	}
	tf, m := binary.Uvarint(r.pl[n:])
	if m <= 0 {
		r.err = errRecord
		return 0, 0, 0, false
	}
	dl, k := binary.Uvarint(r.pl[n+m:])
	if k <= 0 {
		r.err = errRecord
		return 0, 0, 0, false
	}
	r.pl = r.pl[n+m+k:]
	if r.d < 0 {
		r.d = int(delta)
	} else {
		r.d += int(delta)
	}
	if r.d >= r.nd {
		r.err = errRecord
		return 0, 0, 0, false
	}
	return r.d, tf, dl, true
}

// postingsWalk walks several postings lists in document order: a min-heap
// of the lists by their current document, ties by the order they were
// added in (term order), so one document's postings come in term order.
type postingsWalk struct {
	lists []postingList
	heap  []int // indices into lists
	err   error
}

type postingList struct {
	r      postingReader
	d      int     // current document
	tf, dl float64 // its term frequency and length
	idf    float64 // the term's weight
}

// add adds a list (empty ones are dropped).
func (w *postingsWalk) add(r postingReader, idf float64) {
	l := postingList{r: r, idf: idf}
	if !l.next() {
		if r := l.r.err; r != nil && w.err == nil {
			w.err = r
		}
		return
	}
	w.lists = append(w.lists, l)
	w.heap = append(w.heap, len(w.lists)-1)
	w.up(len(w.heap) - 1)
}

func (l *postingList) next() bool {
	d, tf, dl, ok := l.r.next()
	l.d, l.tf, l.dl = d, float64(tf), float64(dl)
	return ok
}

// doc is the smallest current document.
func (w *postingsWalk) doc() int { return w.lists[w.heap[0]].d }

// take returns the term frequency, document length and weight of the
// first list of the smallest document and moves that list on; err is set
// on damage.
func (w *postingsWalk) take() (tf, dl, idf float64) {
	l := &w.lists[w.heap[0]]
	tf, dl, idf = l.tf, l.dl, l.idf
	if !l.next() {
		if l.r.err != nil && w.err == nil {
			w.err = l.r.err
		}
		last := len(w.heap) - 1
		w.heap[0] = w.heap[last]
		w.heap = w.heap[:last]
	}
	w.down(0)
	return tf, dl, idf
}

func (w *postingsWalk) less(i, j int) bool {
	a, b := w.heap[i], w.heap[j]
	if da, db := w.lists[a].d, w.lists[b].d; da != db {
		return da < db
	}
	return a < b
}

func (w *postingsWalk) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !w.less(i, p) {
			return
		}
		w.heap[i], w.heap[p] = w.heap[p], w.heap[i]
		i = p
	}
}

func (w *postingsWalk) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(w.heap) {
			return
		}
		if c+1 < len(w.heap) && w.less(c+1, c) {
			c++
		}
		if !w.less(c, i) {
			return
		}
		w.heap[i], w.heap[c] = w.heap[c], w.heap[i]
		i = c
	}
}
