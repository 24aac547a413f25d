package trace

import (
	"strings"
)

// phpState is empty: PHP's shapes keep their state in the open block.
type phpState struct{}

var (
	// "#0 /var/www/app/app/Http/X.php(50): App\Http\X->show()"; also
	// "#3 [internal function]: ..." and "#4 {main}", which name no file.
	phpFrameRe  = lazyRegexp(`^\s*#(\d+) (.+?)\((\d+)\)(?:: (.*))?$`)
	phpNoFileRe = lazyRegexp(`^\s*#\d+ (?:\{main\}|\[internal function\].*)$`)
	// "PHP Fatal error:  Uncaught Error: msg in /path/x.php:50" and
	// "Warning: msg in /path/x.php on line 12".
	phpInRe = lazyRegexp(`^(.*?) in (\S+\.(?:php|phtml|inc)) on line (\d+)\.?$|^(.*?) in (\S+\.(?:php|phtml|inc)):(\d+)$`)
	// A Laravel log entry: "... {"exception":"[object] (X(code: 0): msg at /path/x.php:67)".
	phpLogRe = lazyRegexp(`\[object\] \(([\w\\]+)\(code: -?\d+\): (.*) at (\S+\.php):(\d+)\)$`)
	// A bare PHPUnit frame: "/var/www/app/tests/Feature/XTest.php:31".
	phpBareRe = lazyRegexp(`^\s*(\S+\.(?:php|phtml|inc)):(\d+)$`)
	// Collision: "  at app/Services/X.php:18", "  1   app/Http/X.php:42".
	collisionAtRe    = lazyRegexp(`^\s+at (\S+\.(?:php|phtml|inc)):(\d+)$`)
	collisionFrameRe = lazyRegexp(`^\s+\d+\s+(\S+\.(?:php|phtml|inc)):(\d+)$`)
	// Collision's failure header: "   FAILED  Tests\Feature\XTest > it works   TypeError".
	collisionHdrRe = lazyRegexp(`^\s*(?:FAILED|ERROR)\s{2,}(.+?)(?:\s{2,}(\S+))?\s*$`)
	// A numbered failure of PHPUnit, Minitest or RSpec: "1) Tests\X::test_y",
	// "  1) Failure:", "  1) Order#total includes tax".
	numberedRe = lazyRegexp(`^\s*\d+\) \S`)
	// The lines that end a list of numbered failures.
	// Minitest's test name above an error: "OrderTest#test_total:".
	minitestTestRe = lazyRegexp(`^[\w:]+#\w+[?!]?:$`)
	numberedEndRe  = lazyRegexp(`^(?:FAILURES!|ERRORS!|OK \(|Tests: \d|Finished in |Failed examples:|\d+ runs, )`)
)

// formatNumbered is the kind of a block opened by a numbered failure
// header; its frames keep the format of their own shape.
const formatNumbered = "numbered"

// phpLine handles PHP errors and traces, PHPUnit's and Collision's
// failure output, Laravel log exceptions, and the numbered failure
// headers PHPUnit shares with Minitest and RSpec.
func (p *parser) phpLine(s string) bool {
	if numberedRe().MatchString(s) {
		p.begin(formatNumbered, false)
		return true
	}
	if p.blk.kind == FormatLaravel && strings.Contains(s, "▕") {
		return true // Collision's code excerpt
	}
	if !strings.Contains(s, ".php") && !strings.Contains(s, ".inc") && !strings.Contains(s, ".phtml") {
		if strings.Contains(s, "FAILED") || strings.Contains(s, "ERROR") {
			return p.collisionHeader(s)
		}
		if phpNoFileRe().MatchString(s) || strings.TrimSpace(s) == "Stack trace:" || strings.TrimSpace(s) == "[stacktrace]" {
			return p.blk.kind == FormatPHP
		}
		return false
	}
	if m := phpFrameRe().FindStringSubmatch(s); m != nil {
		if p.blk.kind != FormatPHP || (m[1] == "0" && p.blk.frames > 1) {
			p.begin(FormatPHP, false)
			p.blk.frames = 1 // "#0" is the caller of the throwing function
		}
		p.emitFrame(Ref{Path: m[2], Line: num(m[3]), Func: phpCallee(m[4]), Format: FormatPHP})
		return true
	}
	if m := phpLogRe().FindStringSubmatch(s); m != nil {
		p.begin(FormatPHP, false)
		p.setMsg(m[1] + ": " + strings.ReplaceAll(m[2], `\\`, `\`))
		p.emitFrame(Ref{Path: m[3], Line: num(m[4]), Format: FormatPHP})
		return true
	}
	if m := collisionAtRe().FindStringSubmatch(s); m != nil {
		if p.blk.kind != FormatLaravel {
			p.begin(FormatLaravel, false)
		}
		p.emitFrame(Ref{Path: m[1], Line: num(m[2]), Format: FormatLaravel})
		return true
	}
	if m := collisionFrameRe().FindStringSubmatch(s); m != nil && p.blk.kind == FormatLaravel {
		p.emitFrame(Ref{Path: m[1], Line: num(m[2]), Format: FormatLaravel})
		return true
	}
	if m := phpBareRe().FindStringSubmatch(s); m != nil {
		if p.blk.kind != formatNumbered {
			p.begin(formatNumbered, false)
		}
		p.blk.atSeen = true
		p.emitFrame(Ref{Path: m[1], Line: num(m[2]), Format: FormatPHPUnit})
		return true
	}
	if (p.blk.kind == formatNumbered && !p.blk.atSeen) || (p.blk.kind == FormatLaravel && len(p.blk.members) == 0) {
		return false // a test failure's message that names a file: not a new error
	}
	if m := phpInRe().FindStringSubmatch(s); m != nil {
		msg, path, line := m[1], m[2], m[3]
		if path == "" {
			msg, path, line = m[4], m[5], m[6]
		}
		t := strings.TrimSpace(msg)
		if t == "thrown" { // the end of an uncaught exception's report
			return true
		}
		p.begin(FormatPHP, false)
		p.setMsg(strings.Join(strings.Fields(strings.TrimPrefix(t, "PHP ")), " "))
		p.emitFrame(Ref{Path: path, Line: num(line), Format: FormatPHP})
		return true
	}
	return false
}

// collisionHeader opens a Collision failure: "FAILED  Test > name  Class".
// Its message is the next line, prefixed with the exception class.
func (p *parser) collisionHeader(s string) bool {
	m := collisionHdrRe().FindStringSubmatch(s)
	if m == nil || !strings.Contains(m[1], "\\") && !strings.Contains(m[1], ">") {
		return false
	}
	p.begin(FormatLaravel, false)
	p.laravelClass = m[2]
	return true
}

// laravelContinue gives a Collision block its message and ends it at the
// run's summary.
func (p *parser) laravelContinue(s string) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
	case strings.HasPrefix(t, "Tests:"), strings.HasPrefix(t, "FAIL "), strings.HasPrefix(t, "PASS "):
		p.end()
	case p.blk.msg == "" && len(p.blk.members) == 0 && p.blk.lines == 1:
		if p.laravelClass != "" {
			t = p.laravelClass + ": " + t
		}
		p.setMsg(t)
	}
}

// numberedContinue gives a numbered failure its message, the first line
// under its header, and ends the list at the run's summary.
func (p *parser) numberedContinue(s string, blank bool) {
	t := strings.TrimSpace(s)
	switch {
	case blank:
	case numberedEndRe().MatchString(t):
		p.end()
	case p.blk.msg == "" && p.blk.lines > 0 && !minitestLocRe().MatchString(t) && !minitestTestRe().MatchString(t) &&
		!rubyFrameRe().MatchString(s) && !phpBareRe().MatchString(s) && t != "Failure:" && t != "Error:":
		p.setMsg(strings.TrimPrefix(t, "Failure/Error: "))
	}
}

// phpCallee is the function a "#N" frame calls, without its arguments.
func phpCallee(s string) string {
	if i := strings.IndexByte(s, '('); i > 0 {
		s = s[:i]
	}
	// A Laravel log holds the trace inside a JSON string.
	return strings.ReplaceAll(s, `\\`, `\`)
}
