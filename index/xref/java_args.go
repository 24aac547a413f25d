package xref

import (
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/grammar"
)

// Java overloads differ by their parameters: a method's Def carries the
// argument counts it takes (Arity) and its parameters' declared types
// (ParamTypes), a call's Ref the count it passes (Args) and the types of
// the arguments the syntax shows (ArgTypes), so that the resolver can
// tell overloads apart.

// javaArity is the argument counts a method or constructor takes: one
// per formal parameter, any number more for a trailing varargs; nil for
// a compact constructor, whose parameters are the record's.
func javaArity(n *grammar.Node) *Arity {
	if n.Type() == "annotation_type_element_declaration" {
		return &Arity{}
	}
	params := field(n, "parameters")
	if params == nil {
		return nil
	}
	a := &Arity{}
	for _, p := range named(params) {
		switch p.Type() {
		case "formal_parameter":
			a.Min++
		case "spread_parameter":
			a.Max = -1
		}
	}
	if a.Max == 0 {
		a.Max = a.Min
	}
	return a
}

// argCount is the number of arguments an argument list holds.
func argCount(args *grammar.Node) int {
	n := 0
	for _, a := range named(args) {
		if t := a.Type(); t != "line_comment" && t != "block_comment" {
			n++
		}
	}
	return n
}

// setArgs gives the calls referred to since the k-th reference the
// count and the known types of the arguments of list args.
func (x *javaX) setArgs(k int, args *grammar.Node) {
	n := argCount(args)
	var types []string
	for _, a := range named(args) {
		if t := a.Type(); t != "line_comment" && t != "block_comment" {
			types = append(types, x.argType(a))
		}
	}
	if strings.Join(types, "") == "" {
		types = nil
	}
	for i := k; i < len(x.f.Refs); i++ {
		if x.f.Refs[i].Call {
			x.f.Refs[i].Args, x.f.Refs[i].ArgTypes = n, types
		}
	}
}

// anyArgs marks the calls referred to since the k-th reference as taking
// any arguments (a method reference).
func (x *javaX) anyArgs(k int) {
	for i := k; i < len(x.f.Refs); i++ {
		if x.f.Refs[i].Call {
			x.f.Refs[i].Args = -1
		}
	}
}

// argType is the type of argument expression n where the syntax shows it
// without a type checker, written as typeName writes a declared type; ""
// otherwise.
func (x *javaX) argType(n *grammar.Node) string {
	switch n.Type() {
	case "string_literal", "text_block":
		return "String"
	case "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal":
		if strings.HasSuffix(strings.ToLower(x.text(n)), "l") {
			return "long"
		}
		return "int"
	case "decimal_floating_point_literal", "hex_floating_point_literal":
		if strings.HasSuffix(strings.ToLower(x.text(n)), "f") {
			return "float"
		}
		return "double"
	case "true", "false":
		return "boolean"
	case "character_literal":
		return "char"
	case "null_literal":
		return "null"
	case "class_literal":
		return "Class"
	case "this":
		if !x.anon {
			return x.class
		}
	case "object_creation_expression", "cast_expression":
		return x.typeName(field(n, "type"))
	case "parenthesized_expression":
		if kids := named(n); len(kids) == 1 {
			return x.argType(kids[0])
		}
	case "unary_expression": // -1, -2.5
		if op := field(n, "operand"); op != nil && strings.HasSuffix(op.Type(), "_literal") && op.Type() != "string_literal" {
			return x.argType(op)
		}
	case "identifier":
		if v, ok := x.sc.lookup(x.text(n)); ok {
			return v.decl
		}
		return x.fieldTypes[x.class+"."+x.text(n)]
	case "field_access":
		if obj := field(n, "object"); obj != nil && obj.Type() == "this" && !x.anon {
			return x.fieldTypes[x.class+"."+x.text(field(n, "field"))]
		}
	}
	return ""
}

// typeName is a declared type as argType writes it: a primitive, the
// simple name of a class without its type arguments, "[]" after an
// array's element, "?" for a type variable; "" for var or anything else.
func (x *javaX) typeName(n *grammar.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "integral_type", "floating_point_type", "boolean_type":
		return x.text(n)
	case "type_identifier":
		t := x.text(n)
		switch {
		case t == "var":
			return ""
		case slices.Contains(x.tvars, t):
			return "?"
		}
		return t
	case "scoped_type_identifier":
		return lastPart(x.text(n), ".")
	case "generic_type":
		return x.typeName(childOfType(n, "type_identifier", "scoped_type_identifier"))
	case "array_type":
		if e := x.typeName(field(n, "element")); e != "" && e != "?" {
			return e + strings.Repeat("[]", strings.Count(x.text(field(n, "dimensions")), "["))
		}
	case "annotated_type":
		if kids := named(n); len(kids) > 0 {
			return x.typeName(kids[len(kids)-1])
		}
	}
	return ""
}

// paramTypes are the declared types of a method's or constructor's
// parameters (Def.ParamTypes); nil for a compact constructor.
func (x *javaX) paramTypes(n *grammar.Node) []string {
	params := field(n, "parameters")
	if params == nil || n.Type() == "compact_constructor_declaration" {
		return nil
	}
	out := []string{}
	for _, p := range named(params) {
		switch p.Type() {
		case "formal_parameter":
			out = append(out, x.typeName(field(p, "type")))
		case "spread_parameter":
			out = append(out, "...")
		}
	}
	return out
}

// typeVars brings the type variables a declaration declares into scope
// and returns what takes them out again.
func (x *javaX) typeVars(params *grammar.Node) func() {
	n := len(x.tvars)
	for _, p := range childrenOfType(params, "type_parameter") {
		if id := childOfType(p, "type_identifier", "identifier"); id != nil {
			x.tvars = append(x.tvars, x.text(id))
		}
	}
	return func() { x.tvars = x.tvars[:n] }
}

// readFieldTypes notes the declared types of the fields a class body
// declares, before its methods are walked: a method may pass a field
// declared below it.
func (x *javaX) readFieldTypes(body *grammar.Node) {
	for _, f := range childrenOfType(body, "field_declaration", "constant_declaration") {
		t := x.typeName(field(f, "type"))
		for _, d := range childrenOfType(f, "variable_declarator") {
			if name := field(d, "name"); name != nil && t != "" {
				x.fieldTypes[x.class+"."+x.text(name)] = t
			}
		}
	}
}
