// Package history keeps the recent git history of a workspace's files as
// Markdown, one file per source file under .dossier/history/, one section
// per commit that changed it (message, author, date, changed symbols).
// The indexer indexes those files as source type file_change, so "what
// changed about X" is a search, and a hit is a span of real text that
// evidence can quote.
//
// History is read with the git CLI: one `git log --raw -z` pass over a
// bounded window for the commits and their paths, and one `-p -U0` pass
// over the code files of those commits for the hunks' function context
// (git's built-in diff drivers) and the declarations on changed lines.
// The HEAD it was read at is kept; the next sync reads only old..HEAD
// when old is still an ancestor, everything again when history was
// rewritten, and nothing at all when HEAD is unchanged.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/dossierhq/dossier/store/fsafe"
)

// Dir is where the history is kept, relative to the workspace root
// (slash-separated); the files are Dir + "/" + source path + ".md".
const Dir = ".dossier/history"

// Defaults of the [index] settings.
const (
	DefaultDepth  = 5
	DefaultWindow = 1000
)

// Options configure a sync.
type Options struct {
	Root string // absolute workspace root
	// Head is the commit HEAD names, as read from .git ("" when the root
	// is no repository or has no commit yet).
	Head string
	// Depth is how many commits are kept per file (0: history is off and
	// its files are removed); Window how many commits a full read takes
	// at most.
	Depth, Window int
	// MaxFileSize is the index's size cap: the changed symbols of a file
	// are not read from a version over it (0: no cap).
	MaxFileSize int64
}

// Result says what a sync did.
type Result struct {
	// Read is how many commits were read; Full says whether the whole
	// window was read (first run, rewritten history, new settings).
	Read int
	Full bool
	// Written and Removed count the history files written and removed.
	Written, Removed int
	// Note, when set, says why history is missing or partial, and what
	// to do; NoteKey is its short form for the run's summary.
	Note, NoteKey string
	// Mark names the HEAD and settings the history files now stand for
	// ("" when there are none); Unchanged says the sync found them current
	// and touched nothing.
	Mark      string
	Unchanged bool
}

// stateFile holds what the last sync read (see state).
const stateFile = "state.json"

// stateVersion changes when the state or the rendered files change shape
// (2: a history file for every path with history, whatever is on disk, and
// long names hashed; history files version 1 removed are written again).
const stateVersion = 2

// state is the history as last read: per path the newest commits first.
type state struct {
	Version int                  `json:"version"`
	Head    string               `json:"head"`
	Depth   int                  `json:"depth"`
	Window  int                  `json:"window"`
	Shallow bool                 `json:"shallow,omitempty"`
	Commits map[string]commitRef `json:"commits"`
	Files   map[string][]change  `json:"files"`
	// Unwritten are the paths whose history file the last sync could not
	// write or remove: the next sync renders them again.
	Unwritten []string `json:"unwritten,omitempty"`
}

// commitRef is what a rendered section says about its commit.
type commitRef struct {
	Author  string `json:"author"`
	Date    string `json:"date"`
	Subject string `json:"subject"`
	Body    string `json:"body,omitempty"`
}

// change is one commit's change to one path.
type change struct {
	Hash    string   `json:"hash"`
	Status  string   `json:"status"`
	From    string   `json:"from,omitempty"`
	Symbols []string `json:"symbols,omitempty"`
}

// Sync brings the history files under root's Dir up to date with HEAD.
// It never fails the index for want of git or history: those come back
// as a Result note; an error is a failure to write the files.
func Sync(ctx context.Context, opts Options) (Result, error) {
	dir := filepath.Join(opts.Root, filepath.FromSlash(Dir))
	if opts.Depth <= 0 {
		n, err := removeAll(dir)
		return Result{Removed: n}, err
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.Head == "" {
		n, err := removeAll(dir)
		return Result{Removed: n, NoteKey: "history_no_commits",
			Note: "history: the workspace root is not a git repository with a commit (file_change chunks need one)"}, err
	}
	last := readMark(dir)
	if last == mark(opts) {
		// The common case: nothing to read, no process started.
		return Result{Mark: mark(opts), Unchanged: true}, nil
	}
	if last == "" {
		sweep(dir) // the last sync did not finish (or there was none)
	}
	old := loadState(dir)
	if _, err := exec.LookPath("git"); err != nil {
		return Result{NoteKey: "history_no_git",
			Note: "history: git is not on PATH, so file_change chunks are not kept current: install git, or set [index] history_depth = 0"}, nil
	}
	res, next, changed, err := read(ctx, opts, old)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		// A repository git cannot read (damaged, foreign format) leaves the
		// history as it was, with a note: the files index either way.
		return Result{NoteKey: "history_unreadable",
			Note: fmt.Sprintf("history: %v; file_change chunks are left as they were (run `git status` in %s to see why)", err, opts.Root)}, nil
	}
	if next.Shallow {
		res.NoteKey, res.Note = "history_shallow", "history: a shallow clone: commits before its boundary are not read (git fetch --unshallow reads them)"
	}
	// No mark while files are written: a sync killed meanwhile leaves
	// none, so the next one sweeps what it left.
	if err := os.Remove(filepath.Join(dir, markFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("history: %w", err)
	}
	w, r, failed, err := render(opts.Root, dir, next, changed, res.Full)
	res.Written, res.Removed = w, r
	if err != nil {
		return res, err
	}
	next.Unwritten = slices.Sorted(maps.Keys(failed))
	if err := saveState(dir, next); err != nil {
		return res, err
	}
	if len(failed) > 0 {
		// No mark: the next sync finds the state read, and writes the
		// files that failed alone.
		more := ""
		if len(failed) > 1 {
			more = fmt.Sprintf(", and %d more history files", len(failed)-1)
		}
		return res, fmt.Errorf("%w%s: the next run tries again", failed[next.Unwritten[0]], more)
	}
	res.Mark = mark(opts)
	return res, writeAtomic(filepath.Join(dir, markFile), []byte(res.Mark))
}

// Current reports whether Sync would find nothing to do: the history
// files stand for opts' HEAD and settings, or there are none and none are
// wanted. It reads one small file.
func Current(opts Options) bool {
	dir := filepath.Join(opts.Root, filepath.FromSlash(Dir))
	if opts.Depth <= 0 || opts.Head == "" {
		_, err := os.Stat(dir)
		return errors.Is(err, fs.ErrNotExist)
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	return readMark(dir) == mark(opts)
}

// MarkOf is the Mark a sync with opts leaves ("" when it keeps no
// history), to compare with the mark a finished run indexed.
func MarkOf(opts Options) string {
	if opts.Depth <= 0 || opts.Head == "" {
		return ""
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	return mark(opts)
}

// markFile holds the HEAD and settings the state was read with, so an
// unchanged HEAD costs one small read (state.json runs to megabytes).
const markFile = "head"

func mark(opts Options) string {
	return fmt.Sprintf("v%d %s depth=%d window=%d\n", stateVersion, opts.Head, opts.Depth, opts.Window)
}

func readMark(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, markFile))
	if err != nil || len(data) > 256 {
		return ""
	}
	return string(data)
}

// read reads the commits since old's HEAD (all of the window when old is
// nil, was read with other settings or its HEAD is no longer an ancestor)
// and returns the new state and the paths whose history changed (nil:
// every path).
func read(ctx context.Context, opts Options, old *state) (Result, *state, map[string]bool, error) {
	var res Result
	shallow := shallowCommits(ctx, opts.Root)
	rev := opts.Head
	incremental := old != nil && old.Depth == opts.Depth && old.Window == opts.Window && old.Head != ""
	if incremental {
		_, err := git(ctx, opts.Root, nil, "merge-base", "--is-ancestor", old.Head, opts.Head)
		switch {
		case err == nil:
			rev = old.Head + ".." + opts.Head
		case exitCode(err) == 1 || exitCode(err) == 128: // rewritten, or the old commit is gone
			incremental = false
		default:
			return res, nil, nil, err
		}
	}
	cs, err := readCommits(ctx, opts.Root, rev, opts.Window)
	if err != nil {
		return res, nil, nil, err
	}
	kept := cs[:0]
	for _, c := range cs {
		if !shallow[c.Hash] { // a shallow boundary's diff shows every file as added
			kept = append(kept, c)
		}
	}
	cs = kept
	syms, err := symbolsOf(ctx, opts.Root, cs, opts.MaxFileSize)
	if err != nil {
		return res, nil, nil, err
	}
	res.Read, res.Full = len(cs), !incremental
	next := &state{Version: stateVersion, Head: opts.Head, Depth: opts.Depth, Window: opts.Window, Shallow: len(shallow) > 0,
		Commits: map[string]commitRef{}, Files: map[string][]change{}}
	fresh, deleted, alias := collect(cs, syms, opts.Depth)
	for _, c := range cs {
		next.Commits[c.Hash] = commitRef{Author: c.Author, Date: c.Date, Subject: c.Subject, Body: c.Body}
	}
	if !incremental {
		next.Files = fresh
		return res, next, nil, nil
	}
	// Old lists follow their file's renames; a file deleted since loses
	// its old list (a file of the same name added since starts afresh).
	changed := map[string]bool{}
	for _, p := range old.Unwritten {
		changed[resolve(alias, p)] = true
	}
	for p, list := range old.Files {
		if deleted[p] {
			changed[p] = true
			continue
		}
		target := resolve(alias, p)
		if target != p {
			changed[p], changed[target] = true, true
		}
		next.Files[target] = append(next.Files[target], list...)
	}
	for p, list := range fresh {
		changed[p] = true
		next.Files[p] = append(append([]change(nil), list...), next.Files[p]...)
	}
	for p, list := range next.Files {
		list = dedupe(list)
		if len(list) > opts.Depth {
			list = list[:opts.Depth]
		}
		next.Files[p] = list
		for _, ch := range list {
			if _, ok := next.Commits[ch.Hash]; !ok {
				next.Commits[ch.Hash] = old.Commits[ch.Hash]
			}
		}
	}
	return res, next, changed, nil
}

// dedupe drops a commit listed twice, keeping the first.
func dedupe(list []change) []change {
	seen := map[string]bool{}
	out := list[:0]
	for _, ch := range list {
		if !seen[ch.Hash] {
			seen[ch.Hash] = true
			out = append(out, ch)
		}
	}
	return out
}

// collect turns commits (newest first) into per-path lists of at most
// depth changes. A rename attributes the older commits of the old path to
// the new one; a deletion ends a path's list (older commits belong to a
// file of the same name that no longer exists). It also returns the
// paths deleted at some point and the renames seen (old path -> new path).
func collect(cs []commit, syms map[string]map[string][]string, depth int) (map[string][]change, map[string]bool, map[string]string) {
	files := map[string][]change{}
	deleted := map[string]bool{}
	alias := map[string]string{}
	for _, c := range cs {
		for _, ch := range c.Changes {
			p := resolve(alias, ch.Path)
			if ch.Status == "D" {
				deleted[p] = true
				continue
			}
			if deleted[p] || len(files[p]) >= depth {
				continue
			}
			files[p] = append(files[p], change{Hash: c.Hash, Status: ch.Status, From: ch.From, Symbols: syms[c.Hash][ch.Path]})
			if ch.Status == "R" && ch.From != "" && ch.From != ch.Path {
				if _, taken := files[ch.From]; !taken && !deleted[ch.From] {
					alias[ch.From] = p
				}
			}
		}
	}
	return files, deleted, alias
}

// resolve follows renames to the path a file has now.
func resolve(alias map[string]string, p string) string {
	for i := 0; i < 100; i++ {
		next, ok := alias[p]
		if !ok {
			return p
		}
		p = next
	}
	return p
}

// symbolsOf reads the changed symbols of the commits that touched code.
// A path is left out of a commit whose change of it has a blob over
// maxSize (0: no bound), so that git never reads it whole into a patch: a
// file the index skips as too large costs its history no more than its
// name.
func symbolsOf(ctx context.Context, root string, cs []commit, maxSize int64) (map[string]map[string][]string, error) {
	var hashes, blobs []string
	for _, c := range cs {
		code := false
		for _, ch := range c.Changes {
			if symbolExt(ch.Path) || ch.From != "" && symbolExt(ch.From) {
				code = code || ch.Status != "D"
				blobs = append(blobs, ch.Old, ch.New)
			}
		}
		if code {
			hashes = append(hashes, c.Hash)
		}
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	skips, err := largeBlobPaths(ctx, root, cs, blobs, maxSize)
	if err != nil {
		return nil, err
	}
	attr, err := os.CreateTemp("", "dossier-history-*.attributes")
	if err != nil {
		return nil, err
	}
	defer os.Remove(attr.Name())
	var b strings.Builder
	exts := make([]string, 0, len(funcDrivers))
	for e := range funcDrivers {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	for _, e := range exts {
		fmt.Fprintf(&b, "*.%s diff=%s\n", e, funcDrivers[e])
	}
	if _, err := attr.WriteString(b.String()); err != nil {
		attr.Close()
		return nil, err
	}
	if err := attr.Close(); err != nil {
		return nil, err
	}
	// One pass per set of paths to leave out (most commits: none), so a
	// path is left out only of the commits whose own change of it is
	// large: its other commits read the same in any window of history.
	groups := map[string][]string{}
	for _, h := range hashes {
		key := strings.Join(skips[h], "\x00")
		groups[key] = append(groups[key], h)
	}
	syms := map[string]map[string][]string{}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		var skip []string
		if key != "" {
			skip = strings.Split(key, "\x00")
		}
		got, err := readSymbols(ctx, root, attr.Name(), groups[key], skip)
		if err != nil {
			return nil, err
		}
		maps.Copy(syms, got)
	}
	return syms, nil
}

// largeBlobPaths lists, for each commit of cs with a change holding a blob
// (of blobs, which git reports sizes of) over maxSize, the paths of those
// changes, sorted.
func largeBlobPaths(ctx context.Context, root string, cs []commit, blobs []string, maxSize int64) (map[string][]string, error) {
	if maxSize <= 0 {
		return nil, nil
	}
	var ids []string
	for _, b := range blobs {
		if strings.Trim(b, "0") != "" {
			ids = append(ids, b)
		}
	}
	sizes, err := blobSizes(ctx, root, ids)
	if err != nil {
		return nil, err
	}
	large := map[string][]string{}
	for _, c := range cs {
		for _, ch := range c.Changes {
			if sizes[ch.Old] > maxSize || sizes[ch.New] > maxSize {
				large[c.Hash] = append(large[c.Hash], ch.Path)
				if ch.From != "" {
					large[c.Hash] = append(large[c.Hash], ch.From)
				}
			}
		}
		if ps := large[c.Hash]; ps != nil {
			slices.Sort(ps)
			large[c.Hash] = slices.Compact(ps)
		}
	}
	return large, nil
}

func symbolExt(p string) bool {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(p)), ".")
	for _, e := range symbolExts {
		if e == ext {
			return true
		}
	}
	return false
}

// shallowCommits lists the boundary commits of a shallow clone (none for
// a full one).
func shallowCommits(ctx context.Context, root string) map[string]bool {
	out, err := git(ctx, root, nil, "rev-parse", "--git-common-dir")
	if err != nil {
		return nil
	}
	gitDir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(root, gitDir)
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "shallow"))
	if err != nil {
		return nil
	}
	m := map[string]bool{}
	for _, l := range strings.Fields(string(data)) {
		m[l] = true
	}
	return m
}

func loadState(dir string) *state {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil
	}
	var s state
	if json.Unmarshal(data, &s) != nil || s.Version != stateVersion || s.Files == nil || s.Commits == nil {
		return nil // unreadable: read everything again
	}
	return &s
}

func saveState(dir string, s *state) error {
	// Commits no path lists any more are dropped.
	used := map[string]bool{}
	for _, list := range s.Files {
		for _, ch := range list {
			used[ch.Hash] = true
		}
	}
	for h := range s.Commits {
		if !used[h] {
			delete(s.Commits, h)
		}
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, stateFile), data)
}

// writeAtomic writes data under a temporary name and renames it into
// place, so a reader (or an interrupted run) never sees half a file.
func writeAtomic(path string, data []byte) error {
	_, err := writeFile(path, data, true)
	return err
}

// writeFile is writeAtomic, with the new file synced or not (render's
// files are synced all at once before the state names them); it reports
// whether it wrote (false: the file already held data).
func writeFile(path string, data []byte, sync bool) (bool, error) {
	if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	write := fsafe.WriteTempUnsynced
	if sync {
		write = fsafe.WriteTemp
	}
	t, err := write(path, data, 0o644)
	if err == nil {
		err = t.Rename(path)
	}
	if err != nil {
		return false, fmt.Errorf("history: write %s: %w", path, err)
	}
	return true, nil
}

// sweep removes the temporary files that a killed sync left anywhere
// under dir (see fsafe.Sweep: one a live writer holds stays), and the
// .tmp-N files of the writer before it wrote through fsafe, which held no
// lock: the directory is dossier's alone, and Sync runs under the index's
// writer lock. A sync that did not finish left no mark (Sync removes it
// before it writes), so the next one comes here.
func sweep(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if !fsafe.SweepFile(p) && oldTemp.MatchString(d.Name()) {
			os.Remove(p)
		}
		return nil
	})
}

// oldTemp is the name of the earlier writer's temporary files.
var oldTemp = regexp.MustCompile(`^\.tmp-[0-9]+$`)

// removeAll removes the history directory and returns how many history
// files it held.
func removeAll(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return 0, fmt.Errorf("history: remove %s: %w", dir, err)
	}
	return n, nil
}
