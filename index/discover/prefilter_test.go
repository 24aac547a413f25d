package discover

import (
	"strings"
	"testing"
)

// TestBuiltinRangeSkipsOnlyNonMatches proves the prefilter of the default
// ignores skips only patterns that cannot match: for paths made of every
// built-in pattern's names, near misses and ordinary names, at every
// depth, the match with the skipped range is the match that skips only
// the secret-file patterns a name does not look like (those are matched
// against the name alone, as the walk prunes a directory they match).
func TestBuiltinRangeSkipsOnlyNonMatches(t *testing.T) {
	names := []string{"main.go", "README.md", "src", "lib", "x.min.jsx", "app.js.mapx", "lock", "go.summary", "dist2", "gitx"}
	for _, p := range append(append([]string(nil), defaultIgnores...), secretFiles...) {
		base := strings.TrimPrefix(p, "!")
		for _, part := range strings.Split(base, "/") {
			if part == "" || part == "**" {
				continue
			}
			names = append(names, strings.ReplaceAll(part, "*", "x"), strings.ReplaceAll(part, "*", ""))
		}
	}
	ps := builtins()
	n := len(ps)
	checked := 0
	for _, a := range names {
		for _, b := range names {
			for _, path := range [][]string{{a}, {a, b}, {"src", a, b}, {a, "src", b}} {
				for _, isDir := range []bool{false, true} {
					secretsOnly := [2]int{}
					if !secretLike(path[len(path)-1]) {
						secretsOnly = [2]int{len(defaultIgnores), n}
					}
					wantIgn, wantBy := match(ps, path, isDir, secretsOnly)
					gotIgn, gotBy := match(ps, path, isDir, builtinRange(path, n))
					if gotIgn != wantIgn || gotBy != wantBy {
						t.Fatalf("%q (dir %v): with the prefilter (%v, %d), without it (%v, %d)", path, isDir, gotIgn, gotBy, wantIgn, wantBy)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d paths checked", checked)
}
