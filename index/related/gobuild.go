package related

import (
	"bytes"
	"go/build/constraint"
	"path"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
)

// Go files built for some platforms only (light_windows.go, a //go:build
// line) often define the same function or method once per platform. A
// call reaches every variant the calling file can be built with, each
// marked with its constraint (Ref.Build): dossier reads a repository, not
// one build of it, and a reader on Linux chasing a Windows bug wants the
// Windows variant. A file built for Windows alone never reaches the Unix
// variant, in either direction, as the compiler would not.

// goBuild is the build constraint of a Go file: its file name's GOOS and
// GOARCH, and its //go:build (or // +build) lines; nil when it has none.
type goBuild struct {
	expr  constraint.Expr
	label string
	tags  []string // the tags it names that are no GOOS, GOARCH or unix
}

var (
	goosList = strings.Fields("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd " +
		"openbsd plan9 solaris wasip1 windows zos")
	goarchList = strings.Fields("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 " +
		"mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm")
	unixOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
		"hurd": true, "illumos": true, "ios": true, "linux": true, "netbsd": true, "openbsd": true, "solaris": true}
	// impliedOS are the GOOS values that also satisfy another's tag.
	impliedOS = map[string]string{"android": "linux", "ios": "darwin", "illumos": "solaris"}
	knownOS   = setOf(goosList)
	knownArch = setOf(goarchList)
)

func setOf(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}

// goBuildOf reads the constraint of Go file p with text.
func goBuildOf(p string, text []byte) *goBuild {
	var parts []constraint.Expr
	if x := goFileNameConstraint(p); x != nil {
		parts = append(parts, x)
	}
	if x := goBuildLines(text); x != nil && (len(parts) == 0 || x.String() != parts[0].String()) {
		parts = append(parts, x) // x_windows.go saying //go:build windows is windows once
	}
	if len(parts) == 0 {
		return nil
	}
	x := parts[0]
	if len(parts) == 2 {
		x = &constraint.AndExpr{X: parts[0], Y: parts[1]}
	}
	b := &goBuild{expr: x, label: x.String()}
	x.Eval(func(tag string) bool {
		if !knownOS[tag] && !knownArch[tag] && tag != "unix" && !slices.Contains(b.tags, tag) {
			b.tags = append(b.tags, tag)
		}
		return true
	})
	return b
}

// goFileNameConstraint is what go/build reads from a file name: after its
// first "_", a trailing _GOOS, _GOARCH or _GOOS_GOARCH (before _test).
func goFileNameConstraint(p string) constraint.Expr {
	name := strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".go"), "_test")
	i := strings.IndexByte(name, '_')
	if i < 0 {
		return nil
	}
	parts := strings.Split(name[i:], "_")
	n := len(parts)
	tag := func(s string) constraint.Expr { return &constraint.TagExpr{Tag: s} }
	switch {
	case n >= 3 && knownOS[parts[n-2]] && knownArch[parts[n-1]]:
		return &constraint.AndExpr{X: tag(parts[n-2]), Y: tag(parts[n-1])}
	case knownOS[parts[n-1]] || knownArch[parts[n-1]]:
		return tag(parts[n-1])
	}
	return nil
}

// goBuildLines reads the //go:build line of a file's header (the comments
// before its package clause), else the AND of its // +build lines.
func goBuildLines(text []byte) constraint.Expr {
	var plus constraint.Expr
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		text = rest
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		if !strings.HasPrefix(s, "//") {
			break // the package clause, or code: the header is over
		}
		x, err := constraint.Parse(s)
		if err != nil {
			continue // a plain comment, or a line go vet would reject
		}
		if constraint.IsGoBuild(s) {
			return x
		}
		if plus == nil {
			plus = x
		} else {
			plus = &constraint.AndExpr{X: plus, Y: x}
		}
	}
	return plus
}

// buildsTogether is buildsTogether of the constraints of a and b, kept
// for the expansion by their labels.
func (r *resolver) buildsTogether(a, b *parsed) bool {
	ba, bb := a.goBuild(), b.goBuild()
	if ba == nil || bb == nil {
		return true
	}
	k := [2]string{ba.label, bb.label}
	v, ok := r.together[k]
	if !ok {
		v = buildsTogether(ba, bb)
		r.together[k] = v
	}
	return v
}

// goBuild is the build constraint of f, a Go file, read once.
func (f *parsed) goBuild() *goBuild {
	if !f.hasBuild {
		f.hasBuild = true
		if f.lang == lang.Go {
			f.build = goBuildOf(f.path, f.text)
		}
	}
	return f.build
}

// buildLabel is the build constraint of f as written, "" for none.
func (f *parsed) buildLabel() string {
	if b := f.goBuild(); b != nil {
		return b.label
	}
	return ""
}

// buildsTogether reports whether some platform builds both a and b (nil:
// every platform); a tag other than GOOS, GOARCH and unix (cgo, a custom
// tag, a Go version) may be set either way, the same way for both.
func buildsTogether(a, b *goBuild) bool {
	if a == nil || b == nil {
		return true
	}
	free := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a.tags), b.tags...))))
	if len(free) > 8 {
		return true
	}
	for _, goos := range goosList {
		for _, goarch := range goarchList {
			for set := 0; set < 1<<len(free); set++ {
				has := func(tag string) bool {
					for i, f := range free {
						if f == tag {
							return set&(1<<i) != 0
						}
					}
					return tag == goos || tag == goarch || tag == "unix" && unixOS[goos] || impliedOS[goos] == tag
				}
				if a.expr.Eval(has) && b.expr.Eval(has) {
					return true
				}
			}
		}
	}
	return false
}
