package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/related"
)

// previewAbove is how many files a folder or glob may add without a
// preview: more are listed with their tokens and asked for first.
const previewAbove = 5

// maxAlternatives bounds the combinations of a glob's {a,b} groups:
// matching may try each, and they multiply with every group (an MCP
// client's glob of 30 groups would hold the server for minutes).
const maxAlternatives = 256

// braceLimit refuses a glob whose {a,b} groups combine into more than
// maxAlternatives patterns (counted as if every group were on its own,
// which overestimates nested ones).
func braceLimit(arg, glob string) error {
	n, stack := 1, []int{}
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			i++
		case '{':
			stack = append(stack, 1)
		case ',':
			if len(stack) > 0 {
				stack[len(stack)-1]++
			}
		case '}':
			if len(stack) > 0 {
				n *= stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		}
		if n > maxAlternatives {
			return usagef("glob %q combines into more than %d patterns through its {a,b} groups: give several simpler globs instead", arg, maxAlternatives)
		}
	}
	return nil
}

// expansion is the selectors of one `evidence add` once its folders and
// globs are turned into the files under them.
type expansion struct {
	sels []string
	// from names, for each selector a folder or glob gave, that folder or
	// glob: those files are skipped with a reason rather than failing the
	// command, and more than previewAbove of them are previewed.
	from map[string]string
	// skipped are the files a folder or glob held that are not added,
	// each with the reason; ignored counts those .gitignore,
	// .dossierignore or the built-in ignores leave out.
	skipped []skipNote
	ignored int
}

type skipNote struct{ path, reason string }

// wildcard is a selector to expand: a folder (dir, "." for the whole
// workspace) or a glob, with the tags its files get.
type wildcard struct {
	arg, dir, glob string
	tags           []string
}

// expandSelectors turns folders ("src/algo/") and globs ("src/**/*.ts")
// among args into one selector per file under them, walked as `dossier
// index` walks (discover.Walk: .gitignore, .dossierignore, the built-in
// ignores, credential files and files over MaxSourceBytes left out, the
// latter two listed). An arg "!PATTERN" excludes what PATTERN matches from
// every other selector of the command (see excluded). Other args pass
// through as they are.
func (e *Engine) expandSelectors(ctx context.Context, args []string) (expansion, error) {
	x := expansion{from: map[string]string{}}
	var cards []wildcard
	var excl []string
	for _, a := range args {
		if p, ok := strings.CutPrefix(a, "!"); ok {
			p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
			if p == "" || !doublestar.ValidatePattern(p) {
				return x, usagef("exclusion %q: give a glob after '!', such as '!**/*_test.go' or '!vendor/'", a)
			}
			if err := braceLimit(a, p); err != nil {
				return x, err
			}
			excl = append(excl, p)
			continue
		}
		w, ok, err := e.wildcard(a)
		if err != nil {
			return x, err
		}
		if ok {
			cards = append(cards, w)
		}
		x.sels = append(x.sels, a)
	}
	if len(excl) > 0 && len(x.sels) == 0 {
		return x, usagef("%s only excludes: name what to add too, such as `evidence add src/ '!**/*_test.go'`", strings.Join(args, " "))
	}
	if len(cards) == 0 {
		if len(excl) > 0 {
			x.sels = x.keep(x.sels, excl)
		}
		return x, nil
	}
	files, err := e.walkCards(ctx, cards, excl, &x)
	if err != nil {
		return x, err
	}
	var out []string
	for _, a := range x.sels {
		i := slices.IndexFunc(cards, func(w wildcard) bool { return w.arg == a })
		if i < 0 {
			out = append(out, x.keep([]string{a}, excl)...)
			continue
		}
		if len(files[i]) == 0 {
			return x, e.nothingUnder(cards[i], excl, x.skipped)
		}
		for _, rel := range files[i] {
			s := Selector{related.Target{Path: rel, Tags: cards[i].tags}}.String()
			if _, dup := x.from[s]; dup || slices.Contains(out, s) {
				continue // two globs of one command that match one file
			}
			x.from[s] = a
			out = append(out, s)
		}
	}
	x.sels = out
	return x, nil
}

// wildcard reads a as a folder or a glob; ok is false for anything else
// (a file, a range, a symbol, a graph or git target).
func (e *Engine) wildcard(a string) (wildcard, bool, error) {
	if strings.Contains(a, "::") || strings.HasPrefix(a, "@") {
		return wildcard{}, false, nil
	}
	p, tags := a, []string(nil)
	if i := strings.LastIndexByte(a, '#'); i > 0 {
		if _, err := os.Lstat(filepath.Join(e.Root, filepath.FromSlash(a))); err != nil {
			p, tags = a[:i], splitTags(a[i+1:])
		}
	}
	if filepath.IsAbs(p) {
		if r, err := filepath.Rel(e.Root, p); err == nil {
			p = r
		}
	}
	p = filepath.ToSlash(p)
	abs := filepath.Join(e.Root, filepath.FromSlash(p))
	if st, err := os.Stat(abs); err == nil {
		if !st.IsDir() {
			return wildcard{}, false, nil
		}
		dir := path.Clean(p)
		if dir == ".." || strings.HasPrefix(dir, "../") {
			return wildcard{}, false, fmt.Errorf("%s leaves the workspace %s: evidence comes from inside the workspace", a, e.Root)
		}
		if err := RefuseGitPath(a, dir); err != nil {
			return wildcard{}, false, err
		}
		return wildcard{arg: a, dir: dir, tags: tags}, true, nil
	}
	if !strings.ContainsAny(p, "*?[{") {
		return wildcard{}, false, nil
	}
	g := strings.TrimPrefix(p, "./")
	if !doublestar.ValidatePattern(g) {
		return wildcard{}, false, usagef("glob %q does not parse: check its brackets and braces ('src/**/*.ts', 'lib/{a,b}/*.go')", a)
	}
	if err := braceLimit(a, g); err != nil {
		return wildcard{}, false, err
	}
	if strings.HasPrefix(g, "/") || g == ".." || strings.HasPrefix(g, "../") {
		return wildcard{}, false, fmt.Errorf("glob %s leaves the workspace %s: globs are relative to the workspace root", a, e.Root)
	}
	return wildcard{arg: a, glob: g, tags: tags}, true, nil
}

// walkCards walks the workspace once and sorts its files into the
// wildcards they fall under (files[i] for cards[i], in walk order). The
// skips under a wildcard go to x: ignored ones counted, the rest listed.
func (e *Engine) walkCards(ctx context.Context, cards []wildcard, excl []string, x *expansion) ([][]string, error) {
	files := make([][]string, len(cards))
	under := func(rel string) int {
		if excluded(rel, excl) != "" {
			return -1
		}
		return slices.IndexFunc(cards, func(w wildcard) bool { return w.matches(rel) })
	}
	skips := discover.NewSkips(true)
	opts := e.Discover
	opts.MaxFileSize, opts.Tree, opts.OnDir = MaxSourceBytes, nil, nil
	err := discover.Walk(ctx, e.Root, opts, skips, func(c discover.Candidate) error {
		if i := under(c.Rel); i >= 0 {
			files[i] = append(files[i], c.Rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, s := range skips.List() {
		if under(s.Path) < 0 && !slices.ContainsFunc(cards, func(w wildcard) bool { return w.holds(s.Path) }) {
			continue
		}
		switch s.Reason {
		case discover.ReasonIgnored, discover.ReasonDefault:
			x.ignored++
		default:
			why := s.Reason
			if s.Detail != "" {
				why += ": " + s.Detail
			}
			x.skipped = append(x.skipped, skipNote{s.Path, why})
		}
	}
	return files, nil
}

// matches reports whether the file rel falls under w.
func (w wildcard) matches(rel string) bool {
	if w.glob != "" {
		ok, _ := doublestar.Match(w.glob, rel)
		return ok
	}
	return w.dir == "." || strings.HasPrefix(rel, w.dir+"/")
}

// holds reports whether the skipped directory rel lies inside w's folder
// (a folder of ignored files under src/ counts as ignored under src/).
func (w wildcard) holds(rel string) bool {
	return w.glob == "" && (w.dir == "." || strings.HasPrefix(rel, w.dir+"/"))
}

// excluded returns the exclusion that matches the file rel, or "". A
// pattern matches the path, anything under it when it names a folder, and,
// when it holds no '/', the file's name at any depth, as in .gitignore
// ('!*_test.go' leaves out every test).
func excluded(rel string, excl []string) string {
	for _, p := range excl {
		if ok, _ := doublestar.Match(p, rel); ok {
			return p
		}
		if ok, _ := doublestar.Match(p+"/**", rel); ok {
			return p
		}
		if !strings.Contains(p, "/") {
			if ok, _ := doublestar.Match(p, path.Base(rel)); ok {
				return p
			}
		}
	}
	return ""
}

// keep drops the named files an exclusion matches, noting each.
func (x *expansion) keep(sels, excl []string) []string {
	var out []string
	for _, s := range sels {
		sel, err := ParseSelector(s)
		if err == nil && sel.Path != "" {
			if p := excluded(path.Clean(filepath.ToSlash(sel.Path)), excl); p != "" {
				x.skipped = append(x.skipped, skipNote{s, "excluded by !" + p})
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// nothingUnder is the error for a folder or glob that gave no file: why,
// when the walk can tell (the folder is ignored), what it skipped, and
// what to do.
func (e *Engine) nothingUnder(w wildcard, excl []string, skipped []skipNote) error {
	if w.dir != "" && w.dir != "." {
		if _, reason, _ := discover.Check(e.Root, w.dir, e.Discover); reason != "" {
			return fmt.Errorf("%s is left out as `dossier index` leaves it out (%s); to take it in, add a '!%s/' line to %s", w.arg, reason, w.dir, discover.IgnoreFile)
		}
	}
	what := "no file under " + w.arg
	if w.glob != "" {
		what = "no file matches " + w.arg + " (globs are relative to the workspace root; '**' crosses folders)"
	}
	what += " that .gitignore and " + discover.IgnoreFile + " let through"
	if len(excl) > 0 {
		what += ", once !" + strings.Join(excl, ", !") + " is left out"
	}
	for _, s := range skipped {
		what += fmt.Sprintf("\n  skipped %s: %s", s.path, s.reason)
	}
	return errors.New(what)
}

// freeRanks counts the ranks of b no part holds: how many parts NextRank
// can still place there.
func (f *Flow) freeRanks(b Band) int {
	n := 0
	for r := b.Low; r <= b.Hi; r++ {
		if f.byRank(r) == nil {
			n++
		}
	}
	return n
}
