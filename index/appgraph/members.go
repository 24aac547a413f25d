package appgraph

import "strings"

// lineage is c and the application's classes it inherits members from,
// each once, in the order a member's nearest definition wins: a PHP
// class's traits before its base (PHP's order), a Python class's bases
// in order (Django's abstract models, whose fields a model inherits).
// Bases the index does not hold are passed over.
func (g *Graph) lineage(c located[Class]) []located[Class] {
	var out []located[Class]
	visited := map[string]bool{}
	var visit func(k located[Class], depth int)
	visit = func(k located[Class], depth int) {
		key := strings.ToLower(k.v.FQN)
		if depth > 16 || visited[key] {
			return
		}
		visited[key] = true
		out = append(out, k)
		ups := append([]string{k.v.Base}, k.v.Mixins...)
		if strings.Contains(k.v.FQN, `\`) {
			ups = append(append([]string(nil), k.v.Mixins...), k.v.Base)
		}
		for _, u := range ups {
			if b, ok := g.classes[strings.ToLower(u)]; ok && u != "" {
				visit(b, depth+1)
			}
		}
	}
	visit(c, 0)
	return out
}

// relationAt is a relation of a model as a walk shows it: the class that
// defines it (the model, a base class or a trait) and the file it is in.
type relationAt struct {
	Relation
	path, owner string
	// narrows is the relation method this one narrows (see Relation.Of).
	narrows string
}

// relations lists c's relations, its lineage's included, each once by
// method name (the nearest definition wins). A relation that narrows
// another (Of) gets that one's type and target; one whose Of names no
// relation of the lineage, and that declares no type, is none.
func (g *Graph) relations(c located[Class]) []relationAt {
	key := strings.ToLower(c.v.FQN)
	if rs, ok := g.rels[key]; ok {
		return rs
	}
	var all []relationAt
	seen := map[string]bool{}
	for _, k := range g.lineage(c) {
		for _, r := range k.v.Relations {
			if m := strings.ToLower(r.Method); !seen[m] {
				seen[m] = true
				all = append(all, relationAt{Relation: r, path: k.path, owner: k.v.FQN})
			}
		}
	}
	byName := map[string]Relation{}
	for _, r := range all {
		byName[strings.ToLower(r.Method)] = r.Relation
	}
	out := all[:0]
	for _, r := range all {
		cur := r.Relation
		for depth := 0; cur.Of != "" && depth < 8; depth++ {
			of, ok := byName[strings.ToLower(cur.Of)]
			if !ok || strings.EqualFold(of.Method, r.Method) {
				break
			}
			r.narrows = r.Of
			if of.Type != "" { // the relation nearest the builder wins
				r.Type, r.Target = of.Type, of.Target
			}
			cur = of
		}
		if r.Type != "" {
			out = append(out, r)
		}
	}
	g.rels[key] = out
	return out
}

// node is the walk's node of relation r of the model c.
func (r relationAt) node(c located[Class]) Node {
	detail := strings.TrimSpace(r.Type + " " + r.Target)
	if r.narrows != "" {
		detail += " (narrows " + r.narrows + ")"
	}
	return Node{Type: "model_relation", Name: short(c.v.FQN) + "::" + r.Method, Path: r.path, StartLine: r.StartLine,
		EndLine: r.EndLine, Via: memberVia("relation", c, r.owner), Detail: detail}
}

// fieldNodes are the walk's nodes of c's fields (a Django model's), its
// lineage's included, each once by name (the nearest definition wins); a
// field that is a relation is a relation node instead.
func (g *Graph) fieldNodes(c located[Class]) []Node {
	rels := map[string]bool{}
	for _, r := range g.relations(c) {
		rels[r.Method] = true
	}
	var out []Node
	seen := map[string]bool{}
	for _, k := range g.lineage(c) {
		for _, f := range k.v.Fields {
			if seen[f.Name] || rels[f.Name] {
				continue
			}
			seen[f.Name] = true
			out = append(out, Node{Type: "model_field", Name: short(c.v.FQN) + "." + f.Name, Path: k.path,
				StartLine: f.Line, EndLine: f.Line, Via: memberVia("field", c, k.v.FQN), Detail: f.Type})
		}
	}
	return out
}

// memberVia says a member is c's, and which class of its lineage defines
// it when another does.
func memberVia(what string, c located[Class], owner string) string {
	via := what + " of " + short(c.v.FQN)
	if !strings.EqualFold(owner, c.v.FQN) {
		via += ", defined in " + short(owner)
	}
	return via
}
