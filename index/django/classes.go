package django

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// ModuleBase is the Base of the controller a module of function views
// stands for (blog.views, whose methods are its view functions).
const ModuleBase = "module"

// relationFields are the model fields that relate to another model.
var relationFields = map[string]bool{
	"ForeignKey": true, "OneToOneField": true, "ManyToManyField": true,
	"ParentalKey": true, "ParentalManyToManyField": true, "GenericRelation": true,
}

// classes reads the module's classes that Django gives a role (models,
// class-based views and view sets, serializers, forms) and its function
// views.
func (e *x) classes(stmts []*sitter.Node, kind fileKind) {
	roles := map[string]string{} // local class name -> role
	var views []Method
	for _, c := range stmts {
		e.At = c.StartByte()
		def := c
		if c.Type() == "decorated_definition" {
			def = c.ChildByFieldName("definition")
		}
		if def == nil {
			continue
		}
		switch def.Type() {
		case "class_definition":
			if cls, ok := e.class(c, def, roles, kind); ok {
				roles[cls.Name] = cls.Role
				e.f.Classes = append(e.f.Classes, cls)
			}
		case "function_definition":
			if isView(e, def) {
				views = append(views, Method{Name: e.text(def.ChildByFieldName("name")), Uses: e.uses(def.ChildByFieldName("body"), nil), Span: e.span(c)})
			}
		}
	}
	if len(views) > 0 {
		e.f.Classes = append(e.f.Classes, Class{Name: lastPart(e.module), FQN: e.module, Base: ModuleBase,
			Role: appgraph.RoleController, Methods: views, Span: Span{StartByte: 0, EndByte: len(e.src), StartLine: 1, EndLine: max(1, e.line(max(0, len(e.src)-1)))}})
	}
}

// isView reports whether a top-level function is a function view: its
// first parameter is the request.
func isView(e *x, def *sitter.Node) bool {
	ps := named(def.ChildByFieldName("parameters"))
	if len(ps) == 0 {
		return false
	}
	p := ps[0]
	if p.Type() == "typed_parameter" {
		p = firstNamed(p)
	}
	return p != nil && p.Type() == "identifier" && e.text(p) == "request"
}

// class reads one class: its role from its bases, then what the role
// makes worth keeping.
func (e *x) class(outer, def *sitter.Node, roles map[string]string, kind fileKind) (Class, bool) {
	name := e.text(def.ChildByFieldName("name"))
	var bases []string
	for _, b := range named(def.ChildByFieldName("superclasses")) {
		if b.Type() == "identifier" || b.Type() == "attribute" {
			bases = append(bases, e.text(b))
		}
	}
	body := def.ChildByFieldName("body")
	role := ""
	for _, b := range bases {
		if role = e.role(b, roles); role != "" {
			break
		}
	}
	if role == "" && kind == kindModels && len(bases) > 0 && (e.meta(body) != nil || e.hasFields(body)) {
		role = appgraph.RoleModel
	}
	if role == "" {
		return Class{}, false
	}
	c := Class{Name: name, FQN: e.module + "." + name, Role: role, Span: e.span(outer)}
	for i, b := range bases {
		if i == 0 {
			c.Base = e.qualify(b)
		} else {
			c.Mixins = append(c.Mixins, e.qualify(b))
		}
	}
	switch role {
	case appgraph.RoleModel:
		e.model(&c, body, bases, roles)
	default:
		e.members(&c, body)
	}
	return c, true
}

// role is the role a base class gives (models.Model: model, ListView:
// controller, ModelSerializer: resource, ModelForm: request), or the role
// of a class of this module it names.
func (e *x) role(base string, roles map[string]string) string {
	if r, ok := roles[base]; ok {
		return r
	}
	full := e.resolve(base)
	if full == "" {
		full = base
	}
	last := lastPart(full)
	switch {
	case full == "django.db.models.Model" || base == "models.Model":
		return appgraph.RoleModel
	case strings.HasPrefix(full, "django.db.models."):
		return "" // Manager, QuerySet, fields: no models
	case strings.Contains("."+full+".", ".models.") && last != "" && last[0] >= 'A' && last[0] <= 'Z' &&
		!strings.HasSuffix(last, "Mixin") && !strings.HasSuffix(last, "Manager") && !strings.HasSuffix(last, "QuerySet"):
		return appgraph.RoleModel
	case strings.HasSuffix(last, "View") || strings.HasSuffix(last, "ViewSet") || strings.HasSuffix(last, "APIView"):
		return appgraph.RoleController
	case strings.HasSuffix(last, "Serializer"):
		return appgraph.RoleResource
	case strings.HasSuffix(last, "Form") || strings.HasSuffix(last, "FormSet"):
		return appgraph.RoleRequest
	}
	return ""
}

// meta is the class's inner `class Meta:` body.
func (e *x) meta(body *sitter.Node) *sitter.Node {
	for _, s := range named(body) {
		if s.Type() == "class_definition" && e.text(s.ChildByFieldName("name")) == "Meta" {
			return s.ChildByFieldName("body")
		}
	}
	return nil
}

// hasFields reports whether a class body assigns a model field.
func (e *x) hasFields(body *sitter.Node) bool {
	for _, s := range named(body) {
		if _, typ, _ := e.field(s); typ != "" {
			return true
		}
	}
	return false
}

// field reads `name = models.CharField(...)`: the name, the field type and
// the call.
func (e *x) field(s *sitter.Node) (string, string, *sitter.Node) {
	if s.Type() != "expression_statement" {
		return "", "", nil
	}
	a := firstNamed(s)
	if a == nil || a.Type() != "assignment" {
		return "", "", nil
	}
	l, r := a.ChildByFieldName("left"), a.ChildByFieldName("right")
	fn, _, _, ok := e.call(r)
	if !ok || l == nil || l.Type() != "identifier" {
		return "", "", nil
	}
	typ := lastPart(fn)
	if !strings.HasSuffix(typ, "Field") && !relationFields[typ] && typ != "ForeignKey" {
		return "", "", nil
	}
	return e.text(l), typ, r
}

// metaValue is the value assigned to key in a Meta body.
func (e *x) metaValue(meta *sitter.Node, key string) *sitter.Node {
	for _, s := range named(meta) {
		if s.Type() != "expression_statement" {
			continue
		}
		if a := firstNamed(s); a != nil && a.Type() == "assignment" && e.text(a.ChildByFieldName("left")) == key {
			return a.ChildByFieldName("right")
		}
	}
	return nil
}

// model reads a model's table, fields and relations.
func (e *x) model(c *Class, body *sitter.Node, bases []string, roles map[string]string) {
	meta := e.meta(body)
	label := e.appLabel()
	if l, ok := e.str(e.metaValue(meta, "app_label")); ok {
		label = l
	}
	switch t, ok := e.str(e.metaValue(meta, "db_table")); {
	case ok:
		c.Table, c.TableExplicit = t, true
	case e.text(e.metaValue(meta, "abstract")) == "True":
	case e.text(e.metaValue(meta, "proxy")) == "True":
		for _, b := range bases { // a proxy shares its concrete parent's table
			for _, k := range e.f.Classes {
				if k.Name == b && k.Role == appgraph.RoleModel {
					c.Table = k.Table
				}
			}
		}
	case label != "":
		c.Table = label + "_" + strings.ToLower(c.Name)
	}
	for _, s := range named(body) {
		e.At = s.StartByte()
		name, typ, call := e.field(s)
		if typ == "" {
			continue
		}
		c.Fields = append(c.Fields, Column{Name: name, Type: typ, Line: e.line(int(s.StartByte()))})
		if !relationFields[typ] {
			continue
		}
		_, args, kw, _ := e.call(call)
		c.Relations = append(c.Relations, Relation{Method: name, Type: typ, Target: e.modelRef(arg(args, kw, 0, "to"), c), Span: e.span(s)})
	}
}

// modelRef is the dotted name of the model a relation names: a class
// (imported or of this module), 'self', 'Model' (of this app) or
// 'app_label.Model' (that app's models module).
func (e *x) modelRef(n *sitter.Node, self *Class) string {
	if n == nil {
		return ""
	}
	if s, ok := e.str(n); ok {
		switch app, model, dotted := strings.Cut(s, "."); {
		case s == "self":
			return self.FQN
		case dotted:
			return app + ".models." + model
		case e.names[s] != "":
			return e.names[s]
		default:
			return e.modelsModule() + "." + s
		}
	}
	if full := e.qualify(e.text(n)); full != "" {
		return full
	}
	return e.text(n)
}

// modelsModule is the app's models module (blog.models for
// blog/models.py and blog/models/post.py).
func (e *x) modelsModule() string {
	if i := strings.LastIndex(e.module, ".models"); i >= 0 {
		return e.module[:i+len(".models")]
	}
	return e.module
}

// members reads a view's, serializer's or form's methods and the classes
// its body names outside them (model = Post, queryset =
// Post.objects.all(), Meta.model): a method's uses include the class's.
func (e *x) members(c *Class, body *sitter.Node) {
	var defs []*sitter.Node
	for _, s := range named(body) {
		e.At = s.StartByte()
		def := s
		if s.Type() == "decorated_definition" {
			def = s.ChildByFieldName("definition")
		}
		if def != nil && def.Type() == "function_definition" {
			defs = append(defs, s)
			continue
		}
		c.Uses = e.uses(s, c.Uses)
	}
	for _, s := range defs {
		def := s
		if s.Type() == "decorated_definition" {
			def = s.ChildByFieldName("definition")
		}
		uses := e.uses(def.ChildByFieldName("body"), append([]string(nil), c.Uses...))
		c.Methods = append(c.Methods, Method{Name: e.text(def.ChildByFieldName("name")), Uses: uses, Span: e.span(s)})
	}
}

// uses adds to out the dotted names of the classes and modules n names
// through the file's imports and classes (Post, models.Post), once each.
func (e *x) uses(n *sitter.Node, out []string) []string {
	if n == nil {
		return out
	}
	add := func(name string) {
		full := e.resolve(name)
		if full == "" || !strings.Contains(full, ".") {
			return
		}
		for _, u := range out {
			if u == full {
				return
			}
		}
		out = append(out, full)
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for {
		k := c.CurrentNode()
		descend := true
		switch k.Type() {
		case "identifier":
			add(e.text(k))
		case "attribute":
			// models.Post: the dotted name; Post.objects: Post.
			if o := k.ChildByFieldName("object"); o != nil && o.Type() == "identifier" {
				if full := e.resolve(e.text(o)); full != "" && !strings.Contains(lastPart(full), "_") && isUpper(lastPart(full)) {
					add(e.text(o))
				} else {
					add(e.text(k))
				}
				descend = false
			}
		case "string", "comment":
			descend = false
		}
		if descend && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() || c.CurrentNode().Equal(n) {
				return out
			}
		}
	}
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
