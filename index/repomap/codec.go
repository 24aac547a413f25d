package repomap

import (
	"encoding/binary"
	"errors"
	"math"
)

// A graph is encoded as a sequence of uvarints, strings (a length and the
// bytes) and float64 bits, in field order; the weights keep their exact
// bits, so a decoded graph ranks exactly as the one encoded. Decoding
// takes the strings as substrings of one copy of the data, so that a
// graph of 200k definitions decodes without an allocation per string.

// graphMagic starts an encoding; its last byte is the layout's version.
const graphMagic = "repomap\x01"

// MarshalBinary encodes the graph (see UnmarshalGraph).
func (g *Graph) MarshalBinary() ([]byte, error) {
	b := []byte(graphMagic)
	u := func(v int) { b = binary.AppendUvarint(b, uint64(v)) }
	str := func(s string) { b = AppendString(b, s) }
	u(len(g.Files))
	for _, f := range g.Files {
		str(f)
	}
	u(len(g.names))
	for _, n := range g.names {
		str(n)
	}
	u(len(g.Defs))
	for i, d := range g.Defs {
		u(g.index[d.Path])
		u(int(g.defName[i]))
		u(d.Line)
		str(d.Text)
	}
	for _, ds := range g.definers {
		u(len(ds))
		for _, f := range ds {
			u(int(f))
		}
	}
	for _, ms := range g.mentions {
		u(len(ms))
		for _, m := range ms {
			u(int(m.name))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.w))
		}
	}
	return b, nil
}

// errDamaged is a graph encoding that is cut short or names what it lacks.
var errDamaged = errors.New("repo map graph: damaged encoding")

// Reader reads an encoding of uvarints, strings and float64 bits (the
// graph's, and the rows a cache keeps beside it); its error is set at
// the first fault (errDamaged), after which every read gives zero.
type Reader struct {
	s   string
	err error
}

// NewReader reads s; the strings it gives are substrings of s.
func NewReader(s string) *Reader { return &Reader{s: s} }

// Err is the first fault, or an error when bytes are left over.
func (r *Reader) Err() error {
	if r.err == nil && len(r.s) != 0 {
		return errDamaged
	}
	return r.err
}

// AppendString appends s as a Reader's Str reads it.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// U reads a uvarint up to MaxInt32.
func (r *Reader) U() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint([]byte(r.s[:min(len(r.s), binary.MaxVarintLen64)]))
	if n <= 0 || v > math.MaxInt32 {
		r.err = errDamaged
		return 0
	}
	r.s = r.s[n:]
	return int(v)
}

// index reads an id below n.
func (r *Reader) index(n int) int {
	v := r.U()
	if v >= n {
		r.err = errDamaged
		return 0
	}
	return v
}

// Str reads a string.
func (r *Reader) Str() string {
	n := r.U()
	if r.err != nil || n > len(r.s) {
		r.err = errDamaged
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// Count reads a length no larger than the bytes left.
func (r *Reader) Count() int {
	n := r.U()
	if n > len(r.s) {
		r.err = errDamaged
		return 0
	}
	return n
}

func (r *Reader) float() float64 {
	if r.err != nil || len(r.s) < 8 {
		r.err = errDamaged
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[:8])))
	r.s = r.s[8:]
	return v
}

// UnmarshalGraph decodes what MarshalBinary encoded. A damaged encoding
// is an error, never a panic later.
func UnmarshalGraph(data []byte) (*Graph, error) {
	s := string(data)
	if len(s) < len(graphMagic) || s[:len(graphMagic)] != graphMagic {
		return nil, errDamaged
	}
	r := NewReader(s[len(graphMagic):])
	g := &Graph{}
	g.Files = make([]string, r.Count())
	g.index = make(map[string]int, len(g.Files))
	for i := range g.Files {
		g.Files[i] = r.Str()
		g.index[g.Files[i]] = i
	}
	g.names = make([]string, r.Count())
	for i := range g.names {
		g.names[i] = r.Str()
	}
	nd := r.Count()
	g.Defs, g.defName = make([]Def, nd), make([]int32, nd)
	for i := 0; i < nd && r.err == nil; i++ {
		f, name := r.index(len(g.Files)), r.index(len(g.names))
		line, text := r.U(), r.Str()
		if r.err == nil {
			g.Defs[i] = Def{Path: g.Files[f], Name: g.names[name], Line: line, Text: text}
			g.defName[i] = int32(name)
		}
	}
	g.definers = make([][]int32, len(g.names))
	for i := range g.definers {
		for range r.Count() {
			g.definers[i] = append(g.definers[i], int32(r.index(len(g.Files))))
		}
	}
	g.mentions = make([][]mention, len(g.Files))
	for i := range g.mentions {
		n := r.Count()
		if n > 0 {
			g.mentions[i] = make([]mention, 0, n)
		}
		for range n {
			g.mentions[i] = append(g.mentions[i], mention{int32(r.index(len(g.names))), r.float()})
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return g, nil
}
