package xref

import (
	"strings"

	"github.com/dossierhq/dossier/index/grammar"

	"github.com/dossierhq/dossier/index/lang"
)

// Ruby: require and require_relative are imports (Local ""). Definitions
// are classes and modules (at the top level: Ruby's constants are global;
// Bases: the superclass and the modules included or extended), methods
// and singleton methods (Container the class or module), attr_reader,
// attr_writer and attr_accessor names (fields) and constants.
//
// A call through self, or without a receiver to a method the enclosing
// class of the file defines or inherits, is Via Self (to a top-level method
// of the file, Via Bare); super is Via Super; Foo.bar is Via Type with Foo
// as written and Foo.new refers to the class Foo; a local or instance
// variable assigned Foo.new is a Foo; any other receiver is Via Unknown.

func init() { register(lang.Ruby, parseRuby) }

type rubyX struct {
	*builder
	sc     *scope
	class  string
	method string
	// ivars are the values of the instance variables, per class.
	ivars map[string]Val
	// methods are the methods the file defines, "Class.name" (top level:
	// ".name").
	methods map[string]bool
}

func parseRuby(src []byte) (*File, error) {
	tree, err := parse(lang.Ruby, src)
	if err != nil {
		return nil, err
	}
	x := &rubyX{builder: newBuilder(src), sc: newScope(), ivars: map[string]Val{}, methods: map[string]bool{}}
	root := tree.Root()
	x.scan(root, "")
	x.walk(root)
	return x.done(), nil
}

func (x *rubyX) text(n *grammar.Node) string { return text(n, x.src) }

// scan records the methods the file defines, per class.
func (x *rubyX) scan(n *grammar.Node, class string) {
	for _, c := range named(n) {
		switch c.Type() {
		case "class", "module":
			x.scan(field(c, "body"), lastPart(x.text(field(c, "name")), "::"))
		case "method", "singleton_method":
			x.methods[class+"."+x.text(field(c, "name"))] = true
		case "call":
			if m := x.text(field(c, "method")); strings.HasPrefix(m, "attr_") {
				for _, s := range named(field(c, "arguments")) {
					x.methods[class+"."+strings.TrimPrefix(x.text(s), ":")] = true
				}
			}
		default:
			x.scan(c, class)
		}
	}
}

func (x *rubyX) walk(n *grammar.Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "comment", "string_content", "heredoc_content", "simple_symbol", "escape_sequence":
		return
	case "class", "module":
		x.classDef(n)
	case "singleton_class":
		x.walk(field(n, "body"))
	case "method", "singleton_method":
		x.methodDef(n)
	case "assignment", "operator_assignment":
		left, right := field(n, "left"), field(n, "right")
		x.walk(right)
		switch {
		case left == nil:
		case left.Type() == "identifier":
			x.sc.set(x.text(left), x.value(right))
		case left.Type() == "instance_variable":
			if v := x.value(right); v.Known() {
				x.ivars[x.class+"."+x.text(left)] = v
			}
		case left.Type() == "constant" && x.method == "":
			x.def(nodeDef(n, left, x.src, "const", x.class))
		default:
			for _, id := range identifiers(left) {
				x.sc.set(x.text(id), Val{})
			}
			if left.Type() == "call" || left.Type() == "element_reference" {
				x.walk(left)
			}
		}
	case "block", "do_block", "lambda":
		up := x.sc
		x.sc = up.push()
		for _, p := range named(field(n, "parameters")) {
			for _, id := range identifiers(p) {
				x.sc.set(x.text(id), Val{})
			}
		}
		x.walk(field(n, "body"))
		for _, c := range named(n) {
			if c.Type() != "block_parameters" && c.Type() != "lambda_parameters" && !same(c, field(n, "body")) {
				x.walk(c)
			}
		}
		x.sc = up
	case "call":
		x.call(n)
	case "identifier":
		x.bareCall(n, false)
	case "super":
		if x.method != "" {
			x.ref(Ref{Name: x.method, Start: int(n.StartByte()), Call: true, Via: Super})
		}
	case "constant":
		x.ref(nameRef(n, x.src, false, Bare, ""))
	case "scope_resolution":
		x.constRef(n, false)
	default:
		for _, c := range named(n) {
			x.walk(c)
		}
	}
}

func (x *rubyX) classDef(n *grammar.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	kind := "class"
	if n.Type() == "module" {
		kind = "module"
	}
	full := x.text(name)
	_, last := splitQualified(full, "::")
	d := Def{Name: last, Kind: kind, Start: int(n.StartByte()), End: int(n.EndByte()),
		NameStart: int(name.EndByte()) - len(last)}
	if sup := field(n, "superclass"); sup != nil {
		for _, c := range named(sup) {
			d.Bases = append(d.Bases, x.text(c))
			x.walk(c)
		}
	}
	body := field(n, "body")
	for _, c := range childrenOfType(body, "call") {
		switch x.text(field(c, "method")) {
		case "include", "extend", "prepend":
			for _, a := range named(field(c, "arguments")) {
				d.Bases = append(d.Bases, x.text(a))
			}
		}
	}
	x.enter(x.def(d))
	defer x.leave()
	outer, method := x.class, x.method
	x.class, x.method = last, ""
	defer func() { x.class, x.method = outer, method }()
	up := x.sc
	x.sc = newScope()
	defer func() { x.sc = up }()
	for _, c := range named(body) {
		if c.Type() == "call" && field(c, "receiver") == nil {
			if m := x.text(field(c, "method")); strings.HasPrefix(m, "attr_") {
				for _, s := range named(field(c, "arguments")) {
					if s.Type() == "simple_symbol" {
						d := Def{Name: strings.TrimPrefix(x.text(s), ":"), Kind: "field", Container: last,
							Start: int(c.StartByte()), End: int(c.EndByte()), NameStart: int(s.StartByte()) + 1}
						x.def(d)
					}
				}
				continue
			}
		}
		x.walk(c)
	}
}

func (x *rubyX) methodDef(n *grammar.Node) {
	name := field(n, "name")
	if name == nil {
		return
	}
	kind := "method"
	if x.class == "" {
		kind = "function"
	}
	x.enter(x.def(nodeDef(n, name, x.src, kind, x.class)))
	defer x.leave()
	outer := x.method
	x.method = x.text(name)
	defer func() { x.method = outer }()
	up := x.sc
	x.sc = newScope() // a method sees no outer locals
	defer func() { x.sc = up }()
	for _, p := range named(field(n, "parameters")) {
		for _, c := range named(p) {
			if c.Type() != "identifier" {
				x.walk(c) // default values
			}
		}
		for _, id := range identifiers(p) {
			x.sc.set(x.text(id), Val{})
			break
		}
	}
	x.walk(field(n, "body"))
}

// bareCall is a method called without a receiver (or an identifier that
// is no local: a call without arguments).
func (x *rubyX) bareCall(n *grammar.Node, call bool) {
	name := x.text(n)
	if _, ok := x.sc.lookup(name); ok {
		return
	}
	switch name {
	case "private", "protected", "public", "module_function", "private_constant":
		return
	}
	switch {
	case x.class != "" && x.methods[x.class+"."+name]:
		x.ref(nameRef(n, x.src, true, Self, ""))
	case x.methods["."+name]:
		x.ref(nameRef(n, x.src, true, Bare, ""))
	case name == "new" && x.class != "":
		x.ref(Ref{Name: x.class, Start: int(n.StartByte()), Call: true, Via: Bare})
	case x.class != "":
		x.ref(nameRef(n, x.src, true, Self, ""))
	default:
		x.ref(nameRef(n, x.src, true, Bare, ""))
	}
}

func (x *rubyX) call(n *grammar.Node) {
	recv, m := field(n, "receiver"), field(n, "method")
	args := field(n, "arguments")
	if recv == nil && m != nil {
		switch x.text(m) {
		case "require", "require_relative", "load":
			if s := childOfType(args, "string"); s != nil {
				x.f.Imports = append(x.f.Imports, Import{Spec: x.text(childOfType(s, "string_content")),
					Line: int(n.StartPoint().Row) + 1})
				return
			}
		case "include", "extend", "prepend", "private", "protected", "public", "module_function":
			x.walk(args)
			return
		}
		if m.Type() == "identifier" {
			x.bareCall(m, true)
		}
	} else if m != nil {
		name := x.text(m)
		if name != "new" || recv.Type() != "constant" && recv.Type() != "scope_resolution" {
			x.walk(recv)
		}
		switch {
		case name == "new" && (recv.Type() == "constant" || recv.Type() == "scope_resolution"):
			x.constRef(recv, true)
		case name == "new" && recv.Type() == "self":
			x.ref(Ref{Name: x.class, Start: int(m.StartByte()), Call: true, Via: Bare})
		default:
			x.member(name, int(m.StartByte()), true, x.value(recv))
		}
	}
	x.walk(args)
	x.walk(field(n, "block"))
}

// constRef refers to a constant as written (Foo, Shop::Foo).
func (x *rubyX) constRef(n *grammar.Node, call bool) {
	if n.Type() == "constant" {
		x.ref(nameRef(n, x.src, call, Bare, ""))
		return
	}
	qual, last := splitQualified(x.text(n), "::")
	if qual == "" {
		x.ref(Ref{Name: last, Start: int(n.EndByte()) - len(last), Call: call, Via: Bare})
		return
	}
	x.ref(Ref{Name: last, Start: int(n.EndByte()) - len(last), Call: call, Via: Type, Qual: qual})
}

// value is what the syntax shows of the class of expression n.
func (x *rubyX) value(n *grammar.Node) Val {
	if n == nil {
		return Val{}
	}
	switch n.Type() {
	case "self":
		return self()
	case "constant", "scope_resolution":
		return typed(strings.TrimPrefix(x.text(n), "::"))
	case "identifier":
		if v, ok := x.sc.lookup(x.text(n)); ok {
			return v
		}
		if x.class != "" && x.methods[x.class+"."+x.text(n)] {
			return self().Then(x.text(n))
		}
	case "instance_variable":
		return x.ivars[x.class+"."+x.text(n)]
	case "call":
		recv, m := field(n, "receiver"), field(n, "method")
		if recv != nil && x.text(m) == "new" && (recv.Type() == "constant" || recv.Type() == "scope_resolution") {
			return typed(x.text(recv))
		}
	case "parenthesized_statements":
		if kids := named(n); len(kids) == 1 {
			return x.value(kids[0])
		}
	}
	return Val{}
}
