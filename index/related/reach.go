package related

import (
	"slices"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

// resolve maps one reference of p to the definitions it reaches. guess is
// set when only a global name match found them. A Go file reaches only the
// definitions of files built on a platform it is built on (gobuild.go).
// A call reaches what runs:
// a type's constructors where the language has them, and of several
// overloads those that take as many arguments as the call passes (all of
// them when none does, or the count cannot tell), and of those the ones
// the arguments' known types choose (java_overloads.go).
func (r *resolver) resolve(p *parsed, ref xref.Ref) (hits []hit, guess bool) {
	hits, guess = r.reach(p, ref)
	if p.lang == lang.Go {
		hits = slices.DeleteFunc(hits, func(h hit) bool { return !r.buildsTogether(p, h.p) })
	}
	if !ref.Call || len(hits) == 0 {
		return hits, guess
	}
	if scopings[p.lang].ctors {
		hits = r.constructors(hits)
	}
	if ref.Args >= 0 {
		fit := slices.DeleteFunc(slices.Clone(hits), func(h hit) bool {
			a := h.def().Arity
			return a != nil && !a.Accepts(ref.Args)
		})
		if len(fit) > 0 {
			hits = fit
		}
	}
	if ref.ArgTypes != nil {
		hits = r.byArgTypes(p, hits, ref.ArgTypes) // java_overloads.go
	}
	return hits, guess
}

// constructors replaces each type among hits by its constructors, the
// methods of its own body named as it, when it declares any.
func (r *resolver) constructors(hits []hit) []hit {
	var out []hit
	for _, h := range hits {
		t := h.def()
		n := len(out)
		if isType(t) {
			for i := range h.p.d.Defs {
				if d := &h.p.d.Defs[i]; d.Name == t.Name && d.Container == t.Name && calleeKinds[d.Kind] {
					out = append(out, hit{h.p, i})
				}
			}
		}
		if len(out) == n {
			out = append(out, h)
		}
	}
	return out
}

// outerMembers finds name among the members of the types lexically
// around each of types (scoping.outerScope), the nearest first.
func (r *resolver) outerMembers(types []hit, name string) []hit {
	for depth := 0; depth < 4 && len(types) > 0; depth++ {
		var outer, hits []hit
		for _, t := range types {
			if c := t.def().Container; c != "" {
				o, _ := r.typeNamed(t.p, c)
				outer = append(outer, o...)
			}
		}
		for _, o := range outer {
			hits = append(hits, r.members(o, name, 0)...)
		}
		if len(hits) > 0 {
			return dedupHits(hits)
		}
		types = dedupHits(outer)
	}
	return nil
}

// reach is resolve before a call's constructors and overloads are told
// apart.
func (r *resolver) reach(p *parsed, ref xref.Ref) (hits []hit, guess bool) {
	chain := ref.Chain
	var recv []hit // the types whose members the rest of the chain reaches
	switch ref.Via {
	case xref.Bare:
		if len(chain) == 0 {
			return r.bare(p, ref.Name, nil)
		}
		var first []hit
		name0, res0 := member(chain[0])
		first, guess = r.bare(p, name0, nil)
		recv, chain = r.typesOf(first, res0), chain[1:]
		if len(first) == 0 {
			// Not a value in scope: an import binding the extractor did
			// not know (a Go package named unlike its path).
			if len(chain) == 0 {
				return r.qualified(p, name0, ref.Name, nil), false
			}
			name1, res1 := member(chain[0])
			recv, chain = r.typesOf(r.qualified(p, name0, name1, nil), res1), chain[1:]
		}
	case xref.Package:
		qual := ref.Qual
		for sc := scopings[p.lang]; len(chain) > 0 && sc.submodule != nil && sc.submodule(r, p, qual+sc.sep+chain[0]); {
			qual, chain = qual+sc.sep+chain[0], chain[1:]
		}
		if len(chain) == 0 {
			return r.qualified(p, qual, ref.Name, nil), false
		}
		name0, res0 := member(chain[0])
		recv, chain = r.typesOf(r.qualified(p, qual, name0, nil), res0), chain[1:]
	case xref.Type:
		recv, guess = r.typeNamed(p, ref.Qual)
	case xref.Self:
		recv = r.container(p, ref.In)
	case xref.Super:
		for _, c := range r.container(p, ref.In) {
			for _, b := range c.def().Bases {
				bases, _ := r.typeNamed(c.p, b)
				recv = append(recv, bases...)
			}
		}
	default:
		return nil, false
	}
	for k, m := range chain {
		name, res := member(m)
		var next []hit
		for _, t := range recv {
			next = append(next, r.members(t, name, 0)...)
		}
		if len(next) == 0 && k == 0 && ref.Via == xref.Self && scopings[p.lang].outerScope {
			next = r.outerMembers(recv, name) // an outer class's field
		}
		recv = r.typesOf(next, res)
	}
	for _, t := range recv {
		hits = append(hits, r.members(t, ref.Name, 0)...)
	}
	if len(hits) == 0 && ref.Via == xref.Self && len(ref.Chain) == 0 && scopings[p.lang].outerScope {
		hits = r.outerMembers(recv, ref.Name)
	}
	return dedupHits(hits), guess
}

// typesOf maps definitions to the types of their values (of their
// result-th result, for functions).
func (r *resolver) typesOf(defs []hit, result int) []hit {
	var out []hit
	for _, h := range defs {
		out = append(out, r.valueType(h, result)...)
	}
	return dedupHits(out)
}

func dedupHits(hits []hit) []hit {
	type key struct {
		p string
		i int
	}
	seen := map[key]bool{}
	return slices.DeleteFunc(hits, func(h hit) bool {
		k := key{h.p.path, h.i}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

func (h hit) line() int {
	if h.p.lines == nil {
		h.p.lines = lineIndex(h.p.text)
	}
	return lineAt(h.p.lines, h.def().NameStart)
}
