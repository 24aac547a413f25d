package trace

import (
	"strings"
)

// jvmState follows .NET test output, whose message sits under an "Error
// Message:" line, away from its frames.
type jvmState struct {
	dotnetMsg     string // the message under the last "Error Message:"
	dotnetMsgNext bool   // the next non-blank line is that message
}

var (
	// "at com.acme.Invoice.total(Invoice.java:42)", with an optional
	// module or class loader ("java.base/", "app//") and a logback
	// packaging suffix ("~[classes/:na]").
	javaAtRe = lazyRegexp(`^\s*at (?:[^\s/()]+/+)*([\w$.<>\-]+)\(([^()]*)\)\s*(?:~?\[[^\]]*\])?$`)
	// The location inside the parentheses: a JVM source file and line.
	javaLocRe = lazyRegexp(`^([\w$\-]+\.(?:java|kt|kts|scala|groovy|clj)):(\d+)$`)
	// "at Acme.Billing.InvoiceService.Total(Invoice invoice) in
	// /src/InvoiceService.cs:line 42" (also "Zeile", "ligne": the word is
	// localised, so any word is taken).
	dotnetAtRe = lazyRegexp(`^\s*at (.+?) in (.+):\p{L}+ (\d+)\s*$`)
	// A .NET frame without a location: "at System.Linq.Enumerable.First[T](IEnumerable` + "`" + `1 source)".
	dotnetBareRe = lazyRegexp(`^\s*at [\w.` + "`" + `<>\[\],|+]+\(.*\)\s*$`)
)

// jvmLine handles JVM and .NET stack frames. Both print innermost-first
// under the exception line; "Caused by:" starts the frames of another
// failure, the cause (which is where the fault usually is).
func (p *parser) jvmLine(s string) bool {
	t := strings.TrimLeft(s, " \t")
	switch {
	case t == "Error Message:":
		p.dotnetMsg, p.dotnetMsgNext = "", true
		return true
	case p.dotnetMsgNext && t != "":
		p.dotnetMsg, p.dotnetMsgNext = clip(t), false
		return false
	case strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more") && p.blk.kind == FormatJava:
		return true
	case !strings.HasPrefix(t, "at ") || t == s:
		return false
	}
	if m := dotnetAtRe().FindStringSubmatch(s); m != nil {
		p.jvmFrameSeen(FormatDotnet)
		fn, _, _ := strings.Cut(m[1], "(")
		p.emitFrame(Ref{Path: m[2], Line: num(m[3]), Func: fn, Format: FormatDotnet})
		return true
	}
	if m := javaAtRe().FindStringSubmatch(s); m != nil {
		loc := m[2]
		if lm := javaLocRe().FindStringSubmatch(loc); lm != nil {
			p.jvmFrameSeen(FormatJava)
			p.emitFrame(Ref{Path: javaPath(m[1], lm[1]), Line: num(lm[2]), Func: m[1], Format: FormatJava})
			return true
		}
		switch {
		case loc == "Native Method", loc == "Unknown Source", strings.HasSuffix(loc, ".java"), strings.HasSuffix(loc, ".kt"):
			p.jvmFrameSeen(FormatJava)
			return true
		}
	}
	if dotnetBareRe().MatchString(s) && !strings.Contains(s, " (") {
		p.jvmFrameSeen(FormatDotnet)
		return true
	}
	return false
}

// jvmFrameSeen opens a block at the first frame of a trace, taking the
// exception line above it as the message (for dotnet test, the text
// under "Error Message:").
func (p *parser) jvmFrameSeen(kind string) {
	if p.blk.open && p.blk.kind == kind {
		return
	}
	p.begin(kind, false)
	msg := strings.TrimSpace(p.prevNB)
	if kind == FormatDotnet && (msg == "Stack Trace:" || msg == "") && p.dotnetMsg != "" {
		msg = p.dotnetMsg
	}
	msg = strings.TrimPrefix(msg, "Caused by: ")
	if msg != "Stack Trace:" {
		p.setMsg(msg)
	}
	p.blk.atSeen = true
}

// jvmContinue ends a JVM or .NET block at the first line that is not a
// frame; a "Caused by:" line ends it too, and the cause's frames open
// the next.
func (p *parser) jvmContinue(s string, blank bool) {
	if blank {
		return
	}
	t := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(t, "at ") || (strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more")) ||
		strings.HasPrefix(t, "--- End of ") {
		return
	}
	p.end()
}

// javaPath places a JVM frame's file under its class's package: class
// "com.acme.billing.Invoice$Line.total" and file "Invoice.java" give
// "com/acme/billing/Invoice.java". The package is the dotted prefix before
// the first capitalised element (Java's naming convention); without one,
// everything before the class and method.
func javaPath(fn, file string) string {
	parts := strings.Split(fn, ".")
	pkg := -1
	for i, el := range parts {
		if el != "" && el[0] >= 'A' && el[0] <= 'Z' {
			pkg = i
			break
		}
	}
	if pkg < 0 {
		pkg = max(0, len(parts)-2)
	}
	if pkg == 0 {
		return file
	}
	return strings.Join(parts[:pkg], "/") + "/" + file
}
