package tokens

import "math"

// noRank marks a pair that does not merge.
const noRank = math.MaxUint32

// shortPiece is the longest piece merged by linear scans. A scan per merge
// is O(n²) but allocation-free and fastest for the short pieces that make up
// nearly all text; long runs (a line of 3,000 "=") take the heap path.
const shortPiece = 128

// merger holds scratch space so that merging a short piece allocates
// nothing. The zero value is ready; it is not safe for concurrent use.
type merger struct {
	starts [shortPiece + 1]int32
	ranks  [shortPiece + 1]uint32
}

// merge byte-pair encodes piece the way tiktoken does: repeatedly merge
// the adjacent pair whose merged bytes have the lowest rank, the leftmost
// one among equals, until no pair is in the vocabulary. It returns the token
// boundaries: byte offsets starting with 0 and ending with len(piece). The
// result aliases m for short pieces.
func (m *merger) merge(ranks map[string]uint32, piece string) []int32 {
	if len(piece) <= 1 {
		return []int32{0, int32(len(piece))}
	}
	if len(piece) > shortPiece {
		return mergeLong(ranks, piece)
	}
	rank := func(s string) uint32 {
		if r, ok := ranks[s]; ok {
			return r
		}
		return noRank
	}
	n := len(piece)
	starts, rs := m.starts[:n+1], m.ranks[:n+1]
	for i := range starts {
		starts[i] = int32(i)
		rs[i] = noRank
	}
	for i := 0; i+2 <= n; i++ {
		rs[i] = rank(piece[i : i+2])
	}
	// rs[k] is the rank of merging part k (starts[k]:starts[k+1]) with part
	// k+1; parts are len(starts)-1.
	for {
		best, k := uint32(noRank), -1
		for i := 0; i+1 < len(starts); i++ {
			if rs[i] < best {
				best, k = rs[i], i
			}
		}
		if k < 0 {
			return starts
		}
		copy(starts[k+1:], starts[k+2:])
		copy(rs[k+1:], rs[k+2:])
		starts, rs = starts[:len(starts)-1], rs[:len(rs)-1]
		if k+2 < len(starts) {
			rs[k] = rank(piece[starts[k]:starts[k+2]])
		} else {
			rs[k] = noRank
		}
		if k > 0 {
			rs[k-1] = rank(piece[starts[k-1]:starts[k+1]])
		}
	}
}

// mergeLong returns what the scan in merge would, in O(n log n): the parts
// form a linked list and candidate merges sit in a heap ordered by (rank,
// offset), so the leftmost lowest-rank pair still wins. Heap entries made
// stale by a neighbour's merge are skipped when popped.
func mergeLong(ranks map[string]uint32, piece string) []int32 {
	n := int32(len(piece))
	type node struct {
		prev, next int32 // neighbouring boundaries, -1 at the ends
		rank       uint32
	}
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankAt := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		if r, ok := ranks[piece[i:k]]; ok {
			return r
		}
		return noRank
	}
	h := make(pairHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankAt(i); r != noRank {
			nodes[i].rank = r
			h = append(h, pair{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.at
		if nodes[i].rank != top.rank {
			continue // stale: i was merged away or its pair changed
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[j].prev, nodes[j].next = -1, -1
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankAt(b)
			if nodes[b].rank != noRank {
				h.push(pair{nodes[b].rank, b})
			}
		}
	}
	bounds := make([]int32, 0, 16)
	for i := int32(0); i >= 0; i = nodes[i].next {
		bounds = append(bounds, i)
	}
	return bounds
}

// pair is a candidate merge of the part starting at byte at with its
// successor.
type pair struct {
	rank uint32
	at   int32
}

// pairHeap is a binary min-heap by (rank, at). It is typed rather than
// container/heap so pushes don't box.
type pairHeap []pair

func (h pairHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].at < h[b].at
}

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(p pair) {
	*h = append(*h, p)
	h.up(len(*h) - 1)
}

func (h *pairHeap) pop() pair {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h pairHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (h pairHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && h.less(r, c) {
			c = r
		}
		if !h.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
