package laravel

import (
	"path"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/grammar"
)

// x walks one file's tree.
type x struct {
	src  []byte
	path string
	f    Facts
	uses map[string]string // alias (lower case) -> fully qualified name
	fn   string            // the method being read
	ls   []int
	// Where is the construct being read, for a failure's line.
	appgraph.Where
}

// Extract reads the facts of the PHP file at rel (slash path) from its
// tree-sitter root. What it does not recognise it skips; a panic of its
// walk (a bug) is an appgraph.Failure at the line of the statement, class
// member or route it was reading.
func Extract(root *sitter.Node, src []byte, rel string) *Facts {
	if root == nil {
		return &Facts{}
	}
	e := &x{src: src, path: rel, uses: map[string]string{}}
	defer e.Located(src)
	e.ls = []int{0}
	for i, b := range src {
		if b == '\n' {
			e.ls = append(e.ls, i+1)
		}
	}
	e.top(root)
	return &e.f
}

func (e *x) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(e.src[n.StartByte():n.EndByte()])
}

func (e *x) line(off int) int {
	i, _ := slices.BinarySearch(e.ls, off+1)
	return i
}

func (e *x) span(n *sitter.Node) Span {
	end := int(n.EndByte())
	last := end - 1
	if last < int(n.StartByte()) {
		last = int(n.StartByte())
	}
	return Span{StartByte: int(n.StartByte()), EndByte: end, StartLine: e.line(int(n.StartByte())), EndLine: e.line(last)}
}

// named lists n's named children (see grammar.Named).
func named(n *sitter.Node) []*sitter.Node { return grammar.Named(n) }

// eachNamed calls f with each named node under n (n left out), parents
// before their children, with one cursor for the whole walk; f returns
// whether to go into the node's children. Only named nodes are gone into.
func eachNamed(n *sitter.Node, f func(k *sitter.Node) bool) {
	top := true
	grammar.Walk(n, func(k *sitter.Node) bool {
		if top {
			top = false
			return true
		}
		return k.IsNamed() && f(k)
	})
}

func childOf(n *sitter.Node, typ string) *sitter.Node {
	for _, c := range named(n) {
		if c.Type() == typ {
			return c
		}
	}
	return nil
}

// top walks the program's statements (and those of namespace blocks).
func (e *x) top(n *sitter.Node) {
	configFile := e.configName()
	routeGroup := group{}
	for _, c := range named(n) {
		e.At = c.StartByte()
		switch c.Type() {
		case "php_tag", "text", "text_interpolation":
			continue
		case "namespace_definition":
			e.f.Namespace = e.text(c.ChildByFieldName("name"))
			if body := c.ChildByFieldName("body"); body != nil {
				e.top(body)
				continue
			}
		case "namespace_use_declaration":
			e.use(c)
		case "class_declaration", "trait_declaration":
			e.class(c, e.text(c.ChildByFieldName("name")), c.ChildByFieldName("body"))
		case "return_statement":
			if v := firstNamed(c); v != nil {
				switch {
				case v.Type() == "object_creation_expression" && childOf(v, "declaration_list") != nil:
					// return new class extends Migration { ... };
					e.class(v, "", childOf(v, "declaration_list"))
				case configFile != "" && v.Type() == "array_creation_expression":
					e.config(configFile, v)
				case v.Type() == "member_call_expression":
					e.withRouting(v)
				}
			}
		case "expression_statement":
			e.routeStmt(c, &routeGroup)
		}
		e.f.Stmts = append(e.f.Stmts, e.span(c))
	}
}

func firstNamed(n *sitter.Node) *sitter.Node {
	for _, c := range named(n) {
		if c.Type() != "comment" {
			return c
		}
	}
	return nil
}

// configName is "app" for config/app.php (any depth of config/), else "".
func (e *x) configName() string {
	dir, base := path.Split(e.path)
	if path.Base(strings.TrimSuffix(dir, "/")) != "config" || !strings.HasSuffix(base, ".php") {
		return ""
	}
	return strings.TrimSuffix(base, ".php")
}

func (e *x) use(n *sitter.Node) {
	prefix := ""
	if g := childOf(n, "namespace_name"); g != nil { // use A\{B, C as D};
		prefix = e.text(g) + `\`
	}
	var clauses []*sitter.Node
	for _, c := range named(n) {
		switch c.Type() {
		case "namespace_use_clause":
			clauses = append(clauses, c)
		case "namespace_use_group":
			for _, g := range named(c) {
				if g.Type() == "namespace_use_group_clause" || g.Type() == "namespace_use_clause" {
					clauses = append(clauses, g)
				}
			}
		}
	}
	for _, c := range clauses {
		var full, alias string
		for _, p := range named(c) {
			switch p.Type() {
			case "qualified_name", "name", "namespace_name":
				if full == "" {
					full = e.text(p)
				} else {
					alias = e.text(p)
				}
			case "namespace_aliasing_clause":
				alias = e.text(childOf(p, "name"))
			}
		}
		full = strings.TrimPrefix(prefix+strings.TrimPrefix(full, `\`), `\`)
		if full == "" {
			continue
		}
		if alias == "" {
			alias = full[strings.LastIndexByte(full, '\\')+1:]
		}
		e.uses[strings.ToLower(alias)] = full
	}
}

// resolve turns a class name as written into a fully qualified one.
func (e *x) resolve(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return ""
	}
	if strings.HasPrefix(name, `\`) {
		return name[1:]
	}
	first, rest, qualified := strings.Cut(name, `\`)
	if full, ok := e.uses[strings.ToLower(first)]; ok {
		if qualified {
			return full + `\` + rest
		}
		return full
	}
	switch strings.ToLower(name) {
	case "self", "static", "parent":
		return ""
	}
	if e.f.Namespace != "" {
		return e.f.Namespace + `\` + name
	}
	return name
}

// classRef is the class a `X::class` expression or a name node names.
func (e *x) classRef(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "class_constant_access_expression":
		parts := named(n)
		if len(parts) == 2 && e.text(parts[1]) == "class" {
			return e.resolve(e.text(parts[0]))
		}
	case "name", "qualified_name":
		return e.resolve(e.text(n))
	}
	return ""
}

// str is the value of a plain string literal, ok false for anything else.
func (e *x) str(n *sitter.Node) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Type() == "argument" {
		if v := argValue(n); v != nil {
			return e.str(v)
		}
		return "", false
	}
	switch n.Type() {
	case "string", "encapsed_string":
		var b strings.Builder
		for _, c := range named(n) {
			switch c.Type() {
			case "string_content", "string_value":
				b.WriteString(e.text(c))
			case "escape_sequence":
				b.WriteString(strings.TrimPrefix(e.text(c), `\`))
			default:
				return "", false // interpolation
			}
		}
		return b.String(), true
	}
	return "", false
}

// strs is a string or an array of strings.
func (e *x) strs(n *sitter.Node) []string {
	if n == nil {
		return nil
	}
	if n.Type() == "argument" {
		n = argValue(n)
		if n == nil {
			return nil
		}
	}
	if s, ok := e.str(n); ok {
		return []string{s}
	}
	if n.Type() != "array_creation_expression" {
		return nil
	}
	var out []string
	for _, el := range named(n) {
		if el.Type() != "array_element_initializer" {
			continue
		}
		vs := named(el)
		if len(vs) == 0 {
			continue
		}
		if s, ok := e.str(vs[len(vs)-1]); ok {
			out = append(out, s)
		}
	}
	return out
}

// args lists the argument nodes of a call.
func args(call *sitter.Node) []*sitter.Node {
	a := call.ChildByFieldName("arguments")
	if a == nil {
		return nil
	}
	var out []*sitter.Node
	for _, c := range named(a) {
		if c.Type() == "argument" {
			if v := argValue(c); v != nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// argValue is an argument's expression (after the name of a named one).
func argValue(arg *sitter.Node) *sitter.Node {
	vs := named(arg)
	if len(vs) == 0 {
		return nil
	}
	return vs[len(vs)-1]
}

// namedArgs maps the named arguments of a call to their expressions.
func (e *x) namedArgs(call *sitter.Node) map[string]*sitter.Node {
	out := map[string]*sitter.Node{}
	a := call.ChildByFieldName("arguments")
	if a == nil {
		return out
	}
	for _, c := range named(a) {
		if n := c.ChildByFieldName("name"); c.Type() == "argument" && n != nil {
			out[e.text(n)] = argValue(c)
		}
	}
	return out
}

// link is one call of a fluent chain.
type link struct {
	name string
	call *sitter.Node
}

// chain flattens `A::b(..)->c(..)->d(..)` (or `$v->b(..)->c(..)`) into
// its head (the scope or variable) and its calls, innermost first.
func (e *x) chain(n *sitter.Node) (head string, links []link) {
	for n != nil {
		switch n.Type() {
		case "member_call_expression", "nullsafe_member_call_expression":
			links = append(links, link{e.text(n.ChildByFieldName("name")), n})
			n = n.ChildByFieldName("object")
		case "scoped_call_expression":
			links = append(links, link{e.text(n.ChildByFieldName("name")), n})
			head = e.text(n.ChildByFieldName("scope"))
			n = nil
		case "variable_name":
			head = e.text(n)
			n = nil
		default:
			head = ""
			n = nil
		}
	}
	slices.Reverse(links)
	return head, links
}
