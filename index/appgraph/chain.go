package appgraph

import (
	"fmt"
	"strings"
)

// inheritRoles gives each class whose own declaration did not decide its
// role (see Class.RoleBy) the role its chain of bases gives it, across
// files: Person extends the app's abstract BaseResource, which extends
// Eloquent's Model, so Person is a model whatever the names say. A chain
// that leaves the index (a base in a package not indexed) keeps the
// folder's role, and the base it could not follow is kept for the walks
// to say so (see chainNote).
func (g *Graph) inheritRoles() {
	roles := map[string]string{}
	for k, c := range g.classes {
		if decided(c.v) {
			continue
		}
		role, missing := g.chainRole(c.v)
		roles[k] = role
		if missing != "" {
			g.unresolved[k] = missing
		}
	}
	for k, role := range roles { // after the walks, which read folder roles
		c := g.classes[k]
		c.v.Role = role
		g.classes[k] = c
	}
}

// decided reports whether a class's own declaration decided its role.
func decided(c Class) bool { return c.RoleBy == "base" || c.RoleBy == "" && c.Role != "" }

// chainRole follows c's bases through the application's classes to the
// first whose own declaration decides a role (a migration's is no role
// to inherit); failing that, the first role a folder gave along the way
// (c's own first). missing is the first base the chain reaches that the
// index does not hold.
func (g *Graph) chainRole(c Class) (role, missing string) {
	folder := ""
	for depth := 0; depth < 16; depth++ {
		if depth > 0 && decided(c) {
			if c.Role == RoleMigration {
				return "", ""
			}
			return c.Role, ""
		}
		if c.RoleBy == "folder" && folder == "" {
			folder = c.Role
		}
		if c.Base == "" {
			break
		}
		b, ok := g.classes[strings.ToLower(c.Base)]
		if !ok && !strings.ContainsAny(c.Base, `\.`) {
			return folder, "" // the language's own class (RuntimeException, ArrayObject): no role to give
		}
		if !ok {
			return folder, c.Base
		}
		c = b.v
	}
	return folder, ""
}

// chainNote says where a class's chain of bases left the index, "" when
// the graph followed it to its end.
func (g *Graph) chainNote(c located[Class]) string {
	missing, ok := g.unresolved[strings.ToLower(c.v.FQN)]
	if !ok {
		return ""
	}
	note := "its base " + missing + " is not in the index, so its chain of bases cannot be followed"
	if c.v.Role != "" {
		note += "; the role " + c.v.Role + " is its folder's"
	}
	return note
}

// unresolvedNamed is the error part naming the classes called name whose
// role the graph could not tell (see chainNote), "" when there are none.
func (g *Graph) unresolvedNamed(name string) string {
	var out []string
	for _, c := range g.sortedClasses() {
		if c.v.Role == "" && (strings.EqualFold(c.v.Name, name) || strings.EqualFold(c.v.FQN, strings.TrimPrefix(name, `\`))) {
			if n := g.chainNote(c); n != "" {
				out = append(out, fmt.Sprintf("%s (%s:%d): %s", c.v.FQN, c.path, c.v.StartLine, n))
			}
		}
	}
	return strings.Join(out, "; ")
}
