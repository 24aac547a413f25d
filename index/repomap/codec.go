package repomap

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// graphWire is a Graph as it is encoded: every field, the weights as
// their exact bits (gob keeps a float64 whole), so that a decoded graph
// ranks exactly as the one encoded.
type graphWire struct {
	Files    []string
	Defs     []Def
	Names    []string
	DefName  []int32
	Definers [][]int32
	// MentionNames[i] and MentionWeights[i] are file i's mentions.
	MentionNames   [][]int32
	MentionWeights [][]float64
}

// MarshalBinary encodes the graph (see UnmarshalGraph).
func (g *Graph) MarshalBinary() ([]byte, error) {
	w := graphWire{Files: g.Files, Defs: g.Defs, Names: g.names, DefName: g.defName, Definers: g.definers,
		MentionNames: make([][]int32, len(g.mentions)), MentionWeights: make([][]float64, len(g.mentions))}
	for i, ms := range g.mentions {
		for _, m := range ms {
			w.MentionNames[i] = append(w.MentionNames[i], m.name)
			w.MentionWeights[i] = append(w.MentionWeights[i], m.w)
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&w); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalGraph decodes what MarshalBinary encoded, checking that its
// ids are in range: a damaged encoding is an error, never a panic later.
func UnmarshalGraph(data []byte) (*Graph, error) {
	var w graphWire
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return nil, fmt.Errorf("repo map graph: %w", err)
	}
	bad := len(w.DefName) != len(w.Defs) || len(w.Definers) != len(w.Names) ||
		len(w.MentionNames) > len(w.Files) || len(w.MentionWeights) != len(w.MentionNames)
	g := &Graph{Files: w.Files, Defs: w.Defs, names: w.Names, defName: w.DefName, definers: w.Definers,
		mentions: make([][]mention, len(w.Files)), index: make(map[string]int, len(w.Files))}
	for i, p := range w.Files {
		g.index[p] = i
	}
	for i := 0; !bad && i < len(w.MentionNames); i++ {
		ns, ws := w.MentionNames[i], w.MentionWeights[i]
		bad = len(ns) != len(ws)
		for j := 0; !bad && j < len(ns); j++ {
			bad = ns[j] < 0 || int(ns[j]) >= len(w.Names)
			g.mentions[i] = append(g.mentions[i], mention{ns[j], ws[j]})
		}
	}
	for _, id := range w.DefName {
		bad = bad || id < 0 || int(id) >= len(w.Names)
	}
	for _, ds := range w.Definers {
		for _, f := range ds {
			bad = bad || f < 0 || int(f) >= len(w.Files)
		}
	}
	for _, d := range w.Defs {
		_, ok := g.index[d.Path]
		bad = bad || !ok
	}
	if bad {
		return nil, fmt.Errorf("repo map graph: ids out of range (a damaged encoding)")
	}
	return g, nil
}
