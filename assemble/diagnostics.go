package assemble

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// DiagnosticsKind is the kind of the user part that carries what a tool
// printed: `evidence from-output` writes ctx/<rank>_diagnostics.user.md
// (seed 004's "diagnostics" and "terminal_output"). Every format renders
// it: prompt.mdctx as a user part, Aptix and /responses as a [CONTEXT]
// chunk, the context pack as its workspace diagnostics and terminal output.
const DiagnosticsKind = "diagnostics"

// IsDiagnostics reports whether p is a diagnostics part.
func (p *Part) IsDiagnostics() bool { return p.Role == User && p.Kind == DiagnosticsKind }

// Report is the content of a diagnostics part: the failures a tool
// reported, each with its locations in the workspace, the paths that
// were mapped from elsewhere, and the tail of the output. Markdown renders
// it and ParseReport reads it back, so the part stays a Markdown file a
// person can edit and every format still finds its structure.
type Report struct {
	Source   string // what printed it, "go test output"
	Failures []Failure
	Mapped   []Mapping
	Left     string // what was left out, "4 in dependencies or the toolchain"
	Output   string // the last lines of the output
}

// Failure is one error, traceback, panic or failed test.
type Failure struct {
	Message   string
	Locations []Location // the failing site first when there is one
}

// Location is one place of a failure in the workspace.
type Location struct {
	File string // workspace relative
	Line int
	Func string
	Site bool   // the failing site: the innermost frame in the workspace
	Part string // the evidence part holding it, "100_calc_go_div"
}

// Mapping records a path printed for another machine or checkout and the
// workspace file it was taken to be.
type Mapping struct{ From, To string }

// Markdown renders r as a diagnostics part's text.
func (r Report) Markdown() string {
	var b strings.Builder
	b.WriteString("## Diagnostics")
	if r.Source != "" {
		b.WriteString(" (" + oneLine(r.Source) + ")")
	}
	b.WriteString("\n\n")
	for i, f := range r.Failures {
		msg := oneLine(f.Message)
		if msg == "" {
			msg = "(no message)"
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + msg + "\n")
		for _, l := range f.Locations {
			loc := l.File + ":" + strconv.Itoa(l.Line)
			fence := codeFence(loc)
			b.WriteString("   - " + fence + pad(loc) + fence)
			if l.Func != "" {
				b.WriteString(" in " + oneLine(l.Func))
			}
			var notes []string
			if l.Site {
				notes = append(notes, "failing site")
			}
			if l.Part != "" {
				notes = append(notes, l.Part)
			}
			if len(notes) > 0 {
				b.WriteString(" — " + strings.Join(notes, ", "))
			}
			b.WriteString("\n")
		}
	}
	if len(r.Failures) > 0 {
		b.WriteString("\n")
	}
	if len(r.Mapped) > 0 {
		b.WriteString("Paths mapped to the workspace:\n")
		for _, m := range r.Mapped {
			if from, to := oneLine(m.From), oneLine(m.To); from != "" && to != "" {
				b.WriteString("- mapped " + from + " -> " + to + "\n")
			}
		}
		b.WriteString("\n")
	}
	if r.Left != "" {
		b.WriteString("Left out: " + oneLine(r.Left) + "\n\n")
	}
	if out := strings.Trim(r.Output, "\n"); out != "" {
		b.WriteString("Output (last " + strconv.Itoa(LineCount(out)) + " lines):\n")
		writeFenced(&b, out, "text")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// lazyRegexp compiles expr on first use, not in every process's package
// init (as in evidence/trace).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	reportItemRe = lazyRegexp(`^(\d+)\. (.*)$`)
	reportLocRe  = lazyRegexp("^\\s+- `")
	reportTailRe = lazyRegexp(`^(?: in (.+?))?(?: — (.*))?$`)
	reportMapRe  = lazyRegexp(`^- mapped (.+) -> (.+)$`)
	reportOutRe  = lazyRegexp(`^Output \(last \d+ lines?\):$`)
	partIDRe     = lazyRegexp(`^\d{3}_\S+$`)
)

// ParseReport reads a diagnostics part's text back. What it does not
// recognise is skipped, so a part edited by hand yields what it still says.
func ParseReport(md string) Report {
	var r Report
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case strings.HasPrefix(line, "## Diagnostics"):
			if rest := strings.TrimPrefix(line, "## Diagnostics"); strings.HasPrefix(rest, " (") && strings.HasSuffix(rest, ")") {
				r.Source = rest[2 : len(rest)-1]
			}
		case reportItemRe().MatchString(line):
			m := reportItemRe().FindStringSubmatch(line)
			r.Failures = append(r.Failures, Failure{Message: m[2]})
		case reportLocRe().MatchString(line) && len(r.Failures) > 0:
			loc, rest, ok := codeSpan(strings.TrimLeft(line, " \t")[2:])
			m := reportTailRe().FindStringSubmatch(rest)
			if !ok || m == nil {
				continue
			}
			k := strings.LastIndexByte(loc, ':')
			if k < 0 {
				continue
			}
			n, err := strconv.Atoi(loc[k+1:])
			if err != nil || n < 0 {
				continue
			}
			l := Location{File: loc[:k], Line: n, Func: m[1]}
			for _, note := range strings.Split(m[2], ", ") {
				switch note = strings.TrimSpace(note); {
				case note == "failing site":
					l.Site = true
				case partIDRe().MatchString(note):
					l.Part = note
				}
			}
			f := &r.Failures[len(r.Failures)-1]
			f.Locations = append(f.Locations, l)
		case reportMapRe().MatchString(line):
			m := reportMapRe().FindStringSubmatch(line)
			if from, to := strings.TrimSpace(m[1]), strings.TrimSpace(m[2]); from != "" && to != "" {
				r.Mapped = append(r.Mapped, Mapping{From: from, To: to})
			}
		case strings.HasPrefix(line, "Left out: "):
			r.Left = strings.TrimPrefix(line, "Left out: ")
		case reportOutRe().MatchString(line) && i+1 < len(lines):
			open := strings.TrimRight(lines[i+1], " \t\r")
			fence := open[:len(open)-len(strings.TrimLeft(open, "`"))]
			if len(fence) < 3 {
				continue
			}
			var out []string
			for i += 2; i < len(lines); i++ {
				if l := strings.TrimRight(lines[i], " \t\r"); strings.HasPrefix(l, fence) && strings.Trim(l, "`") == "" {
					break
				}
				out = append(out, lines[i])
			}
			r.Output = strings.Join(out, "\n")
		}
	}
	return r
}

// PackDiagnostics is what the context pack lists for the report: each
// failure at its failing site (or its first location, or none).
func (r Report) PackDiagnostics() []Diagnostic {
	var out []Diagnostic
	for _, f := range r.Failures {
		d := Diagnostic{Message: f.Message}
		for i, l := range f.Locations {
			if l.Site || i == 0 {
				d.File, d.Line = l.File, l.Line
			}
			if l.Site {
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// oneLine keeps a value on its line: line breaks become spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ", "\u2028", " ", "\u2029", " ").Replace(s)), " ")
}

// codeFence is a backtick run longer than any inside s, for a code span.
func codeFence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", longest+1)
}

// pad puts a space inside a code span whose text starts or ends with a
// backtick, or starts and ends with a space, as CommonMark wants.
func pad(s string) string {
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		return " " + s + " "
	}
	return s
}

// codeSpan reads the code span s starts with: its text (one padding space
// stripped from each side, as CommonMark does) and what follows it.
func codeSpan(s string) (text, rest string, ok bool) {
	n := len(s) - len(strings.TrimLeft(s, "`"))
	if n == 0 {
		return "", "", false
	}
	for i := n; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return "", "", false
		}
		at := i + j
		run := len(s[at:]) - len(strings.TrimLeft(s[at:], "`"))
		if run == n {
			text = s[n:at]
			if len(text) >= 2 && text[0] == ' ' && text[len(text)-1] == ' ' && strings.Trim(text, " ") != "" {
				text = text[1 : len(text)-1]
			}
			return text, s[at+run:], true
		}
		i = at + run
	}
	return "", "", false
}
