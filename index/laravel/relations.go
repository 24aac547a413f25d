package laravel

import (
	"regexp"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// relationTypes are Eloquent's relation builders.
var relationTypes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"hasOne": true, "hasMany": true, "belongsTo": true, "belongsToMany": true, "hasOneThrough": true,
		"hasManyThrough": true, "morphTo": true, "morphOne": true, "morphMany": true, "morphToMany": true,
		"morphedByMany": true,
	}
})

// relationsNS is the namespace of Eloquent's relation classes, the
// return types of relation methods.
const relationsNS = `Illuminate\Database\Eloquent\Relations\`

// builtRelation is the relation a `$this->hasMany(Target::class)` call
// builds, nil when k is no such call.
func (e *x) builtRelation(k *sitter.Node, m Method, self string) *Relation {
	t := e.text(k.ChildByFieldName("name"))
	if e.text(k.ChildByFieldName("object")) != "$this" || !relationTypes()[t] {
		return nil
	}
	r := Relation{Method: m.Name, Type: t, Span: m.Span}
	if as := args(k); len(as) > 0 {
		r.Target = e.classRef(as[0])
		switch t := strings.ToLower(e.text(as[0])); {
		case r.Target != "":
		case t == "self::class" || t == "static::class": // a tree of folders, a parent comment
			r.Target = self
		default:
			if s, ok := e.str(as[0]); ok {
				r.Target = strings.TrimPrefix(s, `\`)
			}
		}
	}
	return &r
}

// declaredRelation is the relation of a method that builds none itself:
// one that narrows another relation method of the class
// (`return $this->lines()->where(...)`, see Relation.Of), or one whose
// return type is an Eloquent relation (`: HasMany`), its target read from
// the doc comment's `@return HasMany<Line, $this>`. nil when it is
// neither; an Of the graph finds no relation for is dropped there.
func (e *x) declaredRelation(n *sitter.Node, m Method) *Relation {
	r := Relation{Method: m.Name, Span: m.Span}
	rt := n.ChildByFieldName("return_type")
	if rt != nil {
		nt := firstOfType(rt, "named_type")
		if nt == nil {
			return nil // int, array, ?string: no relation
		}
		full := e.classRef(firstNamed(nt))
		if !strings.HasPrefix(full, relationsNS) {
			return nil // a Collection, a Builder, a model: no relation
		}
		typ := strings.TrimPrefix(full, relationsNS)
		r.Type = strings.ToLower(typ[:1]) + typ[1:]
		r.Target = e.docTarget(n, typ)
	}
	if body := n.ChildByFieldName("body"); body != nil {
		for _, st := range named(body) {
			if st.Type() != "return_statement" {
				continue
			}
			head, links := e.chain(firstNamed(st))
			if head != "$this" || len(links) == 0 || relationTypes()[links[0].name] {
				continue
			}
			// Without a return type, a query run to its end (->sum(),
			// ->get()) is an accessor's value, not a relation.
			if rt == nil && len(links) > 1 && terminal[links[len(links)-1].name] {
				continue
			}
			r.Of = links[0].name
		}
	}
	if r.Type == "" && r.Of == "" {
		return nil
	}
	return &r
}

// terminal are the query builder's methods that run the query: a chain
// ending in one returns rows or a value, no relation.
var terminal = map[string]bool{
	"get": true, "first": true, "firstOrFail": true, "find": true, "findOrFail": true, "sum": true, "count": true,
	"avg": true, "min": true, "max": true, "exists": true, "doesntExist": true, "pluck": true, "value": true,
	"paginate": true, "simplePaginate": true, "cursorPaginate": true, "cursor": true, "chunk": true, "each": true,
	"all": true, "toArray": true, "create": true, "createMany": true, "save": true, "saveMany": true, "attach": true,
	"detach": true, "sync": true, "syncWithoutDetaching": true, "toggle": true, "update": true, "delete": true,
	"associate": true, "dissociate": true, "updateOrCreate": true, "firstOrCreate": true, "firstOrNew": true,
	"make": true, "lazy": true, "implode": true, "toSql": true,
}

// firstOfType is n or the first node under it of type typ.
func firstOfType(n *sitter.Node, typ string) *sitter.Node {
	if n.Type() == typ {
		return n
	}
	var out *sitter.Node
	eachNamed(n, func(k *sitter.Node) bool {
		if out == nil && k.Type() == typ {
			out = k
		}
		return out == nil
	})
	return out
}

var docReturn = regexp.MustCompile(`@return\s+\\?([\w\\]+)\s*<\s*\\?([\w\\]+)`)

// docTarget is the related model of the `@return Type<Model, ...>` tag in
// the doc comment just before the method n, "" when there is none.
func (e *x) docTarget(n *sitter.Node, typ string) string {
	doc := n.PrevSibling()
	if doc == nil || doc.Type() != "comment" {
		return ""
	}
	for _, m := range docReturn.FindAllStringSubmatch(e.text(doc), -1) {
		if strings.HasSuffix(m[1], typ) {
			return e.resolve(m[2])
		}
	}
	return ""
}

// narrowed gives each relation that narrows another of the same class
// (Of) that one's type and target, so a file's own facts show them; the
// graph does it again across bases and traits.
func narrowed(rels []Relation) {
	by := map[string]Relation{}
	for _, r := range rels {
		if r.Of == "" {
			by[strings.ToLower(r.Method)] = r
		}
	}
	for i := range rels {
		if of, ok := by[strings.ToLower(rels[i].Of)]; ok && rels[i].Of != "" {
			rels[i].Type, rels[i].Target = of.Type, of.Target
		}
	}
}
