// Package trace finds source locations in test and build output.
//
// Parse reads what a tool printed (go test, a Python traceback, a Jest run,
// gcc, rustc, ...) and returns every file:line reference it recognises,
// tagged with the format that produced it, the message it belongs to and
// its depth in a stack trace. Resolve then maps those references onto the
// files of a workspace, dropping what lies outside it.
//
// Parsing is line-oriented and linear in the input: each line goes through
// cheap guards before any regular expression, and at most MaxInput bytes
// are read, each line cut at 64 KB, so a 100 MB log costs neither
// quadratic time nor its own size in memory.
package trace

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The formats Parse recognises, as found in Ref.Format.
const (
	// FormatGoTest is a go test log line: "    foo_test.go:42: msg".
	FormatGoTest = "go-test"
	// FormatGoBuild is a compiler, vet or linter line: "./a.go:10:5: msg".
	FormatGoBuild = "go-build"
	// FormatGoPanic is a frame of a goroutine trace, from a panic or the
	// race detector.
	FormatGoPanic = "go-panic"
	// FormatPython is a traceback frame or a SyntaxError location.
	FormatPython = "python"
	// FormatPytest is a frame of a pytest failure section, or its
	// "FAILED path::test" summary line (Line 0).
	FormatPytest = "pytest"
	// FormatNode is a V8 stack frame or Node's uncaught-error header.
	FormatNode = "node"
	// FormatJest is a stack frame inside a Jest "●" failure block, or its
	// code frame when it printed no stack.
	FormatJest = "jest"
	// FormatVitest is a stack frame ("❯ fn path:line:col") of a Vitest
	// failure.
	FormatVitest = "vitest"
	// FormatTSC is a TypeScript compiler diagnostic, plain or pretty.
	FormatTSC = "tsc"
	// FormatESLint is a row of ESLint's default "stylish" formatter.
	FormatESLint = "eslint"
	// FormatGCC is "path:line:col: error: msg" from gcc, clang, mypy and
	// the other tools that share the convention.
	FormatGCC = "gcc"
	// FormatRustc is a rustc "-->" or ":::" span, a Rust panic or a
	// RUST_BACKTRACE frame.
	FormatRustc = "rustc"
	// FormatPHP is a PHP error ("... in /path/x.php:50", "on line 50"), a
	// "#0 /path/x.php(50): fn()" stack frame or a Laravel log exception.
	FormatPHP = "php"
	// FormatPHPUnit is a bare "/path/x.php:31" frame of a PHPUnit failure.
	FormatPHPUnit = "phpunit"
	// FormatLaravel is Collision's output (php artisan test, Pest): the
	// "at app/x.php:18" site and its numbered frames.
	FormatLaravel = "laravel"
	// FormatJava is a JVM frame, "at a.b.C.m(C.java:42)"; its Path is the
	// file under the class's package directory, "a/b/C.java".
	FormatJava = "java"
	// FormatDotnet is a .NET frame, "at A.B.C() in /path/C.cs:line 42".
	FormatDotnet = "dotnet"
	// FormatRuby is a Ruby backtrace line ("x.rb:12:in 'm'"), an RSpec
	// frame or summary line, or a Minitest location.
	FormatRuby = "ruby"
	// FormatGeneric is any other "path:line" or "path:line:col".
	FormatGeneric = "generic"
)

// MaxInput is how many bytes of output ParseReader and Parse read; the rest
// is ignored (ParseReader reports it). 16 MB holds any real failure report
// while bounding the memory a runaway log can cost.
const MaxInput = 16 << 20

// maxLine caps one line; the rest of a longer line is skipped, because
// locations sit at the start of their lines and minified one-line blobs are
// noise.
const maxLine = 64 << 10

// maxMessage caps Ref.Message in bytes.
const maxMessage = 200

// Ref is one source location named in tool output.
type Ref struct {
	// Path is the file as written in the output, after removing only a
	// file:// or webpack:// scheme: absolute, relative to wherever the tool
	// ran, or a bare file name. A JVM frame names only the file, so its
	// Path is that name under the class's package directory.
	Path string
	// Line is 1-based; 0 when the output names the file only.
	Line int
	// Col is 1-based; 0 when absent.
	Col int
	// Func is the function, frame or test name when the format gives one.
	Func string
	// Message is the first line of the error or failure this ref belongs
	// to, trimmed and at most 200 bytes.
	Message string
	// Format is one of the Format* constants.
	Format string
	// Frame is 0 for the primary location of a diagnostic or failure and
	// 1, 2, ... for deeper frames, always counted innermost-first: the
	// frame that raised or panicked is 0 and its callers follow. Python and
	// pytest print outermost-first, so their numbers count down in order of
	// appearance; Go, Node, Jest and Rust count up. A gcc note or include
	// chain, or a rustc ":::" span, is a secondary location of its
	// diagnostic and gets 1, 2, ...
	Frame int
	// Pkg is the Go import path of the package the file belongs to, when
	// the output says (go test's "FAIL\tpkg" line, a "# pkg" build header,
	// go test -json); Resolve uses it to place package-relative names.
	Pkg string
	// Failure numbers the failure (a diagnostic, a traceback, a panic with
	// all its goroutines, a test failure) the ref belongs to, from 1 in
	// order of appearance; the refs of one failure share it. Its failing
	// site is its ref with the lowest Frame inside the workspace.
	Failure int
	// Summary marks a ref that names a failed test in a run's summary
	// ("FAILED tests/x.py::test_a", "rspec ./spec/x_spec.rb:7"): the test,
	// never the failing site.
	Summary bool
}

// Parse returns every ref in output, in order of appearance, de-duplicated
// on (Pkg, Path, Line): the first occurrence is kept, taking Col and Func
// from a repeat when it had neither. Pkg is empty except for Go test and
// build refs, so the key is (Path, Line) for every other format. Only the first MaxInput bytes are read; use ParseReader to learn
// whether the input was cut.
func Parse(output string) []Ref {
	refs, _, _ := ParseReader(strings.NewReader(output))
	return refs
}

// ParseReader is Parse over a stream. truncated reports that the input was
// longer than MaxInput and only its first MaxInput bytes were parsed; err is
// the first read error other than io.EOF (the refs found before it are
// still returned).
func ParseReader(r io.Reader) (refs []Ref, truncated bool, err error) {
	p := newParser()
	truncated, err = eachLine(r, MaxInput, p.feed)
	return p.finish(), truncated, err
}

// eachLine calls fn for every line of r, without its newline, cutting lines
// at maxLine bytes and stopping once limit bytes have been read.
func eachLine(r io.Reader, limit int64, fn func(string)) (truncated bool, err error) {
	br := bufio.NewReaderSize(r, maxLine)
	var total int64
	for {
		chunk, rerr := br.ReadSlice('\n')
		total += int64(len(chunk))
		line := string(chunk)
		for rerr == bufio.ErrBufferFull && total <= limit {
			chunk, rerr = br.ReadSlice('\n')
			total += int64(len(chunk))
		}
		if total > limit {
			return true, nil
		}
		if line != "" {
			fn(strings.TrimSuffix(line, "\n"))
		}
		if rerr == io.EOF {
			return false, nil
		}
		if rerr != nil {
			return false, rerr
		}
	}
}

// cleanLine turns a raw line into what a terminal would show: a trailing
// CR (CRLF input) is dropped, text before a carriage return is overwritten
// by the text after it (progress bars), and ANSI escapes are removed.
func cleanLine(raw string) string {
	raw = strings.TrimRight(raw, "\r")
	if i := strings.LastIndexByte(raw, '\r'); i >= 0 {
		raw = raw[i+1:]
	}
	return stripANSI(raw)
}

// stripANSI removes ANSI escape sequences: CSI (colours, cursor moves),
// OSC (titles, hyperlinks; ended by BEL, ST or the end of the string) and
// the short ESC forms. No sequence it removes spans a CR or LF, so stripping
// a whole input equals stripping its lines one by one.
func stripANSI(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+escapeLen(s[i:]):]
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// escapeLen is the length of the escape sequence at the start of s, which
// begins with ESC; a malformed sequence loses its ESC and parameters only.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch c := s[1]; {
	case c == '[':
		n := 2
		for n < len(s) && s[n] >= 0x20 && s[n] <= 0x3f {
			n++
		}
		if n < len(s) && s[n] >= 0x40 && s[n] <= 0x7e {
			n++
		}
		return n
	case c == ']':
		for n := 2; n < len(s); n++ {
			switch s[n] {
			case 0x07:
				return n + 1
			case '\n', '\r':
				return n
			case 0x1b:
				if n+1 < len(s) && s[n+1] == '\\' {
					return n + 2
				}
				return n
			}
		}
		return len(s)
	case (c == '(' || c == ')') && len(s) > 2 && s[2] >= 0x20 && s[2] <= 0x7e:
		return 3
	case c >= 0x40 && c <= 0x5f, c == '=', c == '>':
		return 2
	}
	return 1
}

// clip makes a message: trimmed, at most maxMessage bytes, cut on a rune
// boundary.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	n := maxMessage
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}

// isBlank reports whether s holds only spaces and tabs.
func isBlank(s string) bool {
	return strings.TrimLeft(s, " \t") == ""
}

// isIndented reports whether s starts with a space or tab.
func isIndented(s string) bool {
	return s != "" && (s[0] == ' ' || s[0] == '\t')
}

// num reads a line, column or frame number: "" is 0, and anything that is
// not a number of at most nine digits is -1, which emit rejects.
func num(s string) int {
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || len(s) > 9 {
		return -1
	}
	return n
}

// lazyRegexp compiles expr on first use: the parsers' patterns cost a few
// milliseconds to compile, which every dossier process paid at start-up,
// before `dossier stats` or a search could begin, whether or not it ever
// parsed a trace.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
