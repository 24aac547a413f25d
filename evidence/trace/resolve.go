package trace

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// MaxCandidates is how many workspace files a suffix match may yield
// before the ref counts as ambiguous and is dropped.
const MaxCandidates = 3

// Resolved is a ref placed in the workspace.
type Resolved struct {
	Ref
	// Rel is the file, relative to the workspace root, with slashes.
	Rel string
	// MappedFrom is the absolute path the output printed when it lies
	// outside the root (a container's /var/www/app/..., a CI runner's
	// /home/runner/work/x/x/..., another checkout) and Rel is the
	// workspace file its longest suffix names; "" otherwise.
	MappedFrom string
}

// Dropped counts the refs Resolve left out, by reason, so the caller can
// say what it skipped.
type Dropped struct {
	// Outside: an absolute path not under the root, or a relative one that
	// climbs out of it ("../x") and matches nothing.
	Outside int
	// Missing: under the root (or relative) but no such workspace file.
	Missing int
	// Vendor: third-party or toolchain code: GOROOT, the Go module cache,
	// site-packages, node_modules, the Rust toolchain and registry.
	Vendor int
	// Ambiguous: a name whose suffix matches more than MaxCandidates files.
	Ambiguous int
}

// Resolve is ResolveWith without a suffix lookup: relative names must be
// relative to root, or to a Go package directory the output names.
func Resolve(refs []Ref, root string, exists func(rel string) bool) ([]Resolved, Dropped) {
	return ResolveWith(refs, root, exists, nil)
}

// ResolveWith maps refs to workspace files. root is the absolute workspace
// root; exists reports whether a slash path relative to root is a
// workspace file; suffix, which may be nil, returns the workspace files
// (relative, slash) that equal tail or end in "/"+tail — NewSuffixIndex
// builds one.
//
// A relative name is tried, in order:
//  1. under its Go package's directory, when Ref.Pkg is set: go test
//     prints "foo_test.go:12" relative to the package, and the import path
//     "github.com/x/y/pkg" ends in that directory's path. The module path is
//     unknown, so each suffix of the import path is tried as a directory,
//     longest first ("github.com/x/y/pkg", "x/y/pkg", "y/pkg", "pkg"), and the
//     first that holds the file wins;
//  2. relative to root (after dropping "./"), then without a git diff
//     "a/" or "b/" prefix, then without leading "../";
//  3. by suffix, when suffix is given: the workspace files ending in
//     the package directory's tail joined with the name (longest tail
//     first), then those ending in the name itself. Up to MaxCandidates
//     matches are all kept (one Resolved each); more count as Ambiguous.
//
// The result keeps the order of refs and is de-duplicated on (Rel, Line).
func ResolveWith(refs []Ref, root string, exists func(rel string) bool, suffix func(tail string) []string) ([]Resolved, Dropped) {
	root = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(root)), "/")
	var (
		out  []Resolved
		drop Dropped
		seen = make(map[refKey]struct{})
	)
	for _, r := range refs {
		rels, why, mapped := resolveOne(r, root, exists, suffix)
		switch why {
		case dropOutside:
			drop.Outside++
		case dropMissing:
			drop.Missing++
		case dropVendor:
			drop.Vendor++
		case dropAmbiguous:
			drop.Ambiguous++
		}
		for _, rel := range rels {
			// A line is kept once, except that each go test failing at
			// it, or each linter problem on it, is a failure of its own.
			k, line := keyOf(Ref{Path: rel, Line: r.Line, Col: r.Col, Func: r.Func, Format: r.Format}), refKey{path: rel, line: r.Line}
			if _, dup := seen[k]; dup {
				continue
			}
			if _, dup := seen[line]; dup && k == line {
				continue
			}
			seen[k], seen[line] = struct{}{}, struct{}{}
			out = append(out, Resolved{Ref: r, Rel: rel, MappedFrom: mapped})
		}
	}
	return out, drop
}

type dropReason int

const (
	kept dropReason = iota
	dropOutside
	dropMissing
	dropVendor
	dropAmbiguous
)

// resolveOne finds the workspace files one ref may name, and the
// absolute path it mapped from when that lies outside the root.
func resolveOne(r Ref, root string, exists func(string) bool, suffix func(string) []string) ([]string, dropReason, string) {
	p := normPath(r.Path)
	if isAbs(p) {
		rels, why := resolveAbs(p, root, exists)
		if why != dropOutside {
			return rels, why, ""
		}
		if rel := mapSuffix(p, exists, suffix); rel != "" {
			return []string{rel}, kept, p
		}
		return nil, dropOutside, ""
	}
	rels, why := resolveRel(r, p, exists, suffix)
	return rels, why, ""
}

// mapSuffix places an absolute path from another machine or checkout in
// the workspace: its longest suffix, cut at a directory boundary, that is
// a workspace file ("/var/www/app/app/Http/X.php" -> "app/Http/X.php").
// With an index (suffix given), the file must be indexed; vendored
// suffixes never map.
func mapSuffix(p string, exists func(string) bool, suffix func(string) []string) string {
	p = strings.TrimLeft(p, "/")
	if len(p) > 2 && p[1] == ':' {
		p = strings.TrimLeft(p[2:], "/") // a Windows drive
	}
	for tail := p; tail != ""; {
		if !isVendorRel(tail) {
			if suffix != nil {
				if slices.Contains(suffix(tail), tail) {
					return tail
				}
			} else if exists(tail) {
				return tail
			}
		}
		_, rest, ok := strings.Cut(tail, "/")
		if !ok {
			break
		}
		tail = rest
	}
	return ""
}

// resolveRel finds the workspace files a relative name may stand for.
func resolveRel(r Ref, p string, exists func(string) bool, suffix func(string) []string) ([]string, dropReason) {
	if p == "." || p == "" {
		return nil, dropMissing
	}
	if isVendorRel(p) {
		return nil, dropVendor
	}
	dirs := pkgDirs(r.Pkg, p)
	for _, c := range relCandidates(p, dirs) {
		if exists(c) {
			return []string{c}, kept
		}
	}
	if suffix != nil {
		if found, why := resolveSuffix(p, dirs, suffix); why != dropMissing {
			return found, why
		}
	}
	if strings.HasPrefix(p, "../") {
		return nil, dropOutside
	}
	return nil, dropMissing
}

// resolveAbs places an absolute path: below root or not, vendored or not.
func resolveAbs(p, root string, exists func(string) bool) ([]string, dropReason) {
	rel, ok := under(root, p)
	switch {
	case !ok && vendorAbsRe().MatchString(p):
		return nil, dropVendor
	case !ok:
		return nil, dropOutside
	case isVendorRel(rel):
		return nil, dropVendor
	case rel != "" && exists(rel):
		return []string{rel}, kept
	}
	return nil, dropMissing
}

// resolveSuffix looks a relative name up by suffix. The package's
// directory may sit below the root under another name (a nested module),
// so the tails that keep the package's directories are tried first.
func resolveSuffix(p string, dirs []string, suffix func(string) []string) ([]string, dropReason) {
	var tails []string
	for _, d := range dirs {
		tails = append(tails, path.Join(d, p))
	}
	for _, tail := range append(tails, trimUp(p)) {
		found := suffixMatches(suffix, tail)
		switch {
		case len(found) > MaxCandidates:
			return nil, dropAmbiguous
		case len(found) > 0:
			return found, kept
		}
	}
	return nil, dropMissing
}

// pkgDirs lists the directories a Go package may live in, longest first:
// the suffixes of its import path. A name that climbs ("../x.go") is not
// package-relative.
func pkgDirs(pkg, p string) []string {
	var dirs []string
	if strings.HasPrefix(p, "../") {
		return nil
	}
	for dir := strings.Trim(pkg, "/"); dir != ""; {
		dirs = append(dirs, dir)
		_, rest, ok := strings.Cut(dir, "/")
		if !ok {
			break
		}
		dir = rest
	}
	return dirs
}

// relCandidates lists, in order of preference, the root-relative paths a
// relative name may stand for (see ResolveWith).
func relCandidates(p string, dirs []string) []string {
	var c []string
	for _, d := range dirs {
		c = append(c, path.Join(d, p))
	}
	c = append(c, p)
	if len(p) > 2 && (p[:2] == "a/" || p[:2] == "b/") {
		c = append(c, p[2:])
	}
	if up := trimUp(p); up != p && up != "" {
		c = append(c, up)
	}
	return c
}

// suffixMatches returns the sorted non-vendor files suffix finds for tail.
func suffixMatches(suffix func(string) []string, tail string) []string {
	if tail == "" {
		return nil
	}
	var found []string
	for _, f := range suffix(tail) {
		if !isVendorRel(f) {
			found = append(found, f)
		}
	}
	slices.Sort(found)
	return found
}

// trimUp drops the leading "../" elements of a clean relative path.
func trimUp(p string) string {
	for strings.HasPrefix(p, "../") {
		p = p[3:]
	}
	if p == ".." {
		return ""
	}
	return p
}

// normPath turns a printed path into a clean slash path.
func normPath(p string) string {
	p = strings.TrimPrefix(p, "file://")
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// isAbs reports whether p is absolute, on Unix or as a Windows drive path.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") ||
		(len(p) > 2 && isLetter(p[0]) && p[1] == ':' && p[2] == '/')
}

// under returns p relative to root, if it lies below it.
func under(root, p string) (string, bool) {
	if root == "" || root == "/" {
		return strings.TrimPrefix(p, "/"), strings.HasPrefix(p, "/")
	}
	if rest, ok := strings.CutPrefix(p, root+"/"); ok {
		return rest, true
	}
	return "", false
}

// vendorAbsRe recognises toolchain and dependency trees outside the root:
// GOROOT (/usr/local/go/src, ~/sdk/go1.22.1/src, hostedtoolcache), the Go
// module cache, Python's lib and site-packages, node_modules and Rust's
// toolchain sources and registry.
var vendorAbsRe = lazyRegexp(`/node_modules/|/(?:site|dist)-packages/|/pkg/mod/|/go(?:\d[\w.]*)?/src/|/hostedtoolcache/|/lib/python\d|/rustc/[0-9a-f]+/|/\.cargo/registry/|/\.rustup/|/vendor/|/gems/|/lib/ruby/`)

// isVendorRel reports whether a root-relative path lies in a dependency
// tree checked into or installed in the workspace.
func isVendorRel(rel string) bool {
	rel = "/" + rel
	return strings.Contains(rel, "/node_modules/") || strings.Contains(rel, "/site-packages/") ||
		strings.Contains(rel, "/dist-packages/") || strings.Contains(rel, "/vendor/")
}

// NewSuffixIndex returns a suffix lookup for ResolveWith over files, the
// workspace's root-relative slash paths: tail "pkg/a.go" finds "pkg/a.go"
// and "x/pkg/a.go" but not "xpkg/a.go". It costs one map entry per path
// component of every file.
func NewSuffixIndex(files []string) func(tail string) []string {
	m := make(map[string][]string)
	for _, f := range files {
		for i := 0; i < len(f); i++ {
			if i == 0 || f[i-1] == '/' {
				m[f[i:]] = append(m[f[i:]], f)
			}
		}
	}
	return func(tail string) []string { return slices.Clone(m[tail]) }
}
