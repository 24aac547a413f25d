package trace

import "strings"

var (
	// " FAIL  src/a.test.ts > suite > test name": Vitest's failure header.
	vitestHdrRe = lazyRegexp(`^ ?FAIL {1,2}(\S+\.\w+) > (.+)$`)
	// " ❯ check src/a.ts:6:27" or " ❯ src/a.test.ts:5:3": a stack frame,
	// innermost first.
	vitestFrameRe = lazyRegexp(`^\s*❯ (?:(\S+) )?(\S+\.[cm]?[jt]sx?):(\d+):(\d+)$`)
)

// vitestLine handles a Vitest failure: its header opens a block, whose
// message is the next line and whose frames are its "❯" lines.
func (p *parser) vitestLine(s string) bool {
	if m := vitestHdrRe().FindStringSubmatch(s); m != nil {
		p.begin(FormatVitest, false)
		return true
	}
	if p.blk.kind != FormatVitest {
		return false
	}
	m := vitestFrameRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	p.emitFrame(Ref{Path: m[2], Line: num(m[3]), Col: num(m[4]), Func: m[1], Format: FormatVitest})
	return true
}

// vitestContinue gives a Vitest block its message (the first line under
// the header) and ends it at the "⎯⎯⎯[1/2]⎯" rule that closes it.
func (p *parser) vitestContinue(s string, blank bool) {
	switch {
	case blank:
	case strings.HasPrefix(s, "⎯"):
		p.end()
	case p.blk.msg == "" && p.blk.frames == 0:
		p.setMsg(s)
	}
}
