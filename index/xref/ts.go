package xref

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
)

// parseTimeout bounds one parse, as index/segment does: a file that takes
// longer has no references rather than a stuck expansion.
const parseTimeout = 10 * time.Second

// register makes x the extractor of language. Each language's file calls
// it from its init function, so adding a language touches no shared file.
func register(language string, x func(src []byte) (*File, error)) {
	if !grammar.Has(language) {
		panic("xref: no grammar for " + language)
	}
	extractors[language] = x
}

// registerDefs makes x language's extractor of definitions alone (see
// ParseDefs); optional.
func registerDefs(language string, x func(src []byte) (*File, error)) { defsOnly[language] = x }

// pools keep parsers per language: a parser is not safe for concurrent
// use, and making one per file costs more than the parse of a small file.
var pools sync.Map // language -> *sync.Pool

// parse parses src with language's grammar, into a copy in Go memory (see
// grammar.Flatten): an extractor's walk goes through every node, often
// more than once, which through the binding's nodes cost several times
// the parse.
func parse(language string, src []byte) (*grammar.Tree, error) {
	if !grammar.Has(language) {
		return nil, fmt.Errorf("%s: %w", language, ErrUnsupported)
	}
	pv, _ := pools.LoadOrStore(language, &sync.Pool{New: func() any {
		p := sitter.NewParser()
		p.SetLanguage(grammar.Of(language))
		p.SetOperationLimit(int(parseTimeout / time.Microsecond))
		return p
	}})
	pool := pv.(*sync.Pool)
	p := pool.Get().(*sitter.Parser)
	// tree-sitter's own limit, not a cancellable context: the binding's
	// cancel goroutine can fire after a parse and spoil the parser.
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil || tree == nil {
		p.Close()
		return nil, fmt.Errorf("%s parse: took longer than %s or failed", language, parseTimeout)
	}
	pool.Put(p)
	defer tree.Close()
	return grammar.Flatten(tree), nil
}

// text is the source text of n ("" for a nil node).
func text(n *grammar.Node, src []byte) string {
	if n == nil {
		return ""
	}
	return string(src[n.StartByte():n.EndByte()])
}

// field is n's child in the named field, nil when n is nil or has none.
func field(n *grammar.Node, name string) *grammar.Node {
	if n == nil {
		return nil
	}
	return n.ChildByFieldName(name)
}

// named lists n's named children, none for nil.
func named(n *grammar.Node) []*grammar.Node { return n.Named() }

// walk visits n and its descendants in source order; fn returns false to
// skip a node's children.
func walk(n *grammar.Node, fn func(*grammar.Node) bool) { n.Walk(fn) }

// builder is what every extractor fills: the File, plus the stack of
// enclosing definitions that gives each Ref its In.
type builder struct {
	f   *File
	src []byte
	in  []int // indexes in f.Defs of the enclosing definitions
}

func newBuilder(src []byte) *builder {
	return &builder{f: &File{}, src: src}
}

// def adds d and returns its index.
func (b *builder) def(d Def) int {
	b.f.Defs = append(b.f.Defs, d)
	return len(b.f.Defs) - 1
}

// enter makes def i the enclosing definition until the matching leave.
func (b *builder) enter(i int) { b.in = append(b.in, i) }

func (b *builder) leave() { b.in = b.in[:len(b.in)-1] }

// cur is the innermost enclosing definition, -1 at top level.
func (b *builder) cur() int {
	if len(b.in) == 0 {
		return -1
	}
	return b.in[len(b.in)-1]
}

// ref adds a reference made at the current place.
func (b *builder) ref(r Ref) {
	r.In = b.cur()
	b.f.Refs = append(b.f.Refs, r)
}

// done sorts the references by offset and returns the file.
func (b *builder) done() *File {
	sort.SliceStable(b.f.Refs, func(i, j int) bool { return b.f.Refs[i].Start < b.f.Refs[j].Start })
	return b.f
}

// Val is what the syntax shows about the type of a value: how its type is
// reached, as a Ref reaches a name (a local typed T is Via Type, Qual "T";
// the receiver is Via Self; the result of pkg.NewT() is Via Package, Qual
// "pkg", Chain ["NewT"]). The zero Val is unknown.
type Val struct {
	Via   Via
	Qual  string
	Chain []string
	known bool
	// coll is what a Go value of the type holds when it is a collection:
	// 's' a slice or array, 'm' a map, 'c' a channel (Qual is then the
	// element's type), 0 otherwise.
	coll byte
	// ret: the value is a function literal returning a value of this
	// type; calling it gives the value.
	ret bool
	// fields are the fields of an anonymous struct type (a table of test
	// cases): no definition to resolve, but its fields have types.
	fields map[string]Val
	// decl is a Java variable's declared type as javaArgType writes it
	// (primitives too, which Via cannot carry), for overload choice.
	decl string
}

// typed is a value of the type written t.
func typed(t string) Val {
	if t == "" {
		return Val{}
	}
	return Val{Via: Type, Qual: t, known: true}
}

// self is the receiver, this or self.
func self() Val { return Val{Via: Self, known: true} }

// reached is a value reached through a name: its declared type is the
// resolver's to find (a global variable, a function's result).
func reached(via Via, qual string, chain ...string) Val {
	return Val{Via: via, Qual: qual, Chain: chain, known: true}
}

// Known reports whether the syntax shows anything about the value's type.
func (v Val) Known() bool { return v.known }

// Then is the value reached through member name of v (a field, or the
// result of a method): its type is the member's declared type.
func (v Val) Then(name string) Val {
	if !v.known || v.ret {
		return Val{}
	}
	if v.fields != nil {
		return v.fields[name]
	}
	if (v.Via == Type || v.Via == Self || v.Via == Super) && len(v.Chain) == 0 {
		return Val{Via: v.Via, Qual: v.Qual, Chain: []string{name}, known: true}
	}
	return Val{Via: v.Via, Qual: v.Qual, Chain: append(append([]string(nil), v.Chain...), name), known: true}
}

// Result is the value of the i-th result of the call whose value v is
// (its last Chain member is the function), unknown when v is no call's.
func (v Val) Result(i int) Val {
	if !v.known || len(v.Chain) == 0 || v.ret || v.fields != nil {
		return Val{}
	}
	chain := append([]string(nil), v.Chain...)
	chain[len(chain)-1] += "#" + strconv.Itoa(i)
	return Val{Via: v.Via, Qual: v.Qual, Chain: chain, known: true}
}

// member is the reference to name through a receiver of value v: Via
// Unknown when nothing is known of v.
func (b *builder) member(name string, start int, call bool, v Val) {
	if !v.known || v.ret || v.fields != nil {
		b.ref(Ref{Name: name, Start: start, Call: call, Via: Unknown})
		return
	}
	b.ref(Ref{Name: name, Start: start, Call: call, Via: v.Via, Qual: v.Qual, Chain: v.Chain})
}

// scope is a block of local names: parameters, receivers, variables.
// A local that shadows a global makes a bare call of that name not a
// reference; its value types member calls through it.
type scope struct {
	up   *scope
	vars map[string]Val
}

func newScope() *scope { return &scope{vars: map[string]Val{}} }

func (s *scope) push() *scope { return &scope{up: s, vars: map[string]Val{}} }

// set declares name in s with value v (the zero Val when unknown).
func (s *scope) set(name string, v Val) {
	if name != "" && name != "_" {
		s.vars[name] = v
	}
}

// lookup finds the innermost local name and its value.
func (s *scope) lookup(name string) (v Val, ok bool) {
	for x := s; x != nil; x = x.up {
		if v, ok := x.vars[name]; ok {
			return v, true
		}
	}
	return Val{}, false
}

// vals remembers what an extractor worked out about the value of each
// expression node of one file, so a chain of n members (x.a.b...m(), as
// generated code writes them) is worked out once per link, not once per
// link for every enclosing link. Keys are a node's span and type; a
// value's Chain is never appended to in place (Then copies), so sharing it
// is safe.
type vals map[valKey]Val

type valKey struct {
	start, end uint32
	typ        string
}

// of is f(n), from the memory when n was worked out before.
func (m vals) of(n *grammar.Node, f func(*grammar.Node) Val) Val {
	if n == nil {
		return Val{}
	}
	k := valKey{n.StartByte(), n.EndByte(), n.Type()}
	if v, ok := m[k]; ok {
		return v
	}
	v := f(n)
	m[k] = v
	return v
}
