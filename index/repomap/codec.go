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
	str := func(s string) { u(len(s)); b = append(b, s...) }
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

// graphReader reads an encoding; err is set at the first fault, after
// which every read gives zero.
type graphReader struct {
	s   string
	err error
}

func (r *graphReader) u() int {
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
func (r *graphReader) index(n int) int {
	v := r.u()
	if v >= n {
		r.err = errDamaged
		return 0
	}
	return v
}

func (r *graphReader) str() string {
	n := r.u()
	if r.err != nil || n > len(r.s) {
		r.err = errDamaged
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// count reads a length no larger than the bytes left could hold.
func (r *graphReader) count() int {
	n := r.u()
	if n > len(r.s) {
		r.err = errDamaged
		return 0
	}
	return n
}

func (r *graphReader) float() float64 {
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
	r := &graphReader{s: s[len(graphMagic):]}
	g := &Graph{}
	g.Files = make([]string, r.count())
	g.index = make(map[string]int, len(g.Files))
	for i := range g.Files {
		g.Files[i] = r.str()
		g.index[g.Files[i]] = i
	}
	g.names = make([]string, r.count())
	for i := range g.names {
		g.names[i] = r.str()
	}
	nd := r.count()
	g.Defs, g.defName = make([]Def, nd), make([]int32, nd)
	for i := 0; i < nd && r.err == nil; i++ {
		f, name := r.index(len(g.Files)), r.index(len(g.names))
		line, text := r.u(), r.str()
		if r.err == nil {
			g.Defs[i] = Def{Path: g.Files[f], Name: g.names[name], Line: line, Text: text}
			g.defName[i] = int32(name)
		}
	}
	g.definers = make([][]int32, len(g.names))
	for i := range g.definers {
		for range r.count() {
			g.definers[i] = append(g.definers[i], int32(r.index(len(g.Files))))
		}
	}
	g.mentions = make([][]mention, len(g.Files))
	for i := range g.mentions {
		n := r.count()
		if n > 0 {
			g.mentions[i] = make([]mention, 0, n)
		}
		for range n {
			g.mentions[i] = append(g.mentions[i], mention{int32(r.index(len(g.names))), r.float()})
		}
	}
	if r.err == nil && len(r.s) != 0 {
		r.err = errDamaged
	}
	if r.err != nil {
		return nil, r.err
	}
	return g, nil
}
