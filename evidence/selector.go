package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

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
	sel, hash, err := parseSelector(s)
	if err != nil {
		return Selector{}, err
	}
	if hash >= 0 && len(sel.Tags) > 0 {
		if err := checkTags(s, hash); err != nil {
			return Selector{}, err
		}
	}
	return sel, nil
}

// parseSelector parses s and says where its tags start (the '#'), or -1.
func parseSelector(s string) (Selector, int, error) {
	if sym, ok := strings.CutPrefix(s, "@"); ok {
		t, err := related.ParseTarget("x::@" + sym)
		if err != nil {
			se := err.(*related.SyntaxError)
			se.Input, se.Offset = s, max(0, se.Offset-3)
			return Selector{}, -1, se
		}
		t.Path = ""
		return Selector{t}, strings.IndexByte(s, '#'), nil
	}
	if !strings.Contains(s, "::") {
		// Tags without a range: "core/flow.sh#flow,manager". A file whose
		// name holds '#' is taken whole when it exists.
		if i := strings.LastIndexByte(s, '#'); i > 0 {
			if _, err := os.Stat(filepath.FromSlash(s)); err != nil {
				t, err := related.ParseTarget(s[:i])
				if err != nil {
					return Selector{}, -1, err
				}
				t.Tags = splitTags(s[i+1:])
				return Selector{t}, i, nil
			}
		}
	}
	t, err := related.ParseTarget(s)
	if err != nil {
		return Selector{}, -1, err
	}
	hash := -1
	if i := strings.Index(s, "::"); i >= 0 {
		if j := strings.IndexByte(s[i+2:], '#'); j >= 0 {
			hash = i + 2 + j
		}
	}
	return Selector{t}, hash, nil
}

// tagPunct is what a tag may hold besides letters and digits. Tags go into
// provenance comments and file-name-like labels, so nothing that separates
// (',', ';', '=', '#', white space) or closes markup ('<', '>') is allowed.
const tagPunct = "_.-/:@+"

// checkTags checks the comma-separated tags after s[hash] == '#' and
// points at the first character a tag may not hold.
func checkTags(s string, hash int) error {
	off := hash + 1
	for _, seg := range strings.Split(s[hash+1:], ",") {
		lead := len(seg) - len(strings.TrimLeftFunc(seg, unicode.IsSpace))
		tag := strings.TrimSpace(seg)
		for i, r := range tag {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(tagPunct, r) {
				continue
			}
			return &related.SyntaxError{Input: s, Offset: off + lead + i,
				Msg: fmt.Sprintf("tag %q holds %q; tags take letters, digits and %s (separate tags with ',')", tag, r, strings.Join(strings.Split(tagPunct, ""), " "))}
		}
		off += len(seg) + 1
	}
	return nil
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
