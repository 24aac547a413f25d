package trace

import (
	"strings"
)

// jsState follows Jest failure blocks and ESLint's per-file listing.
type jsState struct {
	jestSuite  string // the file of the last " FAIL  path" line
	jestCode   int    // the "> 12 |" line of the block's code frame
	eslintFile string // the file header the ESLint rows belong to
}

var (
	// "/abs/src/server.js:42", Node's first line for an uncaught error.
	nodeHdrRe = lazyRegexp(`^(\S+\.[cm]?[jt]sx?):(\d+)$`)
	// " FAIL  src/a.test.ts (5.2 s)": no tab, unlike go test's FAIL line.
	jestSuiteRe = lazyRegexp(`^ ?(?:FAIL|PASS) {1,2}(\S+\.\w+)(?: \(.*\))?\s*$`)
	jestCodeRe  = lazyRegexp(`^\s*> (\d+) \|`)
	// Babel's "SyntaxError: /abs/a.test.ts: Unexpected token (3:10)".
	jestSyntaxRe = lazyRegexp(`(\S+\.[cm]?[jt]sx?): .*\((\d+):(\d+)\)`)
	// "src/a.ts(10,5): error TS2322: ..." and the pretty
	// "src/a.ts:10:5 - error TS2322: ...".
	tscParenRe  = lazyRegexp(`^([^\s(][^(]*)\((\d+),(\d+)\): ((?:error|warning|message) TS\d+: .*)$`)
	tscPrettyRe = lazyRegexp(`^(\S+):(\d+):(\d+) - ((?:error|warning|message) TS\d+: .*)$`)
	// ESLint stylish: a file line, then "  10:5  error  message  rule".
	eslintRowRe  = lazyRegexp(`^\s+(\d+):(\d+)\s+(?:error|warning)\s+(.+?)(?:\s{2,}(\S+))?\s*$`)
	eslintFileRe = lazyRegexp(`^(?:[A-Za-z]:)?[^\s:]+\.[A-Za-z]\w*$`)
)

// nodeLine handles V8 "at" lines and Node's uncaught-error header. Frames
// are innermost-first; the message is the line just above the first one.
func (p *parser) nodeLine(s string) bool {
	t := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(t, "at ") && t != s {
		return p.nodeAt(t[3:])
	}
	if s == "" || !isDigit(s[len(s)-1]) || t != s {
		return false
	}
	if m := nodeHdrRe().FindStringSubmatch(s); m != nil {
		p.begin(FormatNode, false)
		line := num(m[2])
		p.emitFrame(Ref{Path: m[1], Line: line, Format: FormatNode})
		return true
	}
	return false
}

// nodeAt handles the text after "at ": "fn (loc)", "loc", "async fn (loc)",
// "new C (loc)". A location that is not a file (node:internal,
// <anonymous>, native) claims the line without a ref; one that does not
// parse is left to the generic matcher.
func (p *parser) nodeAt(c string) bool {
	c = strings.TrimPrefix(c, "async ")
	fn, loc := "", c
	if i := strings.Index(c, " ("); i >= 0 && strings.HasSuffix(c, ")") {
		fn, loc = c[:i], c[i+2:len(c)-1]
		fn, _, _ = strings.Cut(fn, " [as ")
	}
	loc = jsPath(loc)
	if strings.HasPrefix(loc, "node:") || strings.HasPrefix(loc, "<") ||
		strings.HasPrefix(loc, "internal/") || loc == "native" {
		p.nodeFrameSeen()
		return true
	}
	path, line, col, ok := splitLoc(loc)
	if !ok || strings.Contains(path, "(") {
		return false
	}
	p.nodeFrameSeen()
	format := FormatNode
	if p.blk.kind == FormatJest {
		format = FormatJest
	}
	p.emitFrame(Ref{Path: path, Line: line, Col: col, Func: fn, Format: format})
	return true
}

// splitLoc splits "path:line" or "path:line:col" from the right, so a
// drive letter or a colon inside the path stays in it.
func splitLoc(loc string) (path string, line, col int, ok bool) {
	tail := func(s string) (string, int) {
		i := strings.LastIndexByte(s, ':')
		if i <= 0 || i == len(s)-1 || strings.Trim(s[i+1:], "0123456789") != "" {
			return s, -1
		}
		return s[:i], num(s[i+1:])
	}
	rest, n := tail(loc)
	if n < 0 {
		return "", 0, 0, false
	}
	if r2, l := tail(rest); l >= 0 {
		return r2, l, n, true
	}
	return rest, n, 0, true
}

// nodeFrameSeen opens a node block at the first frame of a trace outside a
// Jest block, taking the line above it as the message.
func (p *parser) nodeFrameSeen() {
	if !p.blk.open || (p.blk.kind != FormatNode && p.blk.kind != FormatJest) {
		p.begin(FormatNode, false)
	}
	if !p.blk.atSeen && p.blk.kind == FormatNode {
		if t := strings.TrimSpace(p.prevNB); !strings.HasPrefix(t, "at ") {
			p.setMsg(t)
		}
	}
	p.blk.atSeen = true
}

// jsPath removes the scheme of a stack location: file:///abs/a.mjs is
// /abs/a.mjs, and webpack://ns/./src/a.ts or webpack:///./src/a.ts is
// ./src/a.ts.
func jsPath(loc string) string {
	if rest, ok := strings.CutPrefix(loc, "file://"); ok {
		if len(rest) > 3 && rest[0] == '/' && rest[2] == ':' {
			rest = rest[1:] // file:///C:/x.js
		}
		return rest
	}
	if rest, ok := strings.CutPrefix(loc, "webpack://"); ok {
		if _, after, ok := strings.Cut(rest, "/"); ok {
			return after
		}
	}
	return loc
}

// nodeContinue ends a node block at the first line after its frames that
// is not a frame, or when a header's frames never come.
func (p *parser) nodeContinue(s string, blank bool) {
	if blank {
		return
	}
	t := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(t, "at ") {
		return
	}
	if p.blk.atSeen || p.blk.lines > 8 {
		p.end()
	}
}

// jestLine handles " FAIL  path" suite lines and "● Suite › test" headers;
// the frames of a Jest block come through nodeLine.
func (p *parser) jestLine(s string) bool {
	t := strings.TrimLeft(s, " ")
	if strings.HasPrefix(t, "● ") {
		p.begin(FormatJest, false)
		p.jestCode = 0
		return true
	}
	if !strings.HasPrefix(t, "FAIL") && !strings.HasPrefix(t, "PASS") {
		return false
	}
	m := jestSuiteRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	p.end()
	p.jestSuite = m[1]
	return true
}

// jestContinue gives a Jest block its message (the first line under the
// header) and its code frame, and ends it at the first unindented line.
func (p *parser) jestContinue(s string, blank bool) {
	switch {
	case blank, strings.HasPrefix(strings.TrimLeft(s, " "), "● "):
	case !isIndented(s):
		p.end()
	case p.blk.msg == "" && !p.blk.atSeen:
		p.setMsg(s)
	case p.jestCode == 0:
		if m := jestCodeRe().FindStringSubmatch(s); m != nil {
			p.jestCode = num(m[1])
		}
	}
}

// jestFallback gives a Jest block that printed no stack frames (a suite
// that failed to compile) a ref from its code frame: in the file its
// message names, or else in the suite's file.
func (p *parser) jestFallback() {
	if len(p.blk.members) > 0 || p.jestCode == 0 {
		return
	}
	r := Ref{Path: p.jestSuite, Line: p.jestCode, Message: p.blk.msg, Format: FormatJest, Failure: p.blk.failure}
	if m := jestSyntaxRe().FindStringSubmatch(p.blk.msg); m != nil {
		r.Path = m[1]
		r.Line = num(m[2])
		r.Col = num(m[3])
	}
	p.emit(r)
}

// tscLine handles the TypeScript compiler's two diagnostic shapes.
func (p *parser) tscLine(s string) bool {
	if !strings.Contains(s, " TS") {
		return false
	}
	m := tscParenRe().FindStringSubmatch(s)
	if m == nil {
		m = tscPrettyRe().FindStringSubmatch(s)
	}
	if m == nil {
		return false
	}
	line := num(m[2])
	col := num(m[3])
	p.emit(Ref{Path: m[1], Line: line, Col: col, Message: m[4], Format: FormatTSC})
	return true
}

// eslintLine handles ESLint's stylish output: a line holding only a file
// name, then one indented row per problem. Message is the problem text
// with its rule in parentheses.
func (p *parser) eslintLine(s string) bool {
	if !isIndented(s) {
		if !strings.ContainsAny(s, " \t") && eslintFileRe().MatchString(s) {
			p.eslintFile = s
			return true
		}
		return false
	}
	if p.eslintFile == "" {
		return false
	}
	m := eslintRowRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	line := num(m[1])
	col := num(m[2])
	msg := m[3]
	if m[4] != "" {
		msg += " (" + m[4] + ")"
	}
	p.emit(Ref{Path: p.eslintFile, Line: line, Col: col, Message: msg, Format: FormatESLint})
	return true
}
