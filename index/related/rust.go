package related

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/lang"
)

func init() { withScoping(lang.Rust, func(s *scoping) { s.memberFiles = rustCrateFiles }) }

// Rust: a type's methods may be in an impl block in any file of its
// crate, and tests, examples and benches name their own crate by its
// package name (anyhow::Error in anyhow's tests/).

var cargoName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*name\s*=\s*"([^"]+)"`) })

// rustCrateNamed is the src directory of the workspace crate whose
// package (or [lib]) name is name, seen from from: the nearest Cargo.toml
// above from first. "" when no crate of the workspace is called so.
func (w *workspace) rustCrateNamed(from, name string) string {
	for d := path.Dir(from); ; d = path.Dir(d) {
		toml := path.Join(d, "Cargo.toml")
		if w.files[toml] {
			if text, ok := w.tx.Blob(toml); ok {
				for _, m := range cargoName().FindAllSubmatch(text, -1) {
					if strings.ReplaceAll(string(m[1]), "-", "_") == name {
						return path.Join(d, "src")
					}
				}
			}
		}
		if d == "." {
			return ""
		}
	}
}

// rustCrateFiles are the .rs files of the crate holding p (under its src
// directory), where its types' impl blocks may be.
func rustCrateFiles(r *resolver, p *parsed) []string {
	src := r.w.rustCrateSrc(p.path)
	var out []string
	for _, q := range r.w.paths {
		if q != p.path && strings.HasSuffix(q, ".rs") && (src == "." || strings.HasPrefix(q, src+"/")) {
			out = append(out, q)
		}
	}
	return out
}
