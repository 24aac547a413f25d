package related

import "strings"

// Java's overloads of one arity are told apart by the types of the
// arguments where the syntax shows them (xref.Ref.ArgTypes: literals,
// new T(), casts, this, declared locals, parameters and fields): an
// overload a known argument cannot be passed to is dropped, and of those
// left the most specific at the known arguments is kept, as javac would
// choose. What the resolver cannot prove (an argument of unknown type, a
// library class whose supertypes the workspace does not hold) rules no
// overload out, so a call whose arguments say nothing still reaches every
// overload of its arity.

// fit is whether a value of one type can be passed where another is
// declared: yes, no, or not known without the classes' full hierarchy.
type fit uint8

const (
	fitUnknown fit = iota
	fitYes
	fitNo
)

// byArgTypes keeps the overloads among hits that the call's known
// argument types choose; hits unchanged when they choose none or the
// definitions carry no parameter types.
func (r *resolver) byArgTypes(p *parsed, hits []hit, args []string) []hit {
	if len(hits) < 2 {
		return hits
	}
	var ok []hit
	var proven []bool
	for _, h := range hits {
		params := h.def().ParamTypes
		if params == nil {
			return hits
		}
		if f := r.applies(p, params, args); f != fitNo {
			ok, proven = append(ok, h), append(proven, f == fitYes)
		}
	}
	if len(ok) == 0 {
		return hits
	}
	var best []hit
	for _, a := range ok {
		dominated := false
		for j, b := range ok {
			// Only an overload known to apply hides another: one that
			// may not apply (Class for an argument typed Type) cannot.
			dominated = dominated || proven[j] && r.moreSpecific(p, b.def().ParamTypes, a.def().ParamTypes, args)
		}
		if !dominated {
			best = append(best, a)
		}
	}
	return best
}

// applies is whether every known argument can be passed to its
// parameter: no when one cannot, yes when each is known to.
func (r *resolver) applies(p *parsed, params, args []string) fit {
	f := fitYes
	for i, a := range args {
		if a == "" {
			continue
		}
		switch r.passes(p, a, paramAt(params, i)) {
		case fitNo:
			return fitNo
		case fitUnknown:
			f = fitUnknown
		}
	}
	return f
}

// moreSpecific reports whether overload a is strictly more specific than
// b at the known arguments, the other parameters being the same.
func (r *resolver) moreSpecific(p *parsed, a, b, args []string) bool {
	strict := false
	for i := range args {
		pa, pb := paramAt(a, i), paramAt(b, i)
		if pa == pb {
			continue
		}
		if args[i] == "" || r.passes(p, pa, pb) != fitYes || r.passes(p, pb, pa) == fitYes {
			return false
		}
		strict = true
	}
	return strict
}

// paramAt is the declared type of the i-th parameter, a varargs
// parameter standing for any number of arguments of any type.
func paramAt(params []string, i int) string {
	if i < len(params) {
		return params[i]
	}
	if n := len(params); n > 0 && params[n-1] == "..." {
		return "..."
	}
	return ""
}

var (
	javaPrims = map[string]int{"byte": 1, "short": 2, "char": 2, "int": 3, "long": 4, "float": 5, "double": 6, "boolean": 0}
	javaBoxes = map[string]string{"byte": "Byte", "short": "Short", "char": "Character", "int": "Integer",
		"long": "Long", "float": "Float", "double": "Double", "boolean": "Boolean"}
	// javaSupers are the supertypes of the JDK classes an argument's type
	// most often is, which no workspace defines.
	javaSupers = map[string][]string{
		"String":  {"Object", "CharSequence", "Comparable", "Serializable", "Constable", "ConstantDesc"},
		"Integer": {"Object", "Number", "Comparable", "Serializable"}, "Long": {"Object", "Number", "Comparable", "Serializable"},
		"Double": {"Object", "Number", "Comparable", "Serializable"}, "Float": {"Object", "Number", "Comparable", "Serializable"},
		"Short": {"Object", "Number", "Comparable", "Serializable"}, "Byte": {"Object", "Number", "Comparable", "Serializable"},
		"Boolean": {"Object", "Comparable", "Serializable"}, "Character": {"Object", "Comparable", "Serializable"},
		"Class":  {"Object", "Type", "Serializable", "GenericDeclaration", "AnnotatedElement"},
		"Object": {},
	}
)

// passes is whether a value of type a (as xref writes an argument's) can
// be passed to a parameter declared pt, in p's workspace.
func (r *resolver) passes(p *parsed, a, pt string) fit {
	switch {
	case pt == "" || pt == "?" || pt == "...":
		return fitUnknown // a type variable or varargs: any
	case a == pt:
		return fitYes
	case a == "null":
		if _, prim := javaPrims[pt]; prim {
			return fitNo
		}
		return fitYes
	}
	ra, aPrim := javaPrims[a]
	rp, pPrim := javaPrims[pt]
	switch {
	case aPrim && pPrim:
		// Widening: byte < short < int < long < float < double, char < int.
		if a == "boolean" || pt == "boolean" || ra >= rp || pt == "char" || a == "char" && pt == "short" {
			return fitNo
		}
		return fitYes
	case aPrim:
		return r.passes(p, javaBoxes[a], pt) // boxing
	case pPrim:
		for prim, box := range javaBoxes {
			if box == a {
				return r.passes(p, prim, pt) // unboxing
			}
		}
		return fitNo
	case strings.HasSuffix(a, "[]") || strings.HasSuffix(pt, "[]"):
		if strings.HasSuffix(a, "[]") && strings.HasSuffix(pt, "[]") {
			return r.passes(p, strings.TrimSuffix(a, "[]"), strings.TrimSuffix(pt, "[]"))
		}
		if pt == "Object" || pt == "Cloneable" || pt == "Serializable" {
			return fitYes
		}
		return fitNo
	case pt == "Object":
		return fitYes
	}
	supers, complete, known := r.javaSupertypes(p, a)
	switch {
	case supers[pt]:
		return fitYes
	case known && complete:
		return fitNo
	}
	// Part of a's hierarchy lies outside the workspace: it may reach pt
	// unless pt is the workspace's own (no library class extends it).
	if t, _ := r.typeNamed(p, pt); len(t) > 0 {
		return fitNo
	}
	return fitUnknown
}

// javaSupertypes are the simple names of type t (as written in p) and of
// its supertypes; complete when every one was found, known when t was.
func (r *resolver) javaSupertypes(p *parsed, t string) (supers map[string]bool, complete, known bool) {
	supers = map[string]bool{t: true}
	if jdk, ok := javaSupers[t]; ok {
		for _, s := range jdk {
			supers[s] = true
		}
		return supers, true, true
	}
	types, _ := r.typeNamed(p, t)
	if len(types) == 0 {
		return supers, false, false
	}
	complete = true
	for depth := 0; depth < 8 && len(types) > 0; depth++ {
		var next []hit
		for _, h := range types {
			for _, b := range h.def().Bases {
				name := lastPart(b, ".")
				if supers[name] {
					continue
				}
				supers[name] = true
				found, _ := r.typeNamed(h.p, b)
				if len(found) == 0 {
					complete = false
				}
				next = append(next, found...)
			}
		}
		types = dedupHits(next)
	}
	return supers, complete, true
}
