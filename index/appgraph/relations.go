package appgraph

import "strings"

// relationAt is a relation of a model as a walk shows it: the class that
// defines it (the model, a base class or a trait) and the file it is in.
type relationAt struct {
	Relation
	path, owner string
	// narrows is the relation method this one narrows (see Relation.Of).
	narrows string
}

// relations lists c's relations: its own, then those of its traits, then
// those of its base (and its base's traits), each once by method name,
// the nearest definition winning as PHP's does. A relation that narrows
// another (Of) gets that one's type and target; one whose Of names no
// relation of the chain, and that declares no type, is none.
func (g *Graph) relations(c located[Class]) []relationAt {
	key := strings.ToLower(c.v.FQN)
	if rs, ok := g.rels[key]; ok {
		return rs
	}
	rs := g.collectRelations(c)
	g.rels[key] = rs
	return rs
}

func (g *Graph) collectRelations(c located[Class]) []relationAt {
	var all []relationAt
	seen, visited := map[string]bool{}, map[string]bool{}
	var visit func(k located[Class], depth int)
	visit = func(k located[Class], depth int) {
		key := strings.ToLower(k.v.FQN)
		if depth > 16 || visited[key] {
			return
		}
		visited[key] = true
		for _, r := range k.v.Relations {
			if m := strings.ToLower(r.Method); !seen[m] {
				seen[m] = true
				all = append(all, relationAt{Relation: r, path: k.path, owner: k.v.FQN})
			}
		}
		for _, m := range k.v.Mixins {
			if t, ok := g.classes[strings.ToLower(m)]; ok {
				visit(t, depth+1)
			}
		}
		if b, ok := g.classes[strings.ToLower(k.v.Base)]; ok && k.v.Base != "" {
			visit(b, depth+1)
		}
	}
	visit(c, 0)
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
	return out
}

// node is the walk's node of relation r of the model c.
func (r relationAt) node(c located[Class]) Node {
	via := "relation of " + short(c.v.FQN)
	if !strings.EqualFold(r.owner, c.v.FQN) {
		via += ", defined in " + short(r.owner)
	}
	detail := strings.TrimSpace(r.Type + " " + r.Target)
	if r.narrows != "" {
		detail += " (narrows " + r.narrows + ")"
	}
	return Node{Type: "model_relation", Name: short(c.v.FQN) + "::" + r.Method, Path: r.path, StartLine: r.StartLine,
		EndLine: r.EndLine, Via: via, Detail: detail}
}
