package segment

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
)

// ParseTimeout bounds one tree-sitter parse; a file that takes longer is
// indexed as text windows. A smaller file has less time (parseTimeout):
// some grammars' scanners are quadratic on hostile input (Python's, on a
// run of indented comments: 6.5 s for 128 KB), and a bound in proportion
// to the size keeps any tree's cost in proportion to its bytes.
const ParseTimeout = 10 * time.Second

// parseTimeout is the time a parse of n bytes has: a second, and 10 µs a
// byte (tree-sitter parses 0.2 to 1.6 µs a byte of dense code), at most
// ParseTimeout.
func parseTimeout(n int) time.Duration {
	return min(ParseTimeout, time.Second+time.Duration(n)*10*time.Microsecond)
}

// MaxWalkSteps bounds the walk of one file's syntax tree, in nodes gone
// through (see walker.spend); a file that needs more is indexed as text
// windows. A count, not a clock, so that the same bytes always give the
// same segments. Each node costs the walk a few calls into tree-sitter,
// about a second for the whole budget; the most any file of Go's own
// source needs is 7,666 (GOROOT/src), 1 MiB of `//x` lines 262,144.
const MaxWalkSteps = 1 << 18

// Parsers holds one tree-sitter parser per language for one goroutine
// (parsers are not safe for concurrent use).
type Parsers struct {
	m map[string]*sitter.Parser
	// OnTree, when set, sees each successful parse's root before the tree
	// is freed, so a framework describer reads the same parse (see
	// index/laravel) instead of parsing the file again.
	OnTree func(language string, root *sitter.Node, src []byte)
	// budget, when not 0, stands for MaxWalkSteps (tests); steps is what
	// the last walk took.
	budget, steps int
}

// NewParsers returns an empty parser cache.
func NewParsers() *Parsers { return &Parsers{m: map[string]*sitter.Parser{}} }

// Close frees the parsers.
func (p *Parsers) Close() {
	for _, ps := range p.m {
		ps.Close()
	}
	p.m = nil
}

// code segments src with its language's grammar. why, when not "", is
// why it could not, and the file is indexed as text windows.
func (p *Parsers) code(ctx context.Context, language string, src []byte) (res Result, why string) {
	sp := specs[language]
	if sp == nil {
		return Result{}, "no grammar for " + language
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err.Error()
	}
	tree, brokenLine, err := p.tree(language, src)
	if err != nil {
		return Result{}, err.Error()
	}
	defer tree.Close()
	root := tree.RootNode()
	if p.OnTree != nil {
		p.OnTree(language, root, src)
	}
	w := &walker{sp: sp, src: src, ls: newLines(src), budget: cmp.Or(p.budget, MaxWalkSteps)}
	w.container(root, nil, false)
	w.flush()
	p.steps = w.steps
	if w.over {
		return Result{}, fmt.Sprintf("over %d syntax nodes to walk", w.budget)
	}
	sort.SliceStable(w.out, func(i, j int) bool { return w.out[i].StartByte < w.out[j].StartByte })
	sort.SliceStable(w.syms, func(i, j int) bool { return w.syms[i].StartByte < w.syms[j].StartByte })
	r := Result{Segments: w.out, Symbols: w.syms, Imports: w.imports, ParseError: root.HasError()}
	switch {
	case brokenLine > 0:
		r.ParseError, r.ErrorLine = true, brokenLine
	case r.ParseError:
		r.ErrorLine = firstErrorLine(root)
	}
	return r, ""
}

// firstErrorLine is the 1-based line of the first ERROR or MISSING node
// under n, which has an error: a user told "parse errors" can look there.
func firstErrorLine(n *sitter.Node) int {
	for n != nil {
		if n.IsError() || n.IsMissing() {
			return int(n.StartPoint().Row) + 1
		}
		var next *sitter.Node
		for _, c := range grammar.Children(n) {
			if c.Node.HasError() || c.Node.IsMissing() {
				next = c.Node
				break
			}
		}
		if next == nil {
			return int(n.StartPoint().Row) + 1
		}
		n = next
	}
	return 0
}

// Tree is the syntax tree of src that the segmenter walks: its language's
// grammar's parse, tried again without the macros that broke it where the
// language has them (see withoutMacros). The caller closes it. An error
// says why there is none (the parse took too long).
func (p *Parsers) Tree(language string, src []byte) (*sitter.Tree, error) {
	tree, _, err := p.tree(language, src)
	return tree, err
}

// tree is Tree, with the line of the first parse error when the tree has
// definitions' bodies commented out to find the rest (see
// withoutBrokenBodies), 0 otherwise.
func (p *Parsers) tree(language string, src []byte) (_ *sitter.Tree, brokenLine int, _ error) {
	ps := p.m[language]
	if ps == nil {
		ps = sitter.NewParser()
		ps.SetLanguage(grammar.Of(language))
		p.m[language] = ps
	}
	// tree-sitter's own timeout, not a cancellable context: the binding's
	// cancel goroutine can fire after a parse completes and leave the
	// parser refusing every later parse.
	limit := parseTimeout(len(src))
	ps.SetOperationLimit(int(limit / time.Microsecond))
	tree, err := ps.ParseCtx(context.Background(), nil, src)
	if err != nil || tree == nil {
		ps.Close()
		delete(p.m, language)
		return nil, 0, fmt.Errorf("the parse took over %s", limit.Round(10*time.Millisecond))
	}
	ok := true
	switch sp := specs[language]; {
	case sp == nil:
	case sp.macros:
		tree, ok = withoutMacros(ps, tree, src)
	case sp.bodies != nil:
		tree, brokenLine, ok = withoutBrokenBodies(ps, sp.bodies, tree, src)
	}
	if !ok {
		ps.Close()
		delete(p.m, language)
	}
	return tree, brokenLine, nil
}

// spec describes one grammar to the generic walker.
type spec struct {
	// funcs are node types that define a function (a method inside a class).
	funcs map[string]bool
	// classes are type-like definitions; their bodies are walked for methods.
	classes map[string]Kind
	// containers are namespaces, modules and preprocessor blocks: walked,
	// never chunked themselves. Their name (if any) becomes a parent.
	containers map[string]bool
	// wrappers wrap one definition (export, decorators, templates); the
	// span covers the wrapper, the kind comes from what it wraps.
	wrappers map[string]string // node type -> field of the inner node ("" = last named child)
	comments map[string]bool
	// attrs are attributes that sit above a definition (Rust's #[derive]):
	// like doc comments they join the definition's span, but not its Doc.
	attrs map[string]bool
	// imports returns the import specs a top-level node declares, if any.
	imports func(n *sitter.Node, src []byte) []string
	// name overrides the default "name" field lookup. It may return parents
	// (for qualified names like A::b).
	name func(n *sitter.Node, src []byte) (string, []string)
	// special handles node types the generic rules cannot (Go's grouped type
	// declarations, JS arrow-function constants). It returns false to fall
	// through to the generic rules.
	special func(w *walker, n, outer *sitter.Node, parents []string, inClass bool) bool
	// decls are definitions chunked verbatim without walking inside
	// (type aliases).
	decls map[string]Kind
	// headers are top-level nodes that group with imports (package clauses).
	headers map[string]bool
	// bodyless are containers whose members are their own children.
	bodyless map[string]bool
	// conds are preprocessor conditionals: walked like bodyless containers,
	// but they are not scopes (an include guard is no parent) and their
	// condition is not code.
	conds map[string]bool
	// empty are classes that are definitions without a body too (Ruby's
	// `class Error < StandardError; end`), chunked verbatim.
	empty map[string]bool
	// overloads are body-less declarations that, followed by a definition
	// of the same name, are its overload signatures (TypeScript's
	// `function f(a: A): R;` before `function f(x) {...}`): they join its
	// span as its doc comments do.
	overloads map[string]bool
	// groups are nodes inside a class body whose children are the class's
	// members (Java's enum_body_declarations, after an enum's constants).
	groups map[string]bool
	// compounds are statements whose blocks may hold definitions (Python's
	// module-level `if`, `try`/`except`/`else`, `with`): their blocks are
	// walked, their headers are top-level code (see compound).
	compounds map[string]bool
	// blocks are the nodes of a compound statement that hold its
	// statements (Python's block, Ruby's then and else); a compound that
	// is a block itself (Ruby's begin) is walked as one.
	blocks map[string]bool
	// macros: the language's macros stand where the grammar wants a type
	// or a name, and a parse they broke is tried again without them (see
	// withoutMacros).
	macros bool
	// bodies, when set, are the lines that open and close a definition,
	// by which a parse that lost its place is tried again with the broken
	// definition's body as comments (see withoutBrokenBodies).
	bodies *bodyLines
	// elide is what replaces a member body in an outline.
	elide string
	// doc returns a docstring found inside a definition (Python).
	doc func(n *sitter.Node, src []byte) string
	// members returns the member symbols a node declares (constants,
	// variables, fields, enum members, function-valued properties); n is
	// the node unwrapped, outer the node as written, cls the class whose
	// body holds it (nil outside one).
	members func(n, outer, cls *sitter.Node, src []byte) []member
}

type run struct {
	start, end  int
	imports     bool
	nonEmpty    bool
	commentOnly bool
}

type walker struct {
	sp       *spec
	src      []byte
	ls       lines
	out      []Segment
	imports  []string
	pending  []*sitter.Node // comments waiting to see what follows them
	leftover run
	syms     []Symbol
	seen     map[string]bool // member symbols emitted, by qualified name
	cls      *sitter.Node    // the class whose body is being walked
	// after are the named siblings that follow the node being walked by
	// container, for a look ahead (an overload's definition).
	after []*sitter.Node
	// steps counts the nodes the walk has gone through (see spend); past
	// budget, over is set and the walk stops.
	steps, budget int
	over          bool
}

// spend charges n steps to the walk and reports whether it is over its
// budget, in which case the caller stops.
func (w *walker) spend(n int) bool {
	w.steps += n
	if w.steps > w.budget {
		w.over = true
	}
	return w.over
}

// named lists n's named children, charged to the walk's budget by the
// children the cursor goes through; none once the walk is over it.
func (w *walker) named(n *sitter.Node) []*sitter.Node {
	if w.over || w.spend(int(n.ChildCount())) {
		return nil
	}
	return children(n, "")
}

func (w *walker) text(n *sitter.Node) string { return string(w.src[n.StartByte():n.EndByte()]) }

// container walks the named children of n.
func (w *walker) container(n *sitter.Node, parents []string, inClass bool) {
	var prev *sitter.Node
	kids, saved := w.named(n), w.after
	for i, c := range kids {
		if w.over {
			return
		}
		w.after = kids[i+1:]
		w.child(n, prev, c, parents, inClass)
		prev = c
	}
	w.after = saved
	if inClass {
		w.pending = nil // comments among members belong to the outline
		return
	}
	w.flushPending()
}

// child walks c, the named child of n after prev. A comment that starts on
// the line where the code before it ends is a trailing remark on that code
// (`x := 1 // why`, `} // namespace a`), not the doc of what follows.
func (w *walker) child(n, prev, c *sitter.Node, parents []string, inClass bool) {
	trailing := false
	if w.comment(c) && len(w.pending) == 0 {
		if prev != nil {
			trailing = !w.comment(prev) && c.StartPoint().Row == prev.EndPoint().Row
		} else {
			trailing = c.StartPoint().Row == n.StartPoint().Row && c.StartByte() > n.StartByte()
		}
	}
	switch {
	case !trailing:
		w.node(c, parents, inClass)
	case !inClass:
		// Members' remarks live in the outline; top-level ones stay with
		// the code around them.
		w.extend(int(c.StartByte()), int(c.EndByte()), false, true)
	}
}

func (w *walker) node(c *sitter.Node, parents []string, inClass bool) {
	typ := c.Type()
	if w.comment(c) || w.sp.attrs[typ] {
		if len(w.pending) > 0 {
			if w.detached(c) {
				w.flushPending()
			}
		}
		w.pending = append(w.pending, c)
		return
	}
	if !inClass && w.sp.headers[typ] && w.body(c) == nil {
		w.addLeftover(c, true)
		return
	}
	if !inClass && w.sp.imports != nil {
		if specs := w.sp.imports(c, w.src); len(specs) > 0 {
			w.imports = append(w.imports, specs...)
			w.addLeftover(c, true)
			return
		}
	}
	inner := w.unwrap(c)
	if w.sp.members != nil {
		var cls *sitter.Node
		if inClass {
			cls = w.cls
		}
		w.addMembers(w.sp.members(inner, c, cls, w.src), c, parents)
	}
	if w.sp.special != nil && w.sp.special(w, inner, c, parents, inClass) {
		return
	}
	it := inner.Type()
	switch {
	case w.sp.overloads[it] && w.overloaded(inner):
		w.pending = append(w.pending, c)
	case w.sp.funcs[it] && inClass && w.body(inner) == nil:
		// A body-less member (interface or abstract method) lives in the
		// outline, and is a symbol of its own there.
		name, qual := w.nameOf(inner)
		w.addMembers([]member{{name: name, kind: Method, node: c, sub: qual}}, c, parents)
		w.pending = nil
	case w.sp.funcs[it]:
		w.function(inner, c, parents, inClass)
	case w.sp.decls[it] != "":
		w.flushLeftover()
		name, qual := w.nameOf(inner)
		w.emitSymbol(inner, c, w.sp.decls[it], name, append(append([]string(nil), parents...), qual...))
	case w.sp.classes[it] != "" && w.body(inner) != nil:
		w.class(inner, c, parents)
	case w.sp.empty[it]:
		w.flushLeftover()
		name, qual := w.nameOf(inner)
		w.emitSymbol(inner, c, w.sp.classes[it], name, append(append([]string(nil), parents...), qual...))
	case w.sp.conds[it]:
		w.conditional(inner, parents)
	case w.sp.groups[it] && inClass:
		w.container(inner, parents, true)
	case w.sp.compounds[it] && w.defines(inner, 0):
		w.compound(inner, parents, inClass)
	case w.sp.containers[it] && (w.body(inner) != nil || w.sp.bodyless[it]):
		w.flushAll()
		name, _ := w.nameOf(inner)
		ps := parents
		if name != "" {
			ps = append(append([]string(nil), parents...), name)
		}
		switch body := w.body(inner); {
		case body != nil && w.definition(body):
			// `extern "C" int f(...) {...}`: the body is the definition.
			w.node(body, ps, false)
		case body != nil:
			w.container(body, ps, false)
		default:
			w.container(inner, ps, false)
		}
	default:
		if inClass {
			// Fields and other members live in the class outline.
			w.pending = nil
			return
		}
		w.addLeftover(c, false)
	}
}

// unwrap returns the definition inside wrapper nodes (decorators, exports,
// templates), or n itself.
func (w *walker) unwrap(n *sitter.Node) *sitter.Node {
	for {
		field, ok := w.sp.wrappers[n.Type()]
		if !ok {
			return n
		}
		var next *sitter.Node
		if field != "" {
			next = n.ChildByFieldName(field)
		} else if k := w.named(n); len(k) > 0 {
			next = k[len(k)-1]
		}
		if next == nil {
			return n
		}
		n = next
	}
}

func (w *walker) body(n *sitter.Node) *sitter.Node { return n.ChildByFieldName("body") }

// conditional walks the branches of a preprocessor conditional, skipping
// its condition (the macro name of #ifdef, the expression of #if).
func (w *walker) conditional(n *sitter.Node, parents []string) {
	w.flushAll()
	// Looked up once: a field lookup goes through the children, a
	// conditional can hold thousands.
	name, cond := n.ChildByFieldName("name"), n.ChildByFieldName("condition")
	var prev *sitter.Node
	for _, c := range w.named(n) {
		if w.over {
			return
		}
		if same(name, c) || same(cond, c) {
			prev = c
			continue
		}
		w.child(n, prev, c, parents, false)
		prev = c
	}
	w.flushPending()
}

// same reports whether f (nil: none) is the node c.
func same(f, c *sitter.Node) bool {
	return f != nil && f.StartByte() == c.StartByte() && f.EndByte() == c.EndByte()
}

func (w *walker) nameOf(n *sitter.Node) (string, []string) {
	if w.sp.name != nil {
		if name, ps := w.sp.name(n, w.src); name != "" {
			return name, ps
		}
	}
	if nn := n.ChildByFieldName("name"); nn != nil {
		return w.text(nn), nil
	}
	return "", nil
}

// docStart takes the pending comments directly above n as its doc.
func (w *walker) docStart(n *sitter.Node) (int, string) {
	start := int(n.StartByte())
	if len(w.pending) == 0 {
		return start, ""
	}
	if w.detached(n) {
		// Detached comments are top-level code that ends before n.
		w.flushPending()
		w.flushLeftover()
		return start, ""
	}
	start = int(w.pending[0].StartByte())
	// Attributes are code, not documentation.
	var docs []string
	for _, c := range w.pending {
		// A macro the parse read as a comment (see withoutMacros) is
		// code too.
		if w.comment(c) && !(w.sp.macros && macroLike(w.text(c))) {
			docs = append(docs, w.text(c))
		}
	}
	w.pending = nil
	return start, strings.Join(docs, "\n")
}

// headerComments returns the comments between a definition's name and its
// body: Python and Ruby attach a comment above the first member there, not
// to the body.
func (w *walker) headerComments(n *sitter.Node) []*sitter.Node {
	name, body := n.ChildByFieldName("name"), w.body(n)
	if name == nil || body == nil {
		return nil
	}
	var out []*sitter.Node
	for _, c := range w.named(n) {
		if w.comment(c) && c.StartByte() >= name.EndByte() && c.EndByte() <= body.StartByte() {
			out = append(out, c)
		}
	}
	return out
}

// signature is the text from the start of n to its body, on one line.
func (w *walker) signature(n *sitter.Node) string {
	end := int(n.EndByte())
	if hc := w.headerComments(n); len(hc) > 0 {
		end = int(hc[0].StartByte())
	} else if b := w.body(n); b != nil {
		end = int(b.StartByte())
	} else if nl := strings.IndexByte(w.text(n), '\n'); nl >= 0 {
		end = int(n.StartByte()) + nl
	}
	return collapse(strings.TrimRight(string(w.src[n.StartByte():end]), " \t\r\n{:"), 300)
}

func (w *walker) function(n, outer *sitter.Node, parents []string, inClass bool) {
	w.flushLeftover()
	name, qual := w.nameOf(n)
	kind := Function
	if inClass || len(qual) > 0 {
		kind = Method
	}
	w.emitSymbol(n, outer, kind, name, append(append([]string(nil), parents...), qual...))
}

// emitSymbol emits the verbatim span of a definition (with its doc).
func (w *walker) emitSymbol(n, outer *sitter.Node, kind Kind, name string, parents []string) {
	start, doc := w.docStart(outer)
	if w.sp.doc != nil {
		if d := w.sp.doc(n, w.src); d != "" {
			doc = strings.TrimSpace(doc + "\n" + d)
		}
	}
	seg := span(w.src, w.ls, kind, start, int(outer.EndByte()))
	seg.Name, seg.Parents, seg.Signature, seg.Doc = name, parents, w.signature(n), collapse(doc, 600)
	w.out = emitSplit(w.out, w.src, w.ls, seg, 0)
}

// class emits the outline of a type (header, fields and member signatures,
// member bodies elided) and walks its body for methods and nested types.
func (w *walker) class(n, outer *sitter.Node, parents []string) {
	w.flushLeftover()
	name, qual := w.nameOf(n)
	kind := w.sp.classes[n.Type()]
	body := w.body(n)
	start, doc := w.docStart(outer)
	if w.sp.doc != nil {
		if d := w.sp.doc(n, w.src); d != "" {
			doc = strings.TrimSpace(doc + "\n" + d)
		}
	}
	end := int(outer.EndByte())
	// Elide the bodies of direct members that get chunks of their own.
	var cuts [][2]int
	members := false
	for _, m := range w.members(body) {
		inner := w.unwrap(m)
		if nt := w.nestedType(inner); nt != nil {
			inner = nt
		}
		t := inner.Type()
		if w.sp.compounds[t] && w.defines(inner, 0) {
			members = true // definitions under an `if` in the body have chunks of their own
		}
		if w.sp.funcs[t] || w.sp.classes[t] != "" {
			b := w.body(inner)
			members = members || b != nil
			if b != nil && b.EndByte() > b.StartByte() {
				cuts = append(cuts, [2]int{int(b.StartByte()), int(b.EndByte())})
			}
		}
	}
	seg := span(w.src, w.ls, kind, start, end)
	seg.Name, seg.Parents, seg.Signature, seg.Doc = name, append(append([]string(nil), parents...), qual...), w.signature(n), collapse(doc, 600)
	if len(cuts) > 0 {
		var b strings.Builder
		pos := start
		for _, c := range cuts {
			b.Write(w.src[pos:c[0]])
			b.WriteString(w.sp.elide)
			pos = c[1]
		}
		b.Write(w.src[pos:end])
		seg.Text, seg.Outline = b.String(), true
	}
	// Members get chunks of their own, so the class encloses them even when
	// there was no body to elide (a parse error left one empty).
	seg.Outline = seg.Outline || members
	w.out = emitSplit(w.out, w.src, w.ls, seg, 0)
	inner := append(append([]string(nil), seg.Parents...), name)
	// A comment below the header line documents the first member.
	for _, c := range w.headerComments(n) {
		if c.StartPoint().Row > n.StartPoint().Row {
			w.pending = append(w.pending, c)
		}
	}
	saved := w.cls
	w.cls = n
	w.container(body, inner, true)
	w.cls = saved
}

func (w *walker) addLeftover(n *sitter.Node, isImport bool) {
	start, end := int(n.StartByte()), int(n.EndByte())
	if len(w.pending) > 0 {
		start = int(w.pending[0].StartByte())
		w.pending = nil
	}
	w.extend(start, end, isImport, false)
}

func (w *walker) extend(start, end int, isImport, comment bool) {
	r := &w.leftover
	if r.nonEmpty && EstimateTokens(end-r.start) > MaxTokens {
		w.flushLeftover()
	}
	if !r.nonEmpty {
		*r = run{start: start, end: end, imports: true, nonEmpty: true, commentOnly: true}
	}
	r.end = end
	r.imports = r.imports && (isImport || comment)
	r.commentOnly = r.commentOnly && comment
}

// flushPending turns comments that doc nothing into top-level code.
func (w *walker) flushPending() {
	for _, c := range w.pending {
		w.extend(int(c.StartByte()), int(c.EndByte()), false, w.comment(c))
	}
	w.pending = nil
}

func (w *walker) flushLeftover() {
	r := w.leftover
	w.leftover = run{}
	// A run of zero-width nodes (what the parser inserts for missing
	// tokens) or of white space is no unit.
	if !r.nonEmpty || len(bytes.TrimSpace(w.src[r.start:r.end])) == 0 {
		return
	}
	kind := TopLevel
	if r.imports && !r.commentOnly {
		kind = Imports
	}
	w.out = emitSplit(w.out, w.src, w.ls, span(w.src, w.ls, kind, r.start, r.end), 0)
}

func (w *walker) flushAll() {
	w.flushPending()
	w.flushLeftover()
}

func (w *walker) flush() { w.flushAll() }
