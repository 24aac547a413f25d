package related

import (
	"fmt"
	"strconv"
	"strings"
)

// Target names what to expand: a whole file, a span of it, or the chunks of
// one symbol in it. It is seed 003's selector, file[::range][#tags], plus
// file::@Symbol.
type Target struct {
	Path string `json:"path"`
	// Start and End are 1-based lines, both included, or byte offsets
	// (End excluded) when Bytes is set (seed 003's "100c,500c"). Start 0
	// is the whole file; End 0 is to the end of the file.
	Start int  `json:"start,omitempty"`
	End   int  `json:"end,omitempty"`
	Bytes bool `json:"bytes,omitempty"`
	// Symbol selects the chunks of a function, method or type by name;
	// "Parent.Name" picks one among same-named methods, and a plain name
	// that a top-level definition has picks it alone.
	Symbol string `json:"symbol,omitempty"`
	// Tags are seed 003's "#tags"; expansion ignores them.
	Tags []string `json:"tags,omitempty"`
}

// String renders t in selector syntax; ParseTarget reads it back.
func (t Target) String() string {
	var b strings.Builder
	b.WriteString(t.Path)
	unit := ""
	if t.Bytes {
		unit = "c"
	}
	switch {
	case t.Symbol != "":
		b.WriteString("::@" + t.Symbol)
	case t.End > 0:
		fmt.Fprintf(&b, "::%d%s,%d%s", t.Start, unit, t.End, unit)
	case t.Start > 0 || t.Bytes:
		fmt.Fprintf(&b, "::%d%s", t.Start, unit)
	}
	if len(t.Tags) > 0 {
		b.WriteString("#" + strings.Join(t.Tags, ","))
	}
	return b.String()
}

// SyntaxError is a selector that does not parse. Offset is the byte of
// Input where the trouble starts, so a front-end can point at it.
type SyntaxError struct {
	Input  string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("bad selector %q: %s at column %d\n  %s\n  %s^", e.Input, e.Msg, e.Offset+1, e.Input, strings.Repeat(" ", e.Offset))
}

// ParseTarget reads PATH, PATH::N, PATH::N,M, PATH::Nc,Mc, PATH::@Symbol,
// each optionally followed by #tag,tag after the range.
func ParseTarget(s string) (Target, error) {
	bad := func(off int, format string, args ...any) (Target, error) {
		return Target{}, &SyntaxError{Input: s, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	path, sel, hasSel := strings.Cut(s, "::")
	if path == "" {
		return bad(0, "expected a file path")
	}
	t := Target{Path: path}
	if !hasSel {
		return t, nil
	}
	off := len(path) + 2
	if i := TagStart(sel); i >= 0 {
		for _, tag := range strings.Split(sel[i+1:], ",") {
			if tag = strings.TrimSpace(tag); tag != "" {
				t.Tags = append(t.Tags, tag)
			}
		}
		sel = sel[:i]
	}
	if sel == "" {
		return bad(off, "expected a line number, a byte offset (100c) or @Symbol after \"::\"")
	}
	if sym, ok := strings.CutPrefix(sel, "@"); ok {
		if sym == "" {
			return bad(off+1, "expected a symbol name after \"@\"")
		}
		if i := strings.IndexAny(sym, " \t\n\r(),"); i >= 0 {
			return bad(off+1+i, "unexpected %q in a symbol name", sym[i])
		}
		t.Symbol = privateName(sym)
		return t, nil
	}
	first, second, hasSecond := strings.Cut(sel, ",")
	var unit1, unit2 bool
	var err error
	if t.Start, unit1, err = parseBound(first); err != nil {
		return bad(off+err.(*boundError).at, "%s", err.(*boundError).msg)
	}
	t.Bytes = unit1
	if !hasSecond {
		return t, nil
	}
	off2 := off + len(first) + 1
	if t.End, unit2, err = parseBound(second); err != nil {
		return bad(off2+err.(*boundError).at, "%s", err.(*boundError).msg)
	}
	if unit1 != unit2 {
		return bad(off2, "mixed units: give both bounds in lines or both in bytes (100c,500c)")
	}
	if t.End < t.Start {
		return bad(off2, "the range ends (%d) before it starts (%d)", t.End, t.Start)
	}
	return t, nil
}

type boundError struct {
	at  int
	msg string
}

func (e *boundError) Error() string { return e.msg }

// parseBound reads "123" (a line) or "123c" (a byte offset).
func parseBound(s string) (int, bool, error) {
	digits := s
	bytesUnit := strings.HasSuffix(s, "c")
	if bytesUnit {
		digits = s[:len(s)-1]
	}
	if digits == "" {
		return 0, false, &boundError{0, "expected a number"}
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false, &boundError{i, fmt.Sprintf("unexpected %q: expected a line number (100), a byte offset (100c) or @Symbol", digits[i])}
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n > 1<<31 {
		return 0, false, &boundError{0, "number too large"}
	}
	if n == 0 && !bytesUnit {
		return 0, false, &boundError{0, "lines are numbered from 1"}
	}
	return n, bytesUnit, nil
}

// TagStart is the offset of the '#' that starts the tags of the part of a
// selector after its "::" (or after a bare @Symbol's '@' included), -1 for
// none. It is the one rule for every selector parser: a '#' right after
// '@' or '.' begins a JavaScript private name (@Hono.#dispatch), not the
// tags.
func TagStart(sel string) int {
	for i := 0; i < len(sel); i++ {
		if sel[i] == '#' && (i == 0 || sel[i-1] != '.' && sel[i-1] != '@') {
			return i
		}
	}
	return -1
}

// privateName drops the '#' of JavaScript private names from a symbol
// (Hono.#dispatch -> Hono.dispatch): the symbol map names them without it.
// A '#' that ends the symbol is no name's, and stays, so the symbol
// renders back the same.
func privateName(sym string) string {
	if !strings.Contains(sym, "#") {
		return sym
	}
	var b strings.Builder
	for i := 0; i < len(sym); i++ {
		if sym[i] == '#' && (i == 0 || sym[i-1] == '.') && i+1 < len(sym) {
			continue
		}
		b.WriteByte(sym[i])
	}
	return b.String()
}
