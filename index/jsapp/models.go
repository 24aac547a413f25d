package jsapp

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// A Mongoose model (mongoose.model('Product', productSchema)) is a class
// whose fully qualified name is the model's name, as Mongoose registers it
// (ref: 'User' names a model that way); its table is the collection (the
// third argument, or Mongoose's lower-case plural). A schema field with
// ref: 'User' is a relation to that model. A handler that names an
// imported model (Product.findById) uses it.

// model is a mongoose.model call seen by the walk.
type model struct {
	name, collection string
	call             *sitter.Node
}

// mongooseModel reads mongoose.model('Name', schema[, 'collection']).
func (ex *express) mongooseModel(n *sitter.Node, fn *sitter.Node) {
	t := ex.text(fn)
	if t != "mongoose.model" && t != "model" && !strings.HasSuffix(t, "mongoose.model") {
		return
	}
	args := named(n.ChildByFieldName("arguments"))
	if len(args) < 2 {
		return
	}
	name, ok := ex.str(args[0])
	if !ok || name == "" {
		return
	}
	m := model{name: name, call: n}
	if len(args) > 2 {
		m.collection, _ = ex.str(args[2])
	}
	if m.collection == "" {
		m.collection = collection(name)
	}
	ex.models = append(ex.models, m)
}

// ref reads a schema field's ref: 'Model' (the field is the key of the
// object that holds it, or of the array around that object).
func (ex *express) ref(pair *sitter.Node) {
	if ex.text(pair.ChildByFieldName("key")) != "ref" {
		return
	}
	target, ok := ex.str(pair.ChildByFieldName("value"))
	if !ok || target == "" {
		return
	}
	for p, depth := pair.Parent(), 0; p != nil && depth < 4; p, depth = p.Parent(), depth+1 {
		if p.Type() == "pair" {
			field := strings.Trim(ex.text(p.ChildByFieldName("key")), `"'`)
			for _, r := range ex.refs {
				if r.Method == field && r.Target == target {
					return
				}
			}
			ex.refs = append(ex.refs, appgraph.Relation{Method: field, Type: "ref", Target: target, Span: ex.span(p)})
			return
		}
	}
}

// collection is the collection Mongoose gives a model: lower case, plural.
func collection(name string) string {
	s := strings.ToLower(name)
	switch {
	case strings.HasSuffix(s, "s"):
		return s
	case strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case len(s) > 1 && strings.HasSuffix(s, "y") && !strings.ContainsAny(s[len(s)-2:len(s)-1], "aeiou"):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// modelClasses are the file's models; each takes the ref fields of the
// file's schemas (a model file defines one model and its sub-schemas).
func (ex *express) modelClasses() []appgraph.Class {
	var out []appgraph.Class
	for _, m := range ex.models {
		sp := ex.span(m.call)
		for _, st := range ex.f.Stmts { // the statement that registers it
			if st.StartByte <= sp.StartByte && st.EndByte >= sp.EndByte {
				sp = st
				break
			}
		}
		out = append(out, appgraph.Class{Name: m.name, FQN: m.name, Role: appgraph.RoleModel, Table: m.collection,
			TableExplicit: m.collection != collection(m.name), Relations: ex.refs, Span: sp})
	}
	return out
}

// uses lists the imported models a function names: identifiers that
// start upper case and are bound to a relative import (Product from
// '../models/productModel.js', { User } from '../models').
func (ex *express) uses(fn *sitter.Node) []string {
	if fn == nil {
		return nil
	}
	var out []string
	c := sitter.NewTreeCursor(fn)
	defer c.Close()
	for {
		n := c.CurrentNode()
		descend := true
		switch n.Type() {
		case "identifier":
			name := ex.text(n)
			if b, ok := ex.binds[name]; ok && b.module != "" && name[0] >= 'A' && name[0] <= 'Z' {
				if b.export != "" && b.export != "default" {
					name = b.export
				}
				if !contains(out, name) {
					out = append(out, name)
				}
			}
		case "string", "template_string", "comment":
			descend = false
		}
		if descend && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return out
			}
			if c.CurrentNode().Equal(fn) {
				return out
			}
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
