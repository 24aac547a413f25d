package search

import (
	"bytes"
	"sort"
)

// pathTable is the snapshot's path table as stored: paths separated by
// NUL, in path order when Rebuild wrote it, with where each starts. A
// query turns into strings only the paths it returns: splitting the whole
// table (10k paths, 400 KB) was most of what a one-shot query allocated.
type pathTable struct {
	table []byte
	offs  []uint32          // start of each path, then len(table)+1
	nums  map[string]uint32 // nil when the table is in path order (see num)
}

// newPathTable indexes table, which must hold n paths; false when it does
// not. The table is kept, not copied.
func newPathTable(table []byte, n int) (pathTable, bool) {
	t := pathTable{table: table, offs: make([]uint32, 0, n+1)}
	if n > 0 {
		for at := 0; ; {
			t.offs = append(t.offs, uint32(at))
			i := bytes.IndexByte(table[at:], pathSep[0])
			if i < 0 {
				break
			}
			at += i + 1
		}
	}
	t.offs = append(t.offs, uint32(len(table)+1))
	if len(t.offs) != n+1 || n == 0 && len(table) > 0 {
		return pathTable{}, false
	}
	for i := 1; i < n; i++ {
		if bytes.Compare(t.bytes(i-1), t.bytes(i)) >= 0 {
			// A snapshot Rebuild wrote is in path order; another gets a map.
			t.nums = make(map[string]uint32, n)
			for j := range n {
				t.nums[t.path(j)] = uint32(j)
			}
			break
		}
	}
	return t, true
}

// len is the number of paths.
func (t *pathTable) len() int { return max(len(t.offs)-1, 0) }

// bytes returns path n, as stored.
func (t *pathTable) bytes(n int) []byte { return t.table[t.offs[n] : t.offs[n+1]-1] }

// path returns path n.
func (t *pathTable) path(n int) string { return string(t.bytes(n)) }

// hasPrefix reports whether path n starts with prefix.
func (t *pathTable) hasPrefix(n int, prefix string) bool {
	b := t.bytes(n)
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// num is the number of path p: found by binary search, as the table is in
// path order (a map of 10k paths was a tenth of a one-shot query's time),
// or in nums when it is not. It compares the stored bytes in place: a
// string made of each path it passes was most of what the vector leg of a
// one-shot query allocated.
func (t *pathTable) num(p string) (uint32, bool) {
	if t.nums != nil {
		n, ok := t.nums[p]
		return n, ok
	}
	n := t.len()
	i, found := sort.Find(n, func(i int) int { return -compareBytes(t.bytes(i), p) })
	return uint32(i), found
}

// compareBytes is strings.Compare(string(b), s) without making the string.
func compareBytes(b []byte, s string) int {
	for i := range min(len(b), len(s)) {
		if b[i] != s[i] {
			if b[i] < s[i] {
				return -1
			}
			return 1
		}
	}
	return cmpInt(len(b), len(s))
}
