// Package discover walks a workspace and yields the files worth indexing. It
// honours nested .gitignore files, .git/info/exclude, .dossierignore and
// built-in defaults, never follows a symlink out of the root, survives
// symlink loops and unreadable entries, and counts every skip with a reason.
package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store/fsafe"
)

// Skip reasons, as they appear in summaries.
const (
	ReasonIgnored      = "ignored"        // .gitignore, .git/info/exclude, .dossierignore
	ReasonDefault      = "default_ignore" // built-in ignores (.git, node_modules, ...)
	ReasonTooLarge     = "too_large"
	ReasonBinary       = "binary"
	ReasonOutsideRoot  = "symlink_outside_root"
	ReasonBrokenLink   = "broken_symlink"
	ReasonLoop         = "symlink_loop"
	ReasonUnreadable   = "unreadable"
	ReasonSpecial      = "not_regular"
	ReasonInvalidUTF8  = "invalid_utf8"
	ReasonVanished     = "vanished"
	ReasonMinified     = "generated"
	ReasonSecretFile   = "secret_file" // a well-known credential file
	DefaultMaxFileSize = 1 << 20
)

// IgnoreFile is the workspace-specific ignore file, in .gitignore syntax.
const IgnoreFile = ".dossierignore"

// defaultIgnores are patterns applied before any ignore file; a workspace can
// re-include with "!pattern" in .dossierignore. ".git" is a directory, or
// the file that points a worktree or a submodule at one: git's either way.
var defaultIgnores = []string{
	".git", ".hg/", ".svn/", ".dossier/", "node_modules/", "bower_components/",
	"__pycache__/", ".venv/", "venv/", ".tox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/",
	".next/", ".nuxt/", ".gradle/", ".terraform/", ".idea/", ".vscode/",
	"/dist/", "/build/", "/target/", "/out/", "/coverage/", "/bin/", "/obj/",
	"*.min.js", "*.min.css", "*.map", "*.pyc", "*.class", "*.o", "*.so", "*.a", "*.exe", "*.dll",
	"*.lock", "package-lock.json", "pnpm-lock.yaml", "go.sum",
	".DS_Store",
}

// secretFiles are well-known credential files, skipped with ReasonSecretFile
// after the built-in ignores; like them, a "!pattern" in .dossierignore
// (or .gitignore) indexes one anyway. Example and template env files are
// not secret.
var secretFiles = []string{
	".env", ".env.*", "!.env.example", "!.env.*.example", "!.env.sample", "!.env.template", "!.env.dist", "!.env.defaults", "!.env.schema",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk", "*.kdbx",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
	".netrc", "_netrc", ".pgpass", ".git-credentials", ".htpasswd", ".pypirc",
	"**/.aws/credentials", "**/.docker/config.json", "application_default_credentials.json", "credentials.json",
}

// Options tune a walk.
type Options struct {
	// MaxFileSize skips larger files; DefaultMaxFileSize when zero.
	MaxFileSize int64
	// Exclude adds ignore patterns (.gitignore syntax, relative to the
	// root) that apply after every ignore file.
	Exclude []string
	// OnDir, when set, is called for every directory the walk enters
	// (relative slash path, "" for the root).
	OnDir func(rel string)
	// Tree, when set, records what the walk found (see Tree); it starts
	// empty (NewTree).
	Tree *Tree
}

// Candidate is a regular file inside the root that passed the ignore rules.
type Candidate struct {
	Rel     string // slash-separated, relative to the root
	Abs     string
	Size    int64
	ModTime int64 // Unix nanoseconds
}

// Skipped is a file a walk left out, and why (see summary.Skipped).
type Skipped = summary.Skipped

// Skips counts skipped files by reason; safe for concurrent use.
type Skips struct {
	mu      sync.Mutex
	verbose bool
	counts  map[string]int
	list    []Skipped
}

// NewSkips returns an empty tally; verbose keeps every path.
func NewSkips(verbose bool) *Skips { return &Skips{verbose: verbose, counts: map[string]int{}} }

// Add records one skip.
func (s *Skips) Add(path, reason, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[reason]++
	if s.verbose {
		s.list = append(s.list, Skipped{Path: path, Reason: reason, Detail: detail})
	}
}

// Counts returns a copy of the counts by reason.
func (s *Skips) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// List returns the recorded skips sorted by path (verbose only).
func (s *Skips) List() []Skipped {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Skipped(nil), s.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

type walker struct {
	root     string
	realRoot string
	opts     Options
	skips    *Skips
	fn       func(Candidate) error
	visited  map[[2]uint64]bool
	extra    []gitignore.Pattern
	rec      recorder
	git      *gitTracked // what git tracks in default-ignored folders
}

// Walk calls fn for every candidate under root in lexical order. Skips go to
// skips. It stops at the first error fn returns or when ctx ends.
func Walk(ctx context.Context, root string, opts Options, skips *Skips, fn func(Candidate) error) error {
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("root %q: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("root %s does not exist: pass an existing directory with --root", abs)
		}
		return fmt.Errorf("root %s: %w", abs, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("root %s is not a directory: pass a directory with --root", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("root %s: %w", abs, err)
	}
	w := &walker{root: abs, realRoot: real, opts: opts, skips: skips, fn: fn, visited: map[[2]uint64]bool{}, rec: recorder{opts.Tree}, git: &gitTracked{}}
	if t := opts.Tree; t != nil {
		t.sig, t.started = signature(abs, opts), time.Now().UnixNano()
	}
	base := builtins()
	defaults := len(base)
	base = append(base, readPatterns(filepath.Join(abs, ".git", "info", "exclude"), nil)...)
	w.extra = parsePatterns(opts.Exclude, nil)
	return w.dir(ctx, abs, nil, base, defaults, st)
}

// dir walks one directory; patterns are those in scope, the first nDefault
// of them built-in.
func (w *walker) dir(ctx context.Context, abs string, rel []string, patterns []gitignore.Pattern, nDefault int, st os.FileInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if id, ok := fileID(st); ok {
		if w.visited[id] {
			w.skips.Add(strings.Join(rel, "/"), ReasonLoop, "directory already visited")
			w.rec.breaks("a directory loop")
			return nil
		}
		w.visited[id] = true
	}
	if w.opts.OnDir != nil {
		w.opts.OnDir(strings.Join(rel, "/"))
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		w.skips.Add(strings.Join(rel, "/"), ReasonUnreadable, err.Error())
		w.rec.breaks("an unreadable directory")
		return nil
	}
	di := w.rec.dir(rel, st, entries)
	own := append(readPatterns(filepath.Join(abs, ".gitignore"), rel), readPatterns(filepath.Join(abs, IgnoreFile), rel)...)
	if len(own) > 0 {
		patterns = append(append([]gitignore.Pattern(nil), patterns...), own...)
	}
	scope := patterns
	if len(w.extra) > 0 {
		scope = append(append([]gitignore.Pattern(nil), patterns...), w.extra...)
	}
	for _, e := range entries {
		name := e.Name()
		childRel := append(append([]string(nil), rel...), name)
		relPath := strings.Join(childRel, "/")
		childAbs := filepath.Join(abs, name)
		typ := e.Type()
		isDir := typ.IsDir()
		var info os.FileInfo
		link := typ&fs.ModeSymlink != 0
		if link {
			target, reason, detail := w.resolveLink(childAbs)
			if reason != "" {
				w.skips.Add(relPath, reason, detail)
				w.rec.breaks("a symlink")
				continue
			}
			info = target
			isDir = info.IsDir()
		}
		ignored, by := match(scope, childRel, isDir, builtinRange(childRel, nDefault))
		if ignored && w.git.hides(w.root, relPath, by) {
			ignored = false // a default ignore never hides what git tracks
		}
		if ignored {
			reason := ignoreReason(by, nDefault)
			detail := ""
			if reason == ReasonSecretFile {
				detail = "a credential file: add !" + name + " to " + IgnoreFile + " to index it"
			}
			w.skips.Add(relPath, reason, detail)
			w.rec.skip(reason)
			if (name == ".gitignore" || name == IgnoreFile) && !isDir {
				if info, err := e.Info(); err == nil {
					w.rec.file(di, name, info, stateIgnoreFile)
				} else {
					w.rec.breaks("an unreadable ignore file")
				}
			}
			continue
		}
		if link {
			// A symlink's target can change with no trace in its
			// directory: a tree through one is not trusted.
			w.rec.breaks("a symlink")
		}
		if info == nil {
			if info, err = e.Info(); err != nil {
				reason := ReasonUnreadable
				if errors.Is(err, fs.ErrNotExist) {
					reason = ReasonVanished
				}
				w.skips.Add(relPath, reason, err.Error())
				w.rec.breaks("an entry that could not be read")
				continue
			}
		}
		if isDir {
			if err := w.dir(ctx, childAbs, childRel, patterns, nDefault, info); err != nil {
				return err
			}
			continue
		}
		if !info.Mode().IsRegular() {
			w.skips.Add(relPath, ReasonSpecial, info.Mode().Type().String())
			w.rec.file(di, name, info, ReasonSpecial)
			continue
		}
		if info.Size() > w.opts.MaxFileSize {
			w.skips.Add(relPath, ReasonTooLarge, fmt.Sprintf("%d bytes > %d", info.Size(), w.opts.MaxFileSize))
			w.rec.file(di, name, info, ReasonTooLarge)
			continue
		}
		w.rec.file(di, name, info, StateIndexed)
		if err := w.fn(Candidate{Rel: relPath, Abs: childAbs, Size: info.Size(), ModTime: info.ModTime().UnixNano()}); err != nil {
			return err
		}
	}
	return nil
}

// GitOwn reports whether rel, a path relative to a workspace root (slash
// or OS separated), is git's own: under a .git directory at any depth, or a
// .git file (a worktree's or submodule's pointer). Names are compared
// without case, as a case-insensitive file system would resolve them.
func GitOwn(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// resolveLink follows a symlink and refuses targets outside the root and
// in git's own files (the .git/ default ignore sees the link's name only).
func (w *walker) resolveLink(abs string) (os.FileInfo, string, string) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ReasonBrokenLink, err.Error()
		}
		// ELOOP and friends
		return nil, ReasonLoop, err.Error()
	}
	if real != w.realRoot && !strings.HasPrefix(real, w.realRoot+string(filepath.Separator)) {
		return nil, ReasonOutsideRoot, real
	}
	if rel, _ := filepath.Rel(w.realRoot, real); GitOwn(rel) {
		return nil, ReasonDefault, "a symlink into git's own files (" + filepath.ToSlash(rel) + ")"
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, ReasonUnreadable, err.Error()
	}
	return info, "", ""
}

// builtins are the built-in patterns: the default ignores, then the secret
// files.
func builtins() []gitignore.Pattern {
	ps := make([]gitignore.Pattern, 0, len(defaultIgnores)+len(secretFiles))
	for _, p := range defaultIgnores {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	for _, p := range secretFiles {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	return ps
}

// secretNames is what a file name must look like for a secretFiles pattern
// to match it: exact names, prefixes and suffixes, derived from the
// patterns. Matching 30 gitignore patterns against every path is a fifth of
// a no-op re-index; this check is a few string comparisons. Built on first
// use, not in every process's init.
var secretNames = sync.OnceValue(func() (n struct {
	exact          map[string]bool
	prefix, suffix []string
}) {
	n.exact = map[string]bool{}
	for _, p := range secretFiles {
		base := path.Base(strings.TrimPrefix(p, "!"))
		switch i := strings.IndexByte(base, '*'); {
		case i < 0:
			n.exact[base] = true
		case i == 0:
			n.suffix = append(n.suffix, base[1:])
		default:
			n.prefix = append(n.prefix, base[:i])
		}
	}
	return n
})

// secretLike reports whether name looks like a secretFiles pattern.
func secretLike(name string) bool {
	secretNames := secretNames()
	if secretNames.exact[name] {
		return true
	}
	for _, p := range secretNames.prefix {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range secretNames.suffix {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// defaultNames is what one element of a path must look like for a
// defaultIgnores pattern to match the path: every such pattern is a name
// ("x", "x/", "/x/") or "*" and a suffix, and a gitignore pattern without
// an inner slash matches a path only through one of its elements. The
// other half of matching every path against 70 patterns, done with
// filepath.Match, was a fifth of a no-op re-index. Built on first use.
var defaultNames = sync.OnceValue(func() (n struct {
	exact  map[string]bool
	suffix []string
}) {
	n.exact = map[string]bool{}
	for _, p := range defaultIgnores {
		base := strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
		if strings.HasPrefix(base, "*") {
			n.suffix = append(n.suffix, base[1:])
		} else {
			n.exact[base] = true
		}
	}
	return n
})

// defaultLike reports whether an element of path looks like a
// defaultIgnores pattern.
func defaultLike(path []string) bool {
	defaultNames := defaultNames()
	for _, e := range path {
		if defaultNames.exact[e] {
			return true
		}
		for _, s := range defaultNames.suffix {
			if strings.HasSuffix(e, s) {
				return true
			}
		}
	}
	return false
}

// builtinRange is the range of builtins() that cannot match path: the
// defaultIgnores patterns unless an element of path looks like one, then
// the secretFiles ones unless its name looks like one.
func builtinRange(path []string, nBuiltin int) [2]int {
	dflt, secret := defaultLike(path), secretLike(path[len(path)-1])
	switch {
	case !dflt && !secret:
		return [2]int{0, nBuiltin}
	case !secret:
		return [2]int{len(defaultIgnores), nBuiltin}
	case !dflt:
		return [2]int{0, len(defaultIgnores)}
	}
	return [2]int{}
}

// ignoreReason is the skip reason of the pattern at index by, when the first
// nBuiltin patterns are builtins().
func ignoreReason(by, nBuiltin int) string {
	switch {
	case by < len(defaultIgnores):
		return ReasonDefault
	case by < nBuiltin:
		return ReasonSecretFile
	}
	return ReasonIgnored
}

// match applies gitignore precedence: the last matching pattern wins; by is
// its index. Patterns in skip (from, to) are known not to match.
func match(patterns []gitignore.Pattern, path []string, isDir bool, skip [2]int) (ignored bool, by int) {
	for i := len(patterns) - 1; i >= 0; i-- {
		if i >= skip[0] && i < skip[1] {
			continue
		}
		if r := patterns[i].Match(path, isDir); r != gitignore.NoMatch {
			return r == gitignore.Exclude, i
		}
	}
	return false, -1
}

// maxIgnoreFile bounds an ignore file's size.
const maxIgnoreFile = 16 << 20

func readPatterns(path string, domain []string) []gitignore.Pattern {
	// An ignore file that is a FIFO or a device is not waited on.
	data, err := fsafe.ReadFile(path, maxIgnoreFile)
	if err != nil {
		return nil
	}
	return parsePatterns(strings.Split(string(data), "\n"), domain)
}

func parsePatterns(lines []string, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func fileID(st os.FileInfo) ([2]uint64, bool) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(s.Dev), uint64(s.Ino)}, true
	}
	return [2]uint64{}, false
}
