package trace

import (
	"strings"
)

// nativeState follows gcc and rustc diagnostics, whose secondary locations
// (notes, include chains, ":::" spans) belong to the diagnostic above.
type nativeState struct {
	gccMsg       string // "error: ..." of the current diagnostic
	gccFrame     int    // next secondary frame number
	gccFunc      string // from "a.c: In function 'main':"
	gccFuncFile  string
	gccIncl      []int // include-chain refs waiting for their diagnostic
	rustMsg      string
	rustFrame    int
	rustPanicRef int // the last panic's ref, whose message backtraces share; -1 if none
}

var (
	// "src/a.c:10:5: error: msg"; also clang, mypy, shellcheck -f gcc,
	// rustc --error-format=short.
	gccDiagRe = lazyRegexp(`^(\S+?):(\d+):(?:(\d+):)? ((fatal error|error|warning|note|remark|help)(?:\[[\w-]+\])?: .*)$`)
	gccInclRe = lazyRegexp(`^(?:In file included|\s+) from (\S+?):(\d+)(?::(\d+))?[:,]$`)
	gccFuncRe = lazyRegexp(`^(\S+?): In (?:member )?function ['‘](.+?)['’]:$`)
	// "error[E0308]: mismatched types", the head of a rustc diagnostic.
	rustHdrRe = lazyRegexp(`^(?:error|warning)(?:\[\w+\])?: .*$`)
	// "  --> src/main.rs:10:5" (primary) and "  ::: src/lib.rs:3:1".
	rustSpanRe = lazyRegexp(`^\s*(-->|:::) (.+?):(\d+):(\d+)$`)
	// Rust 1.73+: "thread 'main' panicked at src/main.rs:5:9:" (newer
	// releases add the thread id: "thread 'main' (8488) panicked at") with
	// the message on the next line; older: "... panicked at 'msg', src/main.rs:5:9".
	rustPanicRe    = lazyRegexp(`^thread '(.*?)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$`)
	rustPanicOldRe = lazyRegexp(`^thread '(.*?)' panicked at '(.*)', (.+?):(\d+):(\d+)$`)
	// A RUST_BACKTRACE frame: "  12: crate::f" then "      at ./src/lib.rs:5:9".
	rustBtFnRe = lazyRegexp(`^\s*(\d+): (\S.*)$`)
	rustBtAtRe = lazyRegexp(`^\s+at (.+?):(\d+):(\d+)$`)
)

// gccLine handles gcc-style diagnostics, their notes and include chains.
func (p *parser) gccLine(s string) bool {
	if strings.Contains(s, ": In ") {
		if m := gccFuncRe().FindStringSubmatch(s); m != nil {
			p.gccFuncFile, p.gccFunc = m[1], m[2]
			return true
		}
	}
	if strings.Contains(s, " from ") && p.gccInclude(s) {
		return true
	}
	if !strings.Contains(s, ": ") || strings.IndexByte(s, ':') > strings.IndexByte(s, ' ') {
		return false // the path, up to the first colon, has no spaces
	}
	m := gccDiagRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	line := num(m[2])
	col := num(m[3])
	r := Ref{Path: m[1], Line: line, Col: col, Message: m[4], Format: FormatGCC}
	if strings.HasSuffix(r.Path, ".rs") {
		r.Format = FormatRustc
	}
	if r.Path == p.gccFuncFile {
		r.Func = p.gccFunc
	}
	if m[5] == "note" || m[5] == "help" {
		p.gccFrame++
		r.Frame, r.Message = p.gccFrame, p.gccMsg
		p.emit(r)
		return true
	}
	p.gccMsg = clip(m[4])
	for _, i := range p.gccIncl {
		p.refs[i].Message = p.gccMsg
	}
	if len(p.gccIncl) > 0 {
		r.Failure = p.refs[p.gccIncl[0]].Failure // the chain leads to it
	}
	p.gccFrame = len(p.gccIncl)
	p.gccIncl = p.gccIncl[:0]
	p.emit(r)
	return true
}

// gccInclude handles a line of an include chain ("In file included from
// a.c:3:", "                 from b.h:5,"); its refs wait for the
// diagnostic below them to learn their message.
func (p *parser) gccInclude(s string) bool {
	m := gccInclRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	if len(p.gccIncl) == 0 {
		p.failure++ // the chain opens the diagnostic below it
	}
	i := p.emit(Ref{Path: m[1], Line: num(m[2]), Col: num(m[3]), Format: FormatGCC,
		Frame: len(p.gccIncl) + 1, Failure: p.failure})
	if i >= 0 {
		p.gccIncl = append(p.gccIncl, i)
	}
	return true
}

// rustLine handles rustc's "-->" spans, panics and backtrace frames.
func (p *parser) rustLine(s string) bool {
	if rustHdrRe().MatchString(s) {
		p.rustMsg, p.rustFrame = clip(s), 0
		return false // nothing here names a file; let others look
	}
	t := strings.TrimLeft(s, " ")
	if strings.HasPrefix(t, "--> ") || strings.HasPrefix(t, "::: ") {
		m := rustSpanRe().FindStringSubmatch(s)
		if m == nil {
			return false
		}
		line := num(m[3])
		col := num(m[4])
		r := Ref{Path: m[2], Line: line, Col: col, Message: p.rustMsg,
			Format: FormatRustc, Frame: p.rustFrame}
		if m[1] == ":::" && r.Frame == 0 {
			r.Frame = 1
		}
		if p.emit(r) >= 0 {
			p.rustFrame = r.Frame + 1
		}
		return true
	}
	if strings.HasPrefix(s, "thread '") {
		return p.rustPanic(s)
	}
	if strings.HasPrefix(t, "at ") && t != s {
		return p.rustBacktrace(s)
	}
	return false
}

// rustPanic handles both shapes of "thread 'x' panicked at"; Func is the
// thread's name, which for cargo test is the test's path.
func (p *parser) rustPanic(s string) bool {
	if m := rustPanicRe().FindStringSubmatch(s); m != nil {
		line := num(m[3])
		col := num(m[4])
		p.rustPanicRef = p.emit(Ref{Path: m[2], Line: line, Col: col, Func: m[1], Format: FormatRustc})
		if p.rustPanicRef >= 0 {
			p.msgNext = append(p.msgNext, p.rustPanicRef)
		}
		return true
	}
	if m := rustPanicOldRe().FindStringSubmatch(s); m != nil {
		line := num(m[4])
		col := num(m[5])
		p.rustPanicRef = p.emit(Ref{Path: m[3], Line: line, Col: col, Func: m[1], Message: m[2], Format: FormatRustc})
		return true
	}
	return false
}

// rustBacktrace handles "at path:line:col" under a numbered frame line;
// Frame is the number Rust printed, which already counts innermost-first.
func (p *parser) rustBacktrace(s string) bool {
	fm := rustBtFnRe().FindStringSubmatch(p.prev)
	if fm == nil {
		return false
	}
	m := rustBtAtRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	frame := num(fm[1])
	if frame < 0 {
		return false
	}
	line := num(m[2])
	col := num(m[3])
	r := Ref{Path: m[1], Line: line, Col: col, Func: fm[2], Format: FormatRustc, Frame: frame}
	if p.rustPanicRef >= 0 {
		r.Message = p.refs[p.rustPanicRef].Message
		r.Failure = p.refs[p.rustPanicRef].Failure
	} else if frame == 0 {
		p.failure++ // a backtrace without its panic line
		r.Failure = p.failure
	}
	p.emit(r)
	return true
}
