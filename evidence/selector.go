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

// String renders the selector back in its syntax. A whole file whose
// path holds "::" gets a trailing "::", so it reads back the same.
func (s Selector) String() string {
	if s.Path == "" && s.Symbol != "" {
		out := "@" + s.Symbol
		if len(s.Tags) > 0 {
			out += "#" + strings.Join(s.Tags, ",")
		}
		return out
	}
	if strings.Contains(s.Path, "::") && s.Symbol == "" && s.Start == 0 && s.End == 0 && !s.Bytes {
		if _, sep := rangeSep(s.Path); sep >= 0 {
			t := s.Target
			t.Path += "::"
			return t.String()
		}
	}
	return s.Target.String()
}

// rangeSep finds the "::" that ends the path: the last one followed by
// what starts a range or a symbol (a digit or '@'), or by nothing or
// '#' (a trailing "::", which ends a path that holds "::" itself; after
// any other path it is a range left out, an error). sep
// is its index, or -1 when s is a path with no range; trailing reports
// the second kind.
func rangeSep(s string) (trailing bool, sep int) {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], "::")
		if i < 0 {
			return false, -1
		}
		rest := s[i+2:]
		switch {
		case rest == "" || rest[0] == '#':
			return true, i
		case rest[0] == '@' || rest[0] >= '0' && rest[0] <= '9':
			return false, i
		}
		end = i
	}
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
	if sel.Bytes && sel.End != 0 && sel.End <= sel.Start {
		comma := strings.LastIndexByte(s, ',')
		if h := strings.IndexByte(s[max(0, strings.LastIndex(s, "::")):], '#'); h >= 0 {
			comma = strings.LastIndexByte(s[:strings.LastIndex(s, "::")+h], ',')
		}
		return Selector{}, &related.SyntaxError{Input: s, Offset: max(0, comma+1),
			Msg: fmt.Sprintf("the byte range %dc,%dc is empty: the end byte is not included, so %dc,%dc is byte %d alone", sel.Start, sel.End, sel.Start, sel.Start+1, sel.Start)}
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
		return Selector{t}, related.TagStart(s), nil
	}
	trailing, sep := rangeSep(s)
	switch {
	case trailing && strings.Contains(s[:sep], "::"):
		// "a::1.txt::" or "a::1.txt::#tag": the whole file a::1.txt.
		t := related.Target{Path: s[:sep]}
		if t.Path == "" {
			return Selector{}, -1, &related.SyntaxError{Input: s, Offset: 0, Msg: "expected a file path"}
		}
		hash := -1
		if rest := s[sep+2:]; rest != "" {
			hash = sep + 2
			t.Tags = splitTags(rest[1:])
		}
		return Selector{t}, hash, nil
	case sep > 0 && strings.Contains(s[:sep], "::"):
		// A path that holds "::" before its range: parse the range alone.
		t, err := related.ParseTarget("x" + s[sep:])
		if err != nil {
			se := err.(*related.SyntaxError)
			se.Input, se.Offset = s, se.Offset-1+sep
			return Selector{}, -1, se
		}
		t.Path = s[:sep]
		return Selector{t}, hashAfter(s, sep), nil
	case sep < 0 && strings.Contains(s, "::"):
		// "a::b.txt": no range follows any "::", so it is all path.
		s0 := s
		if i := strings.LastIndexByte(s, '#'); i > strings.LastIndex(s, "::") {
			s0 = s[:i]
			t := related.Target{Path: s0, Tags: splitTags(s[i+1:])}
			return Selector{t}, i, nil
		}
		return Selector{related.Target{Path: s0}}, -1, nil
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
	return Selector{t}, hashAfter(s, strings.Index(s, "::")), nil
}

// hashAfter is where the tags after the "::" at sep start, or -1.
func hashAfter(s string, sep int) int {
	if sep < 0 {
		return -1
	}
	if j := related.TagStart(s[sep+2:]); j >= 0 {
		return sep + 2 + j
	}
	return -1
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
