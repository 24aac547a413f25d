package segment

import (
	"bytes"
	"context"
	"regexp"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
)

// Some grammars lose their place for good at a construct they cannot
// lex: tree-sitter-bash, at `eval "(( \${#${array}[@]} > 0 ))"`, pairs
// every later quote wrongly, and the rest of the file is one ERROR node
// with no definitions in it. Definitions in such a language start and end
// at the first column (`name() {` ... `}`), so the parse is tried again
// with the body of the definition that holds the first error turned into
// comments (a `#` over each line's first byte: every offset stays, the
// text is still read from the source), until no error is left or
// commenting stops helping. The definition keeps its name and its span;
// only its body is not read, and the file is still reported as a parse
// error at the first one's line.

// bodyLines are a grammar's first-column lines that open and close a
// definition.
type bodyLines struct {
	open, close *regexp.Regexp
	comment     byte // what turns a line into a comment
}

// bashBodies are shell functions: `name() {`, `function name {`,
// `function name() {`, then `}`.
var bashBodies = &bodyLines{
	open:    regexp.MustCompile(`^(function\s+[^\s(){}]+\s*(\(\s*\))?|[^\s(){}=#$"']+\s*\(\s*\))\s*\{\s*(#.*)?$`),
	close:   regexp.MustCompile(`^\}\s*(#.*)?$`),
	comment: '#',
}

// maxResyncs bounds the parses of one file that comment out broken bodies.
const maxResyncs = 8

// withoutBrokenBodies parses src again with the bodies that hold parse
// errors commented out (see bodyLines), and returns the last tree that
// had fewer errors than the one before it, with the line of the original
// parse's first error when a body was commented out (0: tree as given).
// ok is false when a parse ran out of time: the parser must not be used
// again.
func withoutBrokenBodies(ps *sitter.Parser, b *bodyLines, tree *sitter.Tree, src []byte) (_ *sitter.Tree, errLine int, ok bool) {
	var edited []byte
	errs := -1
	for range maxResyncs {
		root := tree.RootNode()
		if !root.HasError() {
			break
		}
		line := errorLineUnder(root)
		start, end := brokenBody(b, src, line)
		if start < 0 {
			break
		}
		if edited == nil {
			edited = append([]byte(nil), src...)
		}
		next := commentLines(edited, b.comment, start, end)
		again, err := ps.ParseCtx(context.Background(), nil, next)
		if err != nil || again == nil {
			return tree, errLine, false
		}
		if errs < 0 {
			errs = parseErrors(root)
		}
		n := parseErrors(again.RootNode())
		if n >= errs {
			again.Close()
			break
		}
		if errLine == 0 {
			errLine = line
		}
		tree.Close()
		tree, edited, errs = again, next, n
	}
	return tree, errLine, true
}

// errorLineUnder is the 1-based line of the first error under root, which
// may be an ERROR node itself (a parse that never found its place again):
// then it is the first error among its children's.
func errorLineUnder(root *sitter.Node) int {
	if !root.IsError() {
		return firstErrorLine(root)
	}
	for _, c := range grammar.Children(root) {
		if c.Node.HasError() {
			return firstErrorLine(c.Node)
		}
	}
	return 0
}

// brokenBody is the byte range of the lines between the first-column
// opening and closing lines of the definition that holds line, or -1.
func brokenBody(b *bodyLines, src []byte, line int) (start, end int) {
	if line < 1 {
		return -1, -1
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	open := -1
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if b.open.Match(bytes.TrimRight(lines[i], "\r\n")) {
			open = i
			break
		}
	}
	if open < 0 {
		return -1, -1
	}
	off := 0
	for i := range open + 1 {
		off += len(lines[i])
	}
	start = off
	for i := open + 1; i < len(lines); i++ {
		if b.close.Match(bytes.TrimRight(lines[i], "\r\n")) {
			if i+1 < line {
				return -1, -1 // the definition ends before the error
			}
			return start, off
		}
		off += len(lines[i])
	}
	return -1, -1
}

// commentLines is a copy of src with the first byte of each line in
// [start, end) that holds more than its line end replaced by comment.
func commentLines(src []byte, comment byte, start, end int) []byte {
	out := append([]byte(nil), src...)
	for i := start; i < end; {
		if out[i] != '\n' && out[i] != '\r' {
			out[i] = comment
		}
		nl := bytes.IndexByte(out[i:end], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
	}
	return out
}
