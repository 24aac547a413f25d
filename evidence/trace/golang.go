package trace

import (
	"encoding/json"
	"strings"
)

// goState follows go test and go build output across lines.
type goState struct {
	goTest     string // the test whose output this is (=== RUN, --- FAIL)
	goPending  []int  // go-test refs waiting for their package line
	goHdr      string // package of a "# pkg" build header
	goMsg      string // the panic or race message for trace frames
	goFrame    int    // next frame number in the current goroutine trace
	goTestOpen int    // go-test ref with no message yet (testify), or -1
	inJSON     bool   // feeding the Output of a go test -json event
	jsonPkg    string
	jsonRaw    string // the event as printed, which refs must quote
}

var (
	// "    foo_test.go:42: got 1, want 2": go test prints base names,
	// relative to the package directory.
	goTestRe = lazyRegexp(`^[ \t]+([\w.+-]+\.go):(\d+):(.*)$`)
	// "./pkg/a.go:10:5: undefined: x" from the compiler, vet and linters.
	goBuildRe = lazyRegexp(`^(\S+\.go):(\d+)(?::(\d+))?: (.*)$`)
	// "\t/abs/file.go:123 +0x1d" under a function line of a trace.
	goLocRe = lazyRegexp(`^\s+(\S+\.go):(\d+)( \+0x[0-9a-f]+)?\s*$`)
	// "ok  \tpkg\t0.1s", "FAIL\tpkg [build failed]", "?   \tpkg\t[no test files]"
	goPkgRe = lazyRegexp(`^(?:ok|FAIL|\?) *\t(\S+)`)
	// The race detector's section headers; each starts a new trace.
	goRaceRe     = lazyRegexp(`^(?:Previous )?(?:[Rr]ead|[Ww]rite) at 0x[0-9a-f]+ by (?:goroutine \d+|main goroutine):$|^Goroutine \d+ \(.*\) created at:$`)
	testifyErrRe = lazyRegexp(`^\s+Error:\s+(.*)$`)
)

// goLine handles go test, go build, go vet and goroutine trace lines.
func (p *parser) goLine(s string) bool {
	t := strings.TrimLeft(s, " \t")
	switch {
	case strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- "):
		return p.goTestHeader(t)
	case strings.HasPrefix(s, "# "):
		// "# pkg", "# pkg [pkg.test]" or vet's "# [pkg]"; other "# ..."
		// lines (comments, headings) are not claimed.
		f := strings.Fields(s[2:])
		if len(f) == 0 || len(f) > 2 || (len(f) == 2 && !strings.HasPrefix(f[1], "[")) {
			return false
		}
		p.goHdr = strings.Trim(f[0], "[]")
		return true
	case strings.Contains(s, "\t"):
		if m := goPkgRe().FindStringSubmatch(s); m != nil {
			p.settle(p.goPending, m[1])
			p.goPending = p.goPending[:0]
			p.goTest, p.goMsg, p.goHdr, p.goTestOpen = "", "", "", -1
			return true
		}
	}
	if p.goTestOpen >= 0 {
		if m := testifyErrRe().FindStringSubmatch(s); m != nil {
			if r := &p.refs[p.goTestOpen]; r.Message == "" {
				r.Message = clip(m[1])
			}
			p.goTestOpen = -1
			return true
		}
	}
	if !isIndented(s) && p.goHdr != "" && !strings.Contains(s, ".go:") {
		p.goHdr = "" // the build errors under the header have ended
	}
	if strings.Contains(s, ".go:") {
		return p.goRef(s)
	}
	return p.goTraceHeader(s)
}

// goTestHeader follows the test names of "=== RUN   TestX" and
// "--- FAIL: TestX (0.00s)" lines.
func (p *parser) goTestHeader(t string) bool {
	for _, pre := range []string{"=== RUN ", "=== CONT ", "=== NAME ", "=== PAUSE ",
		"--- FAIL: ", "--- PASS: ", "--- SKIP: "} {
		if rest, ok := strings.CutPrefix(t, pre); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				p.goTest = f[0]
			}
			p.goMsg, p.goTestOpen = "", -1
			return true
		}
	}
	return false
}

// goRef handles a line naming a .go file: a test log line, a build error
// or a frame of a goroutine trace.
func (p *parser) goRef(s string) bool {
	if m := goTestRe().FindStringSubmatch(s); m != nil {
		line := num(m[2])
		i := p.emit(Ref{Path: m[1], Line: line, Func: p.goTest,
			Message: m[3], Format: FormatGoTest})
		if i >= 0 && p.refs[i].Message == "" {
			p.goTestOpen = i // testify puts the message on an "Error:" line
		}
		return true
	}
	if m := goBuildRe().FindStringSubmatch(s); m != nil {
		line := num(m[2])
		col := num(m[3])
		p.emit(Ref{Path: m[1], Line: line, Col: col, Message: m[4],
			Format: FormatGoBuild, Pkg: p.goHdr})
		return true
	}
	m := goLocRe().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	fn, isFunc := goFuncName(p.prev)
	if !isFunc && m[3] == "" {
		return false
	}
	line := num(m[2])
	r := Ref{Path: m[1], Line: line, Func: fn, Message: p.goMsg,
		Format: FormatGoPanic, Frame: p.goFrame}
	if p.emit(r) >= 0 {
		p.goFrame++
	}
	return true
}

// goTraceHeader notes the lines that open a goroutine trace: the panic
// message, "goroutine N [running]:" and the race detector's headers.
func (p *parser) goTraceHeader(s string) bool {
	switch {
	case strings.HasPrefix(s, "panic: "), strings.HasPrefix(s, "fatal error: "):
		p.goMsg = strings.TrimSuffix(s, " [recovered]")
		p.goFrame = 0
	case strings.HasPrefix(s, "goroutine ") && strings.HasSuffix(s, ":"):
		// The other goroutines of a panic are frames of the same
		// failure, further from its site: their numbers go on.
		if p.goMsg == "" {
			p.goFrame = 0
		}
	case s == "WARNING: DATA RACE":
		p.goMsg = s
		p.goFrame = 0
	case strings.HasSuffix(s, " at:") || strings.HasSuffix(s, ":") && strings.Contains(s, " at 0x"):
		if !goRaceRe().MatchString(s) {
			return false
		}
		// A race report's sections (the previous access, where the
		// goroutines began) are frames of the one failure.
		if p.goMsg == "" {
			p.goFrame = 0
		}
	default:
		return false
	}
	return true
}

// goFuncName reads the function line above a trace location:
// "pkg.(*T).M(0xc000, {0x1, 0x2})", "main.f(...)" or
// "created by pkg.F in goroutine 7".
func goFuncName(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "created by "); ok {
		rest, _, _ = strings.Cut(rest, " in goroutine ")
		return rest, rest != "" && !strings.ContainsAny(rest, " \t")
	}
	i := strings.LastIndexByte(s, '(')
	if i <= 0 || !strings.HasSuffix(s, ")") {
		return "", false
	}
	name := s[:i]
	if strings.ContainsAny(name, " \t") {
		return "", false
	}
	return name, true
}

// goEvent is the part of a go test -json event that matters here.
type goEvent struct {
	Action     string
	Package    string
	ImportPath string // build-output events (Go 1.24+)
	Output     string
}

// goJSON handles go test -json: each output event's text is fed as lines
// of plain output, knowing its package.
func (p *parser) goJSON(s string) bool {
	if p.inJSON || !strings.HasPrefix(s, `{"`) || !strings.Contains(s, `"Action"`) {
		return false
	}
	var ev goEvent
	if json.Unmarshal([]byte(s), &ev) != nil {
		return false
	}
	pkg := ev.Package
	if pkg == "" {
		pkg = ev.ImportPath
	}
	if ev.Output != "" {
		p.inJSON, p.jsonPkg, p.jsonRaw = true, pkg, s
		for _, l := range strings.Split(strings.TrimSuffix(ev.Output, "\n"), "\n") {
			p.feed(l)
		}
		p.inJSON, p.jsonPkg, p.jsonRaw = false, "", ""
	}
	return true
}
