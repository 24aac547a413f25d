package related

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

func init() { withScoping(lang.PHP, func(s *scoping) { s.names = phpNames }) }

// PHP names are resolved as PHP does, by the text alone: a name is
// qualified through the file's `use` clauses or its namespace (an
// unqualified function falls back to the global namespace), and the fully
// qualified name is looked up where composer.json's PSR-4 map puts it, then
// among the files that declare its namespace and define its last part. A
// namespace no composer.json maps, and that no file declares, is outside
// the workspace: `use Illuminate\Http\Request` never reaches an
// app/Http/Request.php of namespace App\Http.

// phpAutoload is the PSR-4 map of the workspace's composer.json files.
type phpAutoload struct {
	// prefixes are namespace prefixes (ending in `\`) and the directories
	// they map to, longest prefix first.
	prefixes []psr4
	// mapped is set when some composer.json declares a PSR-4 map: then a
	// name outside it is outside the workspace.
	mapped bool
}

type psr4 struct{ prefix, dir string }

type composerAutoload struct {
	PSR4 map[string]json.RawMessage `json:"psr-4"`
}

// phpMap reads the composer.json files of the workspace once.
func (w *workspace) phpMap() *phpAutoload {
	if w.php != nil {
		return w.php
	}
	w.php = &phpAutoload{}
	for _, p := range w.bases["composer.json"] {
		text, ok := w.tx.Blob(p)
		if !ok {
			continue
		}
		var c struct {
			Autoload    composerAutoload `json:"autoload"`
			AutoloadDev composerAutoload `json:"autoload-dev"`
		}
		if json.Unmarshal(text, &c) != nil {
			continue // a broken composer.json maps nothing
		}
		root := path.Dir(p)
		for _, m := range []map[string]json.RawMessage{c.Autoload.PSR4, c.AutoloadDev.PSR4} {
			for prefix, raw := range m {
				var dirs []string
				var one string
				if json.Unmarshal(raw, &one) == nil {
					dirs = []string{one}
				} else if json.Unmarshal(raw, &dirs) != nil {
					continue
				}
				prefix = strings.TrimPrefix(prefix, `\`)
				if prefix != "" && !strings.HasSuffix(prefix, `\`) {
					prefix += `\`
				}
				for _, d := range dirs {
					w.php.prefixes = append(w.php.prefixes, psr4{prefix, path.Join(root, d)})
					w.php.mapped = true
				}
			}
		}
	}
	slices.SortStableFunc(w.php.prefixes, func(a, b psr4) int { return len(b.prefix) - len(a.prefix) })
	return w.php
}

// resolvePHP maps a `use` as the index stores it ("A\B\C", "A\B\C as D",
// `A\{B, C as D}`) or as xref reads it (spec A\B, names [C]) to the files
// of the workspace that define those names.
func (w *workspace) resolvePHP(from, spec string, names []string) []string {
	spec = strings.TrimSpace(spec)
	var fqs []string
	switch prefix, group, ok := strings.Cut(spec, "{"); {
	case len(names) > 0:
		for _, n := range names {
			fqs = append(fqs, spec+`\`+n)
		}
	case ok:
		for _, m := range strings.Split(strings.TrimSuffix(strings.TrimSpace(group), "}"), ",") {
			m, _, _ = strings.Cut(strings.TrimSpace(m), " as ")
			if m = strings.TrimSpace(m); m != "" {
				fqs = append(fqs, strings.TrimRight(prefix, `\ `)+`\`+m)
			}
		}
	default:
		s, _, _ := strings.Cut(spec, " as ")
		fqs = []string{s}
	}
	var out []string
	for _, fq := range fqs {
		for _, p := range w.phpFiles(from, strings.Trim(fq, `\ `)) {
			out = appendNonEmpty(out, p)
		}
	}
	return out
}

// phpFiles are the files a fully qualified name denotes: the class file
// PSR-4 puts it in, or the files of the directory of a namespace. Without
// any PSR-4 map, the files ending in the name's path that declare its
// namespace.
func (w *workspace) phpFiles(from, fq string) []string {
	if m := w.phpMap(); m.mapped {
		for _, p := range m.prefixes {
			if !strings.HasPrefix(fq+`\`, p.prefix) {
				continue
			}
			base := path.Join(p.dir, strings.ReplaceAll(strings.TrimPrefix(fq+`\`, p.prefix), `\`, "/"))
			if w.files[base+".php"] {
				return []string{base + ".php"}
			}
			var files []string
			for _, q := range w.dirs[base] {
				if strings.HasSuffix(q, ".php") {
					files = append(files, q)
				}
			}
			if len(files) > 0 {
				return files
			}
		}
		return nil
	}
	ns, _ := splitPHP(fq)
	return slices.DeleteFunc(w.resolveDotted(from, fq, `\`, ".php"), func(q string) bool {
		got := w.phpNamespace(q)
		return got != ns && got != fq
	})
}

var phpNamespaceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*namespace[ \t]+\\?([\w\\]+)[ \t]*[;{]`) })

// phpNamespace is the namespace a PHP file of the index declares.
func (w *workspace) phpNamespace(p string) string {
	text, ok := w.tx.Blob(p)
	if !ok {
		return ""
	}
	if m := phpNamespaceRe().FindSubmatch(text); m != nil {
		return string(m[1])
	}
	return ""
}

// splitPHP splits a fully qualified name into its namespace and name.
func splitPHP(fq string) (ns, name string) {
	if i := strings.LastIndex(fq, `\`); i >= 0 {
		return fq[:i], fq[i+1:]
	}
	return "", fq
}

func joinPHP(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + `\` + name
}

// phpQualify is the fully qualified name a name written in p denotes, and
// whether an unqualified function of that name may fall back to the
// global namespace.
func phpQualify(p *parsed, written string) (fq string, fallback bool) {
	if strings.HasPrefix(written, `\`) {
		return strings.TrimLeft(written, `\`), false
	}
	ns := p.defs().Package
	if rest, ok := strings.CutPrefix(written, `namespace\`); ok {
		return joinPHP(ns, rest), false
	}
	first, rest, qualified := strings.Cut(written, `\`)
	for _, imp := range p.defs().Imports {
		if imp.Local == first && imp.Member != "" {
			full := joinPHP(imp.Spec, imp.Member)
			if qualified {
				full += `\` + rest
			}
			return full, false
		}
	}
	return joinPHP(ns, written), !qualified
}

// phpNames resolves a class, function or constant name as written in p.
func phpNames(r *resolver, p *parsed, written string, keep func(*xref.Def) bool) ([]hit, bool) {
	fq, fallback := phpQualify(p, written)
	ns, name := splitPHP(fq)
	hits := r.phpDefs(p, ns, name, keep)
	if len(hits) == 0 && fallback && ns != "" {
		hits = r.phpDefs(p, "", name, func(d *xref.Def) bool {
			return d.Kind == "function" && (keep == nil || keep(d))
		})
	}
	return hits, true
}

// phpDefs finds the top-level definitions of name in namespace ns: in p
// itself, in the file PSR-4 maps the name to, then in any file of the
// symbol map that declares ns.
func (r *resolver) phpDefs(p *parsed, ns, name string, keep func(*xref.Def) bool) []hit {
	if p.packageName() == ns {
		if hits := r.topLevel(p.path, name, keep); len(hits) > 0 {
			return hits
		}
	}
	var hits []hit
	for _, q := range r.w.phpFiles(p.path, joinPHP(ns, name)) {
		if f := r.file(q); f != nil && f.packageName() == ns {
			hits = append(hits, r.topLevel(q, name, keep)...)
		}
	}
	if len(hits) > 0 {
		return hits
	}
	for _, q := range r.symbolFiles(p, name) {
		if f := r.file(q); q != p.path && f != nil && f.packageName() == ns {
			hits = append(hits, r.topLevel(q, name, keep)...)
		}
	}
	return dedupHits(hits)
}

// symbolFiles are the files of p's language family whose symbols include
// name (the same cache as the global fallback).
func (r *resolver) symbolFiles(p *parsed, name string) []string {
	if _, ok := r.globals[name]; !ok {
		r.global(p, name, func(*xref.Def) bool { return false })
	}
	return r.globals[name]
}
