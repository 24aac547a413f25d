package trace

import (
	"strings"
)

// pyState follows pytest's failure sections.
type pyState struct {
	pyTest string // the test named by the section header
	pyDef  string // the last "def name(" shown since the previous ref
}

var (
	// `  File "/abs/x.py", line 12, in handler`; SyntaxError blocks omit
	// the ", in" part.
	pyFileRe = lazyRegexp(`^\s*File "([^"]+)", line (\d+)(?:, in (.+?))?\s*$`)
	// "____ test_name ____" opens a failure section; the "_ _ _" separator
	// between frames does not match.
	pytestHdrRe = lazyRegexp(`^_{2,} (.+?) _{2,}$`)
	// "tests/test_x.py:34: AssertionError" (long) or "...:34: in test_x"
	// (--tb=short); a bare "path:line: " marks a frame that did not raise.
	pytestLocRe = lazyRegexp(`^([^\s:]+\.py):(\d+):(?: (?:in ([\w.<>]+)|([A-Za-z_][\w.]*))?)?\s*$`)
	// "FAILED tests/test_x.py::test_add - assert 3 == 4"
	pytestSummaryRe = lazyRegexp(`^(?:FAILED|ERROR) (\S+?\.py)(?:::(\S+))?(?: - (.*))?$`)
	pyDefRe         = lazyRegexp(`^\s+(?:async )?def (\w+)\(`)
)

// pyLine handles Python tracebacks. Frames are printed outermost-first, and
// the exception line comes after them, so the block is renumbered and given
// its message when it ends.
func (p *parser) pyLine(s string) bool {
	if strings.HasPrefix(s, "Traceback (most recent call last)") {
		p.begin(FormatPython, true)
		return true
	}
	if !strings.Contains(s, `File "`) {
		return false
	}
	m := pyFileRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	if !p.blk.open || p.blk.kind != FormatPython {
		p.begin(FormatPython, true)
	}
	if strings.HasPrefix(m[1], "<") { // <stdin>, <frozen importlib._bootstrap>
		return true
	}
	line := num(m[2])
	p.emitFrame(Ref{Path: m[1], Line: line, Func: m[3], Format: FormatPython})
	return true
}

// pyContinue ends a traceback at its first unindented line, which is the
// exception ("ValueError: bad input") and so the block's message.
func (p *parser) pyContinue(s string, blank bool) {
	if blank || isIndented(s) || strings.HasPrefix(s, "Traceback ") {
		return
	}
	p.setMsg(s)
	p.end()
}

// pytestLine handles pytest's section headers, frame locations and
// short summary lines.
func (p *parser) pytestLine(s string) bool {
	if strings.HasPrefix(s, "__") {
		m := pytestHdrRe().FindStringSubmatch(s)
		if m == nil {
			return false
		}
		p.begin(FormatPytest, true)
		p.pyTest, p.pyDef = m[1], ""
		return true
	}
	if strings.HasPrefix(s, "FAILED ") || strings.HasPrefix(s, "ERROR ") {
		m := pytestSummaryRe().FindStringSubmatch(s)
		if m == nil {
			return false
		}
		p.emit(Ref{Path: m[1], Func: m[2], Message: m[3], Format: FormatPytest, Summary: true})
		return true
	}
	if !strings.Contains(s, ".py:") {
		return false
	}
	m := pytestLocRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	if !p.blk.open || p.blk.kind != FormatPytest {
		p.begin(FormatPytest, true)
	}
	fn := m[3]
	if fn == "" {
		fn = p.pyDef
	}
	if fn == "" && len(p.blk.members) == 0 {
		fn = p.pyTest // the first frame is the test itself
	}
	p.pyDef = ""
	if m[4] != "" {
		p.setMsg(m[4]) // the exception type, when no "E" line said more
	}
	line := num(m[2])
	p.emitFrame(Ref{Path: m[1], Line: line, Func: fn, Format: FormatPytest})
	return true
}

// pytestContinue reads a failure section: its first "E   ..." line is the
// message, "def name(" lines name the frames of the long format, and a
// "=====" rule ends it.
func (p *parser) pytestContinue(s string) {
	switch {
	case strings.HasPrefix(s, "E "):
		p.setMsg(s[1:])
	case strings.HasPrefix(s, "==="):
		p.end()
	default:
		if m := pyDefRe().FindStringSubmatch(s); m != nil {
			p.pyDef = m[1]
		}
	}
}
