package related

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/store"
)

const (
	// maxPerName is how many equally close definitions one called name
	// may resolve to; more make the name ambiguous and it is skipped.
	maxPerName = 3
	// ambiguousDefs is how many definitions in the workspace make a name
	// too common to search callers of when a target defines several names
	// (String, Error, Close ...).
	ambiguousDefs = 12
)

// callable are the symbol kinds "name(" can invoke: functions, methods and
// the constructors or conversions of types.
var callable = map[string]bool{"function": true, "method": true, "class": true, "struct": true, "type": true, "record": true}

// lookup returns the callable definitions of name (exact case) in the
// target's language family.
func (e *expander) lookup(name string) ([]store.Symbol, error) {
	if syms, ok := e.syms[name]; ok {
		return syms, nil
	}
	var out []store.Symbol
	err := e.tx.SymbolsWithPrefix(strings.ToLower(name)+"\x00", func(s store.Symbol) bool {
		if s.Name == name && callable[s.Kind] && familyOf(s.Path) == e.fam {
			out = append(out, s)
		}
		return true
	})
	e.syms[name] = out
	return out, err
}

// chunkAt is the smallest chunk holding byte off, or -1.
func chunkAt(chunks []store.Chunk, off int) int {
	best := -1
	for i, c := range chunks {
		if off < c.StartByte || off >= c.EndByte {
			continue
		}
		if best < 0 || c.EndByte-c.StartByte < chunks[best].EndByte-chunks[best].StartByte {
			best = i
		}
	}
	return best
}

func listNames(names []string) string {
	slices.Sort(names)
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}
