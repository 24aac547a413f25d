package segment

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/lang"
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

const braceElide = "{ … }"

var specs = map[string]*spec{
	lang.Go: {
		funcs:    set("function_declaration", "method_declaration"),
		comments: set("comment"),
		imports:  goImports,
		name:     goName,
		special:  goTypes,
		members:  goMembers,
		headers:  set("package_clause"),
		elide:    braceElide,
	},
	lang.Python: {
		funcs:    set("function_definition"),
		classes:  map[string]Kind{"class_definition": Class},
		wrappers: map[string]string{"decorated_definition": "definition"},
		comments: set("comment"),
		imports:  pythonImports,
		elide:    "...",
		doc:      pythonDoc,
		members:  pythonMembers,
		compounds: set("if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
			"except_group_clause", "finally_clause", "with_statement"),
		blocks: set("block"),
	},
	lang.JavaScript: jsSpec(),
	lang.TypeScript: jsSpec(),
	lang.TSX:        jsSpec(),
	lang.Rust: {
		funcs:      set("function_item"),
		classes:    map[string]Kind{"struct_item": Struct, "enum_item": Enum, "trait_item": Trait, "impl_item": Impl, "union_item": Struct},
		containers: set("mod_item", "foreign_mod_item"),
		decls:      map[string]Kind{"type_item": TypeDef},
		comments:   set("line_comment", "block_comment"),
		attrs:      set("attribute_item"),
		imports:    fieldImports("use_declaration", "argument"),
		name:       rustName,
		special:    rustUnitStruct,
		members:    rustMembers,
		elide:      braceElide,
	},
	lang.Java: {
		funcs: set("method_declaration", "constructor_declaration", "compact_constructor_declaration"),
		classes: map[string]Kind{"class_declaration": Class, "interface_declaration": Interface, "enum_declaration": Enum,
			"record_declaration": Record, "annotation_type_declaration": Interface},
		comments: set("line_comment", "block_comment"),
		imports:  keywordImports("import_declaration", "import", "static"),
		members:  javaMembers,
		groups:   set("enum_body_declarations"),
		headers:  set("package_declaration"),
		elide:    braceElide,
	},
	lang.C: {
		funcs:      set("function_definition"),
		classes:    map[string]Kind{"struct_specifier": Struct, "union_specifier": Struct, "enum_specifier": Enum},
		containers: set("linkage_specification"),
		conds:      set("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif"),
		comments:   set("comment"),
		imports:    fieldImports("preproc_include", "path"),
		name:       cName,
		special:    cTypedef,
		members:    cMembers,
		macros:     true,
		elide:      braceElide,
	},
	lang.CPP: {
		funcs: set("function_definition"),
		classes: map[string]Kind{"class_specifier": Class, "struct_specifier": Struct, "union_specifier": Struct,
			"enum_specifier": Enum},
		containers: set("namespace_definition", "linkage_specification"),
		conds:      set("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif"),
		decls:      map[string]Kind{"alias_declaration": TypeDef, "concept_definition": TypeDef},
		wrappers:   map[string]string{"template_declaration": "", "friend_declaration": ""},
		comments:   set("comment"),
		imports:    fieldImports("preproc_include", "path"),
		name:       cName,
		special:    cTypedef,
		members:    cMembers,
		macros:     true,
		elide:      braceElide,
	},
	lang.CSharp: {
		funcs: set("method_declaration", "constructor_declaration", "destructor_declaration", "operator_declaration",
			"conversion_operator_declaration", "local_function_statement"),
		classes: map[string]Kind{"class_declaration": Class, "interface_declaration": Interface, "struct_declaration": Struct,
			"enum_declaration": Enum, "record_declaration": Record, "record_struct_declaration": Record},
		containers: set("namespace_declaration", "file_scoped_namespace_declaration"),
		bodyless:   set("file_scoped_namespace_declaration"),
		decls:      map[string]Kind{"delegate_declaration": TypeDef},
		// `record Point(int X, int Y);` (and C# 12's `class C(int a);`)
		empty:    set("record_declaration", "record_struct_declaration", "class_declaration", "struct_declaration"),
		comments: set("comment"),
		imports:  keywordImports("using_directive", "using", "static", "global"),
		name:     csharpName,
		members:  csharpMembers,
		elide:    braceElide,
	},
	lang.PHP: {
		funcs: set("function_definition", "method_declaration"),
		classes: map[string]Kind{"class_declaration": Class, "interface_declaration": Interface, "trait_declaration": Trait,
			"enum_declaration": Enum},
		containers: set("namespace_definition"),
		comments:   set("comment"),
		imports:    keywordImports("namespace_use_declaration", "use", "function", "const"),
		headers:    set("php_tag", "namespace_definition"), // `<?php`, `namespace A;`: PHP's package clause
		members:    phpMembers,
		elide:      braceElide,
	},
	lang.Ruby: {
		funcs:   set("method", "singleton_method"),
		classes: map[string]Kind{"class": Class, "module": Module, "singleton_class": Class},
		empty:   set("class", "module"),
		// `begin ... rescue ... end` and `if`/`unless` (at the top or in a
		// class body) around definitions.
		compounds: set("begin", "if", "unless", "elsif", "rescue"),
		// `def except(*keys) ... end if RUBY_VERSION >= "3.0"`
		wrappers: map[string]string{"if_modifier": "body", "unless_modifier": "body"},
		blocks:   set("then", "else", "ensure", "begin"),
		comments: set("comment"),
		imports:  rubyImports,
		name:     rubyName,
		members:  rubyMembers,
		elide:    "# …",
	},
	lang.Bash: {
		funcs:    set("function_definition"),
		comments: set("comment"),
		imports:  bashImports,
		members:  bashMembers,
		// `if ...; then f() {...} else f() {...} fi`, `case` items: the
		// clauses hold their statements directly.
		compounds: set("if_statement", "elif_clause", "else_clause", "case_statement", "case_item"),
		blocks:    set("if_statement", "elif_clause", "else_clause", "case_statement", "case_item"),
		bodies:    bashBodies,
		elide:     braceElide,
	},
}

func jsSpec() *spec {
	return &spec{
		// Signatures are functions without a body: a `declare function`,
		// an interface's or abstract class's method, or an overload.
		funcs: set("function_declaration", "generator_function_declaration", "method_definition",
			"function_signature", "method_signature", "abstract_method_signature"),
		overloads: set("function_signature", "method_signature"),
		classes: map[string]Kind{"class_declaration": Class, "abstract_class_declaration": Class, "class": Class,
			"interface_declaration": Interface, "enum_declaration": Enum},
		// A statement block at the top level is `declare global { ... }`'s.
		containers: set("internal_module", "module", "statement_block"),
		bodyless:   set("statement_block"),
		decls:      map[string]Kind{"type_alias_declaration": TypeDef},
		wrappers:   map[string]string{"export_statement": "declaration", "ambient_declaration": "", "expression_statement": ""},
		comments:   set("comment"),
		imports:    jsImports,
		special:    jsSpecial,
		name:       jsSymbolName,
		members:    jsMembers,
		elide:      braceElide,
	}
}

func unquote(s string) string { return strings.Trim(s, "\"'`<> ") }

// fieldImports returns the text of field in nodes of type typ.
func fieldImports(typ, field string) func(n *sitter.Node, src []byte) []string {
	return func(n *sitter.Node, src []byte) []string {
		if n.Type() != typ {
			return nil
		}
		if f := n.ChildByFieldName(field); f != nil {
			return []string{unquote(f.Content(src))}
		}
		return nil
	}
}

// keywordImports strips the leading keywords and trailing ";" of an import node.
func keywordImports(typ string, keywords ...string) func(n *sitter.Node, src []byte) []string {
	return func(n *sitter.Node, src []byte) []string {
		if n.Type() != typ {
			return nil
		}
		s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n.Content(src)), ";"))
		for changed := true; changed; {
			changed = false
			for _, k := range keywords {
				if strings.HasPrefix(s, k+" ") {
					s, changed = strings.TrimSpace(s[len(k):]), true
				}
			}
		}
		return []string{collapse(s, 200)}
	}
}

func goImports(n *sitter.Node, src []byte) []string {
	if n.Type() != "import_declaration" {
		return nil
	}
	var out []string
	var visit func(*sitter.Node)
	visit = func(x *sitter.Node) {
		if x.Type() == "import_spec" {
			if p := x.ChildByFieldName("path"); p != nil {
				out = append(out, unquote(p.Content(src)))
			}
			return
		}
		for _, c := range children(x, "") {
			visit(c)
		}
	}
	visit(n)
	return out
}

// goName gives methods their receiver type as parent.
func goName(n *sitter.Node, src []byte) (string, []string) {
	if n.Type() != "method_declaration" {
		return "", nil
	}
	name := n.ChildByFieldName("name")
	recv := n.ChildByFieldName("receiver")
	if name == nil || recv == nil {
		return "", nil
	}
	// The receiver's type node, not its text: "(f *FlagBase[T, C, VC])"
	// splits on spaces inside the type arguments.
	var t string
	for _, p := range children(recv, "") {
		if p.Type() == "parameter_declaration" {
			t = goBaseType(p.ChildByFieldName("type"), src)
		}
	}
	if t == "" {
		return "", nil
	}
	return name.Content(src), []string{t}
}

// goBaseType is the name of a receiver's base type: *T[K, V] -> T.
func goBaseType(t *sitter.Node, src []byte) string {
	for t != nil {
		switch t.Type() {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "generic_type":
			t = t.ChildByFieldName("type")
		case "type_identifier", "identifier":
			return t.Content(src)
		default:
			return ""
		}
	}
	return ""
}

// goTypes emits one segment per type spec of a type declaration.
func goTypes(w *walker, n, outer *sitter.Node, parents []string, _ bool) bool {
	if n.Type() != "type_declaration" {
		return false
	}
	var specsN []*sitter.Node
	kids := w.named(n)
	for _, s := range kids {
		if s.Type() == "type_spec" || s.Type() == "type_alias" {
			specsN = append(specsN, s)
		}
	}
	kindOf := func(s *sitter.Node) Kind {
		if t := s.ChildByFieldName("type"); t != nil {
			switch t.Type() {
			case "struct_type":
				return Struct
			case "interface_type":
				return Interface
			}
		}
		return TypeDef
	}
	if len(specsN) == 0 {
		w.addLeftover(outer, false)
		return true
	}
	w.flushLeftover()
	if len(specsN) == 1 && len(kids) == 1 {
		name, _ := w.nameOf(specsN[0])
		w.emitSymbol(specsN[0], outer, kindOf(specsN[0]), name, parents)
		return true
	}
	// A group: each spec takes the doc comments directly above it inside
	// the parentheses.
	w.flushAll()
	var prev *sitter.Node
	for _, c := range kids {
		switch {
		case w.comment(c):
			w.child(n, prev, c, parents, false)
		case c.Type() == "type_spec" || c.Type() == "type_alias":
			w.flushLeftover()
			name, _ := w.nameOf(c)
			w.emitSymbol(c, c, kindOf(c), name, parents)
		}
		prev = c
	}
	w.flushAll()
	return true
}

func pythonImports(n *sitter.Node, src []byte) []string {
	switch n.Type() {
	case "import_from_statement":
		if m := n.ChildByFieldName("module_name"); m != nil {
			return []string{m.Content(src)}
		}
	case "import_statement":
		var out []string
		for _, c := range children(n, "") {
			if c.Type() == "aliased_import" {
				c = c.ChildByFieldName("name")
			}
			if c != nil {
				out = append(out, c.Content(src))
			}
		}
		return out
	}
	return nil
}

func pythonDoc(n *sitter.Node, src []byte) string {
	body := n.ChildByFieldName("body")
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	first := body.NamedChild(0)
	if first.Type() == "expression_statement" && first.NamedChildCount() == 1 && first.NamedChild(0).Type() == "string" {
		return first.Content(src)
	}
	return ""
}

func jsImports(n *sitter.Node, src []byte) []string {
	switch n.Type() {
	case "import_statement", "export_statement":
		if s := n.ChildByFieldName("source"); s != nil {
			return []string{unquote(s.Content(src))}
		}
	}
	return nil
}

// jsSpecial chunks `const f = () => ...` and `const f = function() ...` as functions.
func jsSpecial(w *walker, n, outer *sitter.Node, parents []string, inClass bool) bool {
	if inClass || (n.Type() != "lexical_declaration" && n.Type() != "variable_declaration") || n.NamedChildCount() != 1 {
		return false
	}
	d := n.NamedChild(0)
	if d.Type() != "variable_declarator" {
		return false
	}
	v, name := d.ChildByFieldName("value"), d.ChildByFieldName("name")
	if v == nil || name == nil {
		return false
	}
	switch v.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
	default:
		return false
	}
	w.flushLeftover()
	start, doc := w.docStart(outer)
	seg := span(w.src, w.ls, Function, start, int(outer.EndByte()))
	sigEnd := int(outer.EndByte())
	if b := v.ChildByFieldName("body"); b != nil {
		sigEnd = int(b.StartByte())
	}
	seg.Name, seg.Parents, seg.Doc = name.Content(w.src), parents, collapse(doc, 600)
	seg.Signature = collapse(strings.TrimRight(string(w.src[n.StartByte():sigEnd]), " \t\n{"), 300)
	w.out = emitSplit(w.out, w.src, w.ls, seg, 0)
	return true
}

// rustUnitStruct emits a unit struct (`struct Marker;`), which has no body
// for the generic class rule to walk, as a definition of its own.
func rustUnitStruct(w *walker, n, outer *sitter.Node, parents []string, _ bool) bool {
	if n.Type() != "struct_item" || w.body(n) != nil {
		return false
	}
	w.flushLeftover()
	name, qual := w.nameOf(n)
	w.emitSymbol(n, outer, Struct, name, append(append([]string(nil), parents...), qual...))
	return true
}

// csharpName names an operator as ctags does: "operator ==".
func csharpName(n *sitter.Node, src []byte) (string, []string) {
	if n.Type() == "operator_declaration" {
		if op := n.ChildByFieldName("operator"); op != nil {
			return "operator " + op.Content(src), nil
		}
	}
	return "", nil
}

func rustName(n *sitter.Node, src []byte) (string, []string) {
	if n.Type() == "impl_item" {
		if t := n.ChildByFieldName("type"); t != nil {
			return t.Content(src), nil
		}
	}
	return "", nil
}

// cName digs the function name out of C/C++ declarators; A::b gives b with
// parent A.
func cName(n *sitter.Node, src []byte) (string, []string) {
	d := n.ChildByFieldName("declarator")
	for d != nil {
		switch d.Type() {
		case "identifier", "field_identifier", "type_identifier", "destructor_name", "operator_name", "primitive_type":
			return d.Content(src), nil
		case "operator_cast":
			return castName(d, src), nil
		case "qualified_identifier":
			scope, name := d.ChildByFieldName("scope"), d.ChildByFieldName("name")
			if name == nil {
				return d.Content(src), nil
			}
			inner, ps := cNameOf(name, src)
			if scope != nil {
				ps = append([]string{scope.Content(src)}, ps...)
			}
			return inner, ps
		}
		next := d.ChildByFieldName("declarator")
		if next == nil && d.NamedChildCount() > 0 {
			next = d.NamedChild(0)
		}
		d = next
	}
	return "", nil
}

func cNameOf(n *sitter.Node, src []byte) (string, []string) {
	if n.Type() == "operator_cast" {
		return castName(n, src), nil
	}
	if n.Type() == "qualified_identifier" {
		scope, name := n.ChildByFieldName("scope"), n.ChildByFieldName("name")
		if name != nil {
			inner, ps := cNameOf(name, src)
			if scope != nil {
				ps = append([]string{scope.Content(src)}, ps...)
			}
			return inner, ps
		}
	}
	return n.Content(src), nil
}

// castName names a conversion operator by its type, as ctags does:
// `explicit operator bool() const` is "operator bool".
func castName(n *sitter.Node, src []byte) string {
	if t := n.ChildByFieldName("type"); t != nil {
		return "operator " + t.Content(src)
	}
	return n.Content(src)
}

// cTypedef chunks `typedef struct {...} Name;` as a type named Name, and
// walks a type declared in a class body (see nestedType) as a class.
func cTypedef(w *walker, n, outer *sitter.Node, parents []string, _ bool) bool {
	if t := w.nestedType(n); t != nil {
		w.class(t, outer, parents)
		return true
	}
	if n.Type() != "type_definition" {
		return false
	}
	t := n.ChildByFieldName("type")
	d := n.ChildByFieldName("declarator")
	if t == nil || d == nil || t.ChildByFieldName("body") == nil {
		return false
	}
	w.flushLeftover()
	kind := Struct
	if t.Type() == "enum_specifier" {
		kind = Enum
	}
	w.emitSymbol(n, outer, kind, d.Content(w.src), parents)
	return true
}

func rubyName(n *sitter.Node, src []byte) (string, []string) {
	if n.Type() == "singleton_method" {
		if name := n.ChildByFieldName("name"); name != nil {
			return "self." + name.Content(src), nil
		}
	}
	return "", nil
}

func rubyImports(n *sitter.Node, src []byte) []string {
	if n.Type() != "call" {
		return nil
	}
	m := n.ChildByFieldName("method")
	if m == nil {
		return nil
	}
	switch m.Content(src) {
	case "require", "require_relative", "load":
		if a := n.ChildByFieldName("arguments"); a != nil && a.NamedChildCount() > 0 {
			return []string{unquote(a.NamedChild(0).Content(src))}
		}
	}
	return nil
}

func bashImports(n *sitter.Node, src []byte) []string {
	if n.Type() != "command" {
		return nil
	}
	name := n.ChildByFieldName("name")
	if name == nil {
		return nil
	}
	switch name.Content(src) {
	case "source", ".":
		if a := n.ChildByFieldName("argument"); a != nil {
			return []string{unquote(a.Content(src))}
		}
	}
	return nil
}
