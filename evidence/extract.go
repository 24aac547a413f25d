package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/store"
)

// MaxSourceBytes bounds one evidence source. Every part of a source, a
// range or a symbol too, has the source read whole: to cut the span, to
// scan the file for a secret the span cuts (a key that starts above it),
// and to tell when the span's lines changed. A larger file is refused
// whatever the selector (tooLarge says so).
const MaxSourceBytes = 8 << 20

// tooLarge is the refusal of a source over MaxSourceBytes: why a range
// does not help, and what does.
func tooLarge(path string, size int64) string {
	return fmt.Sprintf("%s is %.1f MB, over the %d MB limit of an evidence source, for a range or a symbol of it too: "+
		"dossier reads the whole source for any part of it (to find a secret that starts outside the range, and to see when its lines change); "+
		"copy the lines you need into a smaller file (sed -n '100,400p' %s > excerpt.txt) and add that",
		path, float64(size)/(1<<20), MaxSourceBytes>>20, path)
}

// Extract is a resolved selector: the span's text and its provenance.
type Extract struct {
	Source  assemble.Source
	Content string
	Whole   bool
}

// inRoot turns a selector path into a workspace-relative slash path and
// checks that it, after symlinks, stays inside root.
func inRoot(root, p string) (string, string, error) {
	orig := p
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", "", fmt.Errorf("%s is outside the workspace %s: evidence comes from inside the workspace", orig, root)
		}
		p = rel
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s leaves the workspace %s: evidence comes from inside the workspace", orig, root)
	}
	if err := RefuseGitPath(orig, clean); err != nil {
		return "", "", err
	}
	abs := filepath.Join(root, clean)
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("no such file: %s (paths are relative to the workspace root %s)", orig, root)
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", orig, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", err
	}
	r, err := filepath.Rel(realRoot, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s is a symlink to %s, outside the workspace %s: evidence comes from inside the workspace", orig, real, root)
	}
	if err := RefuseGitPath(orig, r); err != nil {
		return "", "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", "", err
	}
	if st.IsDir() {
		return "", "", fmt.Errorf("%s is a directory: select a file (gather and related take a file too)", orig)
	}
	if !st.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is %s, not a regular file: evidence is read from regular files only", orig, fileKind(st.Mode()))
	}
	if st.Size() > MaxSourceBytes {
		return "", "", errors.New(tooLarge(orig, st.Size()))
	}
	return filepath.ToSlash(clean), abs, nil
}

// RefuseGitPath refuses rel, a workspace-relative path (slash or OS
// separated) that orig names, when it is git's own: anything under a .git
// directory at any depth (the workspace's, a submodule's), or a .git file
// (a worktree's or submodule's pointer), see discover.GitOwn. Git's files
// are not workspace content, and its config may hold remote URLs carrying
// a token. Every path a front-end reads a file by passes here
// (ExtractSpan, evidence add, gather, the MCP server's confinement); the
// indexer skips symlinks into them.
func RefuseGitPath(orig, rel string) error {
	if discover.GitOwn(rel) {
		return fmt.Errorf("%s is git's own (under .git): git's files are not workspace content, and dossier does not read them (its config may hold remote URLs with tokens); select a file of the workspace", orig)
	}
	return nil
}

// ExtractSpan reads sel from the disk. idx, when not nil, resolves
// symbols; sel.Path must be set (see resolveSymbol for a bare @Symbol).
func ExtractSpan(root string, sel Selector, idx *store.DB) (Extract, error) {
	rel, abs, err := inRoot(root, sel.Path)
	if err != nil {
		return Extract{}, err
	}
	if err := refuseSecretFile(root, rel, abs); err != nil {
		return Extract{}, err
	}
	raw, err := ReadRegular(abs, resolveRoots(root))
	if err != nil {
		return Extract{}, fmt.Errorf("read %s: %w", rel, err)
	}
	if bytes.IndexByte(raw[:min(len(raw), 8000)], 0) >= 0 {
		return Extract{}, fmt.Errorf("%s is a binary file: evidence is text", rel)
	}
	text := string(raw)
	lines := lineStarts(text)
	x := Extract{Source: assemble.Source{URI: "file://" + rel, Path: rel, Tags: sel.Tags, Language: languageOf(rel, raw[:min(len(raw), 512)])}}
	start, end := 1, len(lines) // lines, inclusive
	switch {
	case sel.Symbol != "":
		if start, end, err = symbolSpan(known(idx), rel, sel.Symbol, raw); err != nil {
			return Extract{}, err
		}
		x.Source.Symbol = sel.Symbol
	case sel.Bytes:
		bEnd := sel.End
		if bEnd == 0 {
			bEnd = len(raw)
		}
		if sel.Start >= len(raw) || bEnd > len(raw) {
			hint := fmt.Sprintf("select within bytes 0-%d (%s::%dc,%dc), or the whole file (%s)", len(raw), rel, max(0, len(raw)-200), len(raw), rel)
			if sel.Start < len(raw) {
				hint = fmt.Sprintf("use %s::%dc to read to the end", rel, sel.Start)
			} else if len(raw) == 0 {
				hint = "the file is empty"
			}
			return Extract{}, fmt.Errorf("%s: bytes %d-%d are past the end of %s (%d bytes): %s", sel, sel.Start, bEnd, rel, len(raw), hint)
		}
		if bEnd <= sel.Start {
			return Extract{}, fmt.Errorf("%s: the byte range %d-%d is empty (the end byte is not included): use %s::%dc,%dc for byte %d", sel, sel.Start, bEnd, rel, sel.Start, sel.Start+1, sel.Start)
		}
		x.Content = text[sel.Start:bEnd]
		x.Source.Span = fmt.Sprintf("bytes=%d:%d", sel.Start, bEnd)
		x.Source.StartLine, x.Source.EndLine = lineOf(lines, sel.Start), lineOf(lines, max(sel.Start, bEnd-1))
		x.Source.CID = CID([]byte(x.Content))
		return x, nil
	case sel.Start > 0:
		start, end = sel.Start, sel.End
		if end == 0 {
			end = len(lines)
		}
		if start > len(lines) || end > len(lines) {
			// The hint must be a selector that works.
			hint := fmt.Sprintf("use %s::%d to read to the end", rel, start)
			switch {
			case len(lines) == 0:
				hint = "the file is empty"
			case start > len(lines):
				hint = fmt.Sprintf("its last lines are %s::%d, the whole file is %s", rel, max(1, len(lines)-19), rel)
			}
			return Extract{}, fmt.Errorf("%s: lines %d-%d are past the end of %s (%d lines): %s", sel, start, end, rel, len(lines), hint)
		}
	default:
		x.Whole = true
	}
	x.Content = sliceLines(text, lines, start, end)
	x.Source.StartLine, x.Source.EndLine = start, end
	x.Source.Span = fmt.Sprintf("lines=%d:%d", start, end)
	if x.Whole {
		x.Source.Span = "all"
	} else {
		x.Source.Anchor = anchorAt(text, lines, start, end)
		x.Source.File = fileHash(text)
	}
	x.Source.CID = CID([]byte(x.Content))
	return x, nil
}

// lineStarts returns the offset of each line's first byte.
func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && i+1 < len(s) {
			out = append(out, i+1)
		}
	}
	if s == "" {
		return nil
	}
	return out
}

func lineOf(starts []int, off int) int {
	i, _ := slices.BinarySearch(starts, off+1)
	return max(1, i)
}

// sliceLines returns lines start..end (1-based, inclusive).
func sliceLines(s string, starts []int, start, end int) string {
	if len(starts) == 0 {
		return ""
	}
	from := starts[start-1]
	to := len(s)
	if end < len(starts) {
		to = starts[end]
	}
	return s[from:to]
}

func splitQualified(name string) (string, string) {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

func qualified(parents []string, sym string) string {
	if len(parents) == 0 {
		return sym
	}
	return parents[len(parents)-1] + "." + sym
}

// nearest suggests up to five names that look like want.
func nearest(want string, names []string) string {
	slices.Sort(names)
	names = slices.Compact(names)
	lw := strings.ToLower(want)
	var close []string
	for _, n := range names {
		ln := strings.ToLower(n)
		if strings.Contains(ln, lw) || strings.Contains(lw, ln) || EditDistance(lw, ln) <= 2 {
			close = append(close, n)
		}
	}
	if len(close) == 0 {
		return ""
	}
	if len(close) > 5 {
		close = close[:5]
	}
	return "; did you mean " + strings.Join(close, ", ") + "?"
}

// EditDistance is Levenshtein's distance, for suggestions only.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ResolveSymbol finds the file of a bare @Symbol. More than one definition
// is an error that lists them, so the user can pick with path::@Symbol.
func ResolveSymbol(db *store.DB, name string) (string, error) {
	parent, base := splitQualified(name)
	type def struct{ path, what string }
	var defs, members []def
	err := db.View(func(tx *store.Tx) error {
		return tx.SymbolsWithPrefix(strings.ToLower(base), func(s store.Symbol) bool {
			if s.Name == base && (parent == "" || s.Parent == parent || strings.HasSuffix(s.Parent, "."+parent)) {
				d := def{s.Path, fmt.Sprintf("%s:%d (%s %s)", s.Path, s.Line, s.Kind, qualified(nonEmpty(s.Parent), s.Name))}
				if s.HasSpan() {
					members = append(members, d)
				} else {
					defs = append(defs, d)
				}
			}
			return len(defs)+len(members) < 50
		})
	})
	if err != nil {
		return "", err
	}
	if len(defs) == 0 { // a function or type of that name wins over fields and constants
		defs = members
	}
	paths := map[string]bool{}
	for _, d := range defs {
		paths[d.path] = true
	}
	switch {
	case len(defs) == 0:
		return "", fmt.Errorf("no symbol @%s in the index: check the spelling (case matters), or run `dossier index` if it is new", name)
	case len(paths) > 1:
		var list []string
		for _, d := range defs[:min(len(defs), 10)] {
			list = append(list, "  "+d.what)
		}
		return "", fmt.Errorf("@%s is defined in %d places; pick one with PATH::@%s:\n%s", name, len(paths), name, strings.Join(list, "\n"))
	}
	return defs[0].path, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// refuseSecretFile refuses a credential file (a .pgpass line, a .netrc
// password: secrets no rule may find), by its own name or by the name of
// the file a symlink leads to, unless the user un-ignored it as for the
// index.
func refuseSecretFile(root, rel, abs string) error {
	names := []string{rel}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		if rroot, err := filepath.EvalSymlinks(root); err == nil {
			if r, err := filepath.Rel(rroot, real); err == nil && r != rel && !strings.HasPrefix(r, "..") {
				names = append(names, filepath.ToSlash(r))
			}
		}
	}
	for _, n := range names {
		if _, reason, _ := discover.Check(root, n, discover.Options{MaxFileSize: MaxSourceBytes}); reason == discover.ReasonSecretFile {
			return fmt.Errorf("%s is a credential file (the index skips %s as secret_file): dossier does not copy it into a flow; add !/%s to %s to allow it", rel, n, n, discover.IgnoreFile)
		}
	}
	return nil
}
