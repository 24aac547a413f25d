package trace

import "strings"

// parser holds the state of one Parse. Formats that spread one failure
// over several lines keep their state here; the rest is per line.
type parser struct {
	refs []Ref
	seen map[refKey]int // index of the first ref with this key

	prev   string // the previous line, cleaned
	prevNB string // the last non-blank line, cleaned

	// msgNext holds refs whose message is the next non-blank line (Rust's
	// "panicked at path:line:col:" puts it there).
	msgNext []int

	blk block
	// failure is the number of the last failure begun (Ref.Failure).
	failure int
	goState
	pyState
	jsState
	nativeState
	jvmState
	phpState
	rubyState
}

// refKey is what Parse de-duplicates on. A go test line also keys on its
// test (two tests failing at one helper's line are two failures), and an
// ESLint row on its column (two problems on one line are
// two failures).
type refKey struct {
	pkg, path string
	line      int
	test      string
	col       int
}

// keyOf is r's refKey.
func keyOf(r Ref) refKey {
	k := refKey{pkg: r.Pkg, path: r.Path, line: r.Line}
	switch r.Format {
	case FormatGoTest:
		k.test = r.Func
	case FormatESLint:
		k.col = r.Col
	}
	return k
}

// block is a multi-line failure whose refs share a message that may be
// printed after them (Python) and whose frames may need renumbering
// (printed outermost-first). Only one block is open at a time.
type block struct {
	open    bool
	kind    string // a Format* constant: python, pytest, node or jest
	msg     string
	reverse bool  // printed outermost-first: renumber when the block ends
	members []int // indices into parser.refs
	frames  int   // the next frame number
	atSeen  bool  // node/jest: a stack frame line has been seen
	lines   int   // lines seen since the block began
	failure int   // Ref.Failure of its refs
}

func newParser() *parser {
	p := &parser{seen: make(map[refKey]int)}
	p.goTestOpen, p.rustPanicRef = -1, -1
	return p
}

// feed handles one raw line of output.
func (p *parser) feed(raw string) {
	s := cleanLine(raw)
	blank := isBlank(s)
	if !blank && len(p.msgNext) > 0 {
		for _, i := range p.msgNext {
			if p.refs[i].Message == "" {
				p.refs[i].Message = clip(s)
			}
		}
		p.msgNext = p.msgNext[:0]
	}
	if p.eslintFile != "" && !blank && !isIndented(s) {
		p.eslintFile = ""
	}
	if p.blk.open {
		p.blk.lines++
		p.continueBlock(s, blank)
	}
	p.dispatch(s)
	p.prev = s
	if !blank {
		p.prevNB = s
	}
}

// dispatch offers s to each format in turn; the first that claims it wins,
// and the generic path:line matcher gets what nobody claimed. The order
// puts the most specific shapes first.
func (p *parser) dispatch(s string) {
	switch {
	case p.goJSON(s):
	case p.goLine(s):
	case p.pyLine(s):
	case p.pytestLine(s):
	case p.rustLine(s):
	case p.phpLine(s):
	case p.jvmLine(s):
	case p.rubyLine(s):
	case p.vitestLine(s):
	case p.jestLine(s):
	case p.nodeLine(s):
	case p.tscLine(s):
	case p.eslintLine(s):
	case p.gccLine(s):
	default:
		p.genericLine(s)
	}
}

// continueBlock lets the open block see a line before dispatch, to pick up
// its message or to notice that it has ended.
func (p *parser) continueBlock(s string, blank bool) {
	switch p.blk.kind {
	case FormatPython:
		p.pyContinue(s, blank)
	case FormatPytest:
		p.pytestContinue(s)
	case FormatNode:
		p.nodeContinue(s, blank)
	case FormatJest:
		p.jestContinue(s, blank)
	case FormatVitest:
		p.vitestContinue(s, blank)
	case formatNumbered:
		p.numberedContinue(s, blank)
	case FormatJava, FormatDotnet:
		p.jvmContinue(s, blank)
	case FormatRuby:
		p.rubyContinue(s, blank)
	case FormatLaravel:
		p.laravelContinue(s)
	}
}

// begin ends the open block and opens a new one.
func (p *parser) begin(kind string, reverse bool) {
	p.end()
	p.failure++
	p.blk = block{open: true, kind: kind, reverse: reverse, failure: p.failure}
}

// end closes the open block: a Jest block without stack frames falls back
// on its code frame, and outermost-first blocks are renumbered.
func (p *parser) end() {
	if !p.blk.open {
		return
	}
	if p.blk.kind == FormatJest {
		p.jestFallback()
	}
	if p.blk.reverse {
		n := len(p.blk.members)
		for k, i := range p.blk.members {
			p.refs[i].Frame = n - 1 - k
		}
	}
	p.blk = block{}
}

// setMsg gives the open block its message, unless it has one, and hands it
// to the refs that have none yet.
func (p *parser) setMsg(m string) {
	m = clip(m)
	if p.blk.msg != "" || m == "" {
		return
	}
	p.blk.msg = m
	for _, i := range p.blk.members {
		if p.refs[i].Message == "" {
			p.refs[i].Message = m
		}
	}
}

// emitFrame adds r as the next frame of the open block.
func (p *parser) emitFrame(r Ref) int {
	r.Frame = p.blk.frames
	r.Failure = p.blk.failure
	if r.Message == "" {
		r.Message = p.blk.msg
	}
	i := p.emit(r)
	if i >= 0 {
		p.blk.frames++
		p.blk.members = append(p.blk.members, i)
	}
	return i
}

// emit adds r unless it repeats an earlier ref, returning its index or -1.
// Go test refs wait for their package line before they are de-duplicated,
// since two packages may both print "x_test.go:12".
func (p *parser) emit(r Ref) int {
	if r.Path == "" || r.Line < 0 || r.Col < 0 {
		return -1
	}
	if r.Failure == 0 && r.Summary {
		// A run's summary repeats a failure reported above it: the same
		// test, or the same file when it names no test.
		for _, prev := range p.refs {
			if prev.Path == r.Path && prev.Format == r.Format && (prev.Func == r.Func || r.Func == "") {
				r.Failure = prev.Failure
				break
			}
		}
	}
	if r.Failure == 0 {
		// A primary location begins a failure; a deeper frame or a note
		// belongs to the one before it.
		if r.Frame == 0 || p.failure == 0 {
			p.failure++
		}
		r.Failure = p.failure
	}
	if p.inJSON {
		// Decoding JSON may have unescaped the path; a ref must quote the
		// output as printed.
		if !strings.Contains(p.jsonRaw, r.Path) {
			return -1
		}
		if r.Pkg == "" && (r.Format == FormatGoTest || r.Format == FormatGoBuild) {
			r.Pkg = p.jsonPkg
		}
	}
	r.Message = clip(r.Message)
	if r.Format == FormatGoTest && r.Pkg == "" {
		p.goPending = append(p.goPending, len(p.refs))
		p.refs = append(p.refs, r)
		return len(p.refs) - 1
	}
	if p.merge(r) {
		return -1
	}
	p.seen[keyOf(r)] = len(p.refs)
	p.refs = append(p.refs, r)
	return len(p.refs) - 1
}

// merge reports whether r repeats an earlier ref; that ref is kept, and
// takes r's column and function if it had none (Node's "path:42" header
// before "at fn (path:42:11)").
func (p *parser) merge(r Ref) bool {
	i, dup := p.seen[keyOf(r)]
	if !dup {
		return false
	}
	if first := &p.refs[i]; first.Col == 0 && first.Func == "" {
		first.Col, first.Func = r.Col, r.Func
	}
	return true
}

// settle de-duplicates refs that were waiting for a package, now that they
// have one; a repeat is marked dead (empty Path) and dropped by finish.
func (p *parser) settle(idx []int, pkg string) {
	for _, i := range idx {
		r := &p.refs[i]
		r.Pkg = pkg
		if p.merge(*r) {
			r.Path = ""
			continue
		}
		p.seen[keyOf(*r)] = i
	}
}

// finish closes what is open and returns the live refs.
func (p *parser) finish() []Ref {
	p.end()
	p.settle(p.goPending, "")
	p.goPending = nil
	out := p.refs[:0]
	for _, r := range p.refs {
		if r.Path != "" {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
