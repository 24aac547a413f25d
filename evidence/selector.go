package evidence

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/index/related"
)

// Selector is seed 003's file[::range][#tags], plus path::@Symbol and a bare
// @Symbol that the index resolves to its file.
type Selector struct {
	related.Target
}

// String renders the selector back in its syntax.
func (s Selector) String() string {
	if s.Path == "" && s.Symbol != "" {
		out := "@" + s.Symbol
		if len(s.Tags) > 0 {
			out += "#" + strings.Join(s.Tags, ",")
		}
		return out
	}
	return s.Target.String()
}

// ParseSelector reads a selector. Errors are *related.SyntaxError, which
// point at the offending character.
func ParseSelector(s string) (Selector, error) {
	if sym, ok := strings.CutPrefix(s, "@"); ok {
		t, err := related.ParseTarget("x::@" + sym)
		if err != nil {
			se := err.(*related.SyntaxError)
			se.Input, se.Offset = s, max(0, se.Offset-3)
			return Selector{}, se
		}
		t.Path = ""
		return Selector{t}, nil
	}
	if !strings.Contains(s, "::") {
		// Tags without a range: "core/flow.sh#flow,manager". A file whose
		// name holds '#' is taken whole when it exists.
		if i := strings.LastIndexByte(s, '#'); i > 0 {
			if _, err := os.Stat(filepath.FromSlash(s)); err != nil {
				t, err := related.ParseTarget(s[:i])
				if err != nil {
					return Selector{}, err
				}
				t.Tags = splitTags(s[i+1:])
				return Selector{t}, nil
			}
		}
	}
	t, err := related.ParseTarget(s)
	if err != nil {
		return Selector{}, err
	}
	return Selector{t}, nil
}

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
