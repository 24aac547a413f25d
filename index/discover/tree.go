package discover

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Tree is what a walk found, kept so that the next run can tell with one
// stat per directory and per file, and without reading any directory, that
// nothing changed, as git's untracked cache does: a directory whose mtime
// is unchanged holds the same entries, so only its files need a stat.
//
// A Tree is recorded by Walk (Options.Tree) and checked by Check. It holds
// every directory walked, with its mtime and a hash of its entry names, and
// every file that passed the ignore rules, with its size, mtime and state
// (indexed, or the reason it was skipped), plus the ignore files.
type Tree struct {
	// Gen is the index generation the tree describes: the caller trusts it
	// only while the index is at that generation.
	Gen uint64
	// Skips counts the skips decided by names and ignore rules alone,
	// which hold while no directory listing or ignore file changes.
	Skips map[string]int

	sig     string
	dirs    []treeDir
	broken  string         // why the tree cannot be trusted (a symlink, ...), or ""
	started int64          // when the walk (or Check) started, Unix ns
	learned atomic.Int64   // directories whose listing Check read and now trusts
	dirAt   map[string]int // rel -> index in dirs, built on first use
}

type treeDir struct {
	rel   string
	mtime int64  // 0: racily recorded, the listing is read again
	names uint64 // FNV-1a of the entry names
	files []treeFile
}

type treeFile struct {
	name        string
	size, mtime int64
	state       string
}

// State values of a tree file besides skip reasons.
const (
	// StateIndexed is a file the index holds.
	StateIndexed = ""
	// StateFailed is a file whose processing failed: always checked again.
	StateFailed = "failed"
	// stateIgnoreFile is an ignore file the rules themselves ignore; it is
	// kept so that a change to it is seen.
	stateIgnoreFile = "ignore_file"
)

// racyWindow is how close to a walk an mtime must be for the walk not to
// trust it: a change in the same filesystem clock tick as the walk's stat
// leaves the mtime as it was (git's "racily clean" entries).
const racyWindow = int64(2 * time.Second)

// NewTree returns an empty tree for Walk to record into.
func NewTree() *Tree { return &Tree{Skips: map[string]int{}} }

// Files counts the tree's files in state.
func (t *Tree) Files(state string) int {
	n := 0
	for _, d := range t.dirs {
		for _, f := range d.files {
			if f.state == state {
				n++
			}
		}
	}
	return n
}

// SkipCounts is the skips a walk of the tree would count: by names and
// rules, and of the files in a skip state.
func (t *Tree) SkipCounts() map[string]int {
	out := make(map[string]int, len(t.Skips))
	for k, v := range t.Skips {
		out[k] = v
	}
	for _, d := range t.dirs {
		for _, f := range d.files {
			if f.state != StateIndexed && f.state != StateFailed && f.state != stateIgnoreFile {
				out[f.state]++
			}
		}
	}
	return out
}

// Usable reports whether the tree can stand for a walk; a walk through a
// symlink or an unreadable directory records one that cannot.
func (t *Tree) Usable() bool { return t != nil && t.broken == "" }

// Set records rel's size, mtime and state, as a run left it; a file the
// tree does not hold is ignored (the tree is then not usable).
func (t *Tree) Set(rel string, size, mtime int64, state string) {
	if f := t.file(rel); f != nil {
		f.size, f.mtime, f.state = size, mtime, state
	}
}

// SetState records rel's state (see Set), keeping its size and mtime.
func (t *Tree) SetState(rel, state string) {
	if f := t.file(rel); f != nil {
		f.state = state
	}
}

// file is rel's entry; for a path the tree does not hold it is nil, and
// the tree no longer usable.
func (t *Tree) file(rel string) *treeFile {
	dir, name := splitRel(rel)
	if d := t.dir(dir); d != nil {
		fs := d.files
		// A walk records a directory's files in the order it reads them.
		if j := sort.Search(len(fs), func(j int) bool { return fs[j].name >= name }); j < len(fs) && fs[j].name == name {
			return &fs[j]
		}
	}
	t.breakOn(rel)
	return nil
}

// trust is a directory's mtime, or 0 when it is too close to the walk to
// be trusted: a file added in the same tick as the walk's stat leaves it
// as it was. (A file's mtime is trusted as the index's records trust it.)
func (t *Tree) trust(mtime int64) int64 {
	if mtime >= t.started-racyWindow {
		return 0
	}
	return mtime
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// signature names what a walk's result depends on besides the tree's own
// entries: the options, the root's .git/info/exclude and dossier's own
// built-in rules (a tree a release with other rules walked is walked
// again).
func signature(root string, opts Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "max=%d\x00rules=%x\x00", opts.MaxFileSize, builtinRules())
	for _, e := range opts.Exclude {
		b.WriteString(e)
		b.WriteByte(0)
	}
	if st, err := os.Stat(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		fmt.Fprintf(&b, "exclude=%d,%d", st.Size(), st.ModTime().UnixNano())
	}
	return b.String()
}

// builtinRules sums the built-in ignore and credential-file patterns.
var builtinRules = sync.OnceValue(func() uint64 {
	h := fnv.New64a()
	for _, p := range slices.Concat(defaultIgnores, secretFiles) {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
})

// recorder is the walk's side of a Tree.
type recorder struct{ t *Tree }

// dir records a directory and returns its place, for file.
func (r recorder) dir(rel []string, st os.FileInfo, entries []os.DirEntry) int {
	if r.t == nil {
		return -1
	}
	r.t.dirs = append(r.t.dirs, treeDir{rel: strings.Join(rel, "/"), mtime: r.t.trust(st.ModTime().UnixNano()), names: namesHash(entries)})
	return len(r.t.dirs) - 1
}

// file records a file of the directory at dir.
func (r recorder) file(dir int, name string, info os.FileInfo, state string) {
	if r.t == nil {
		return
	}
	d := &r.t.dirs[dir]
	d.files = append(d.files, treeFile{name: name, size: info.Size(), mtime: info.ModTime().UnixNano(), state: state})
}

func (r recorder) skip(reason string) {
	if r.t != nil {
		r.t.Skips[reason]++
	}
}

func (r recorder) breaks(why string) {
	if r.t != nil && r.t.broken == "" {
		r.t.broken = why
	}
}

// namesHash sums a directory's entries: their names and kinds (a
// directory replaced by a file of the same name is a change).
func namesHash(entries []os.DirEntry) uint64 {
	h := fnv.New64a()
	for _, e := range entries {
		h.Write([]byte(e.Name()))
		k := uint32(e.Type())
		h.Write([]byte{0, byte(k >> 24), byte(k >> 16), byte(k >> 8), byte(k)})
	}
	return h.Sum64()
}

// ErrTreeChanged is returned by Check when a directory's entries or an
// ignore rule changed: the workspace must be walked again.
var ErrTreeChanged = errors.New("the tree changed")

// Check compares the tree with root as it is now, with one stat per
// directory and file: it returns the files whose size or mtime differ or
// whose processing failed. A directory whose entries changed (seen from its
// mtime, or from its entries when its mtime was too close to the walk to
// be trusted), a
// changed ignore file, or options other than the walk's give
// ErrTreeChanged.
func (t *Tree) Check(ctx context.Context, root string, opts Options) ([]Candidate, error) {
	if !t.Usable() {
		return nil, fmt.Errorf("%w: %s", ErrTreeChanged, t.broken)
	}
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if signature(root, opts) != t.sig {
		return nil, fmt.Errorf("%w: options or .git/info/exclude", ErrTreeChanged)
	}
	t.started = time.Now().UnixNano()
	t.learned.Store(0)
	// Directories are checked in parallel, each worker taking the next;
	// the stats are system calls that keep a core busy each.
	changed := make([][]Candidate, len(t.dirs))
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(t.dirs) || failed.Load() != nil {
					return
				}
				if err := ctx.Err(); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				c, err := t.checkDir(root, &t.dirs[i])
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				changed[i] = c
			}
		}()
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return nil, *p
	}
	var out []Candidate
	for _, c := range changed {
		out = append(out, c...)
	}
	return out, nil
}

// Learned is how many directories the last Check read because the tree
// did not trust their time (recorded too close to the walk, or changed
// with the same entries) and trusts now: written again, the tree spares
// the next Check those reads.
func (t *Tree) Learned() int { return int(t.learned.Load()) }

func (t *Tree) checkDir(root string, d *treeDir) ([]Candidate, error) {
	abs := root
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if d.rel != "" {
		abs = root + "/" + d.rel
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(abs, flags, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTreeChanged, d.rel, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTreeChanged, d.rel, err)
	}
	if mtime := unix.TimespecToNsec(st.Mtim); d.mtime == 0 || mtime != d.mtime {
		entries, err := os.ReadDir(abs)
		if err != nil || namesHash(entries) != d.names {
			return nil, fmt.Errorf("%w: the entries of %q", ErrTreeChanged, d.rel)
		}
		// The same entries: the mtime seen now stands for them (kept
		// when the tree is written again), unless it is itself too
		// recent to trust.
		if d.mtime = t.trust(mtime); d.mtime != 0 {
			t.learned.Add(1)
		}
	}
	var out []Candidate
	for _, f := range d.files {
		if err := unix.Fstatat(fd, f.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrTreeChanged, joinRel(d.rel, f.name), err)
		}
		size, mtime := st.Size, unix.TimespecToNsec(st.Mtim)
		if size == f.size && mtime == f.mtime && f.state != StateFailed {
			continue
		}
		if f.state == stateIgnoreFile || f.name == ".gitignore" || f.name == IgnoreFile {
			return nil, fmt.Errorf("%w: ignore file %s", ErrTreeChanged, joinRel(d.rel, f.name))
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK || st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return nil, fmt.Errorf("%w: %s is no longer a file", ErrTreeChanged, joinRel(d.rel, f.name))
		}
		rel := joinRel(d.rel, f.name)
		out = append(out, Candidate{Rel: rel, Abs: filepath.Join(root, filepath.FromSlash(rel)), Size: size, ModTime: mtime})
	}
	return out, nil
}

// treeMagic starts an encoded tree; the version is in its last byte.
const treeMagic = "dwt\x01"

// Encode lays the tree out for storage, ending in a CRC-32C.
func (t *Tree) Encode() []byte {
	n := 64
	for _, d := range t.dirs {
		n += len(d.rel) + 32
		for _, f := range d.files {
			n += len(f.name) + len(f.state) + 24
		}
	}
	b := append(make([]byte, 0, n), treeMagic...)
	b = binary.AppendUvarint(b, t.Gen)
	b = appendString(b, t.sig)
	keys := make([]string, 0, len(t.Skips))
	for k := range t.Skips {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(t.Skips[k]))
	}
	b = binary.AppendUvarint(b, uint64(len(t.dirs)))
	for _, d := range t.dirs {
		b = appendString(b, d.rel)
		b = binary.AppendVarint(b, d.mtime)
		b = binary.LittleEndian.AppendUint64(b, d.names)
		b = binary.AppendUvarint(b, uint64(len(d.files)))
		for _, f := range d.files {
			b = appendString(b, f.name)
			b = binary.AppendVarint(b, f.size)
			b = binary.AppendVarint(b, f.mtime)
			b = appendString(b, f.state)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// DecodeTree reads an encoded tree; a damaged or foreign one is an error
// (the caller walks instead).
func DecodeTree(b []byte) (*Tree, error) {
	if len(b) < len(treeMagic)+4 || string(b[:len(treeMagic)]) != treeMagic {
		return nil, errors.New("walk tree: unknown layout")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(body):]) {
		return nil, errors.New("walk tree: checksum mismatch")
	}
	r := &treeReader{b: body[len(treeMagic):]}
	t := &Tree{Skips: map[string]int{}}
	t.Gen = r.uvarint()
	t.sig = r.string()
	for n := r.count(); n > 0 && r.err == nil; n-- {
		k := r.string()
		t.Skips[k] = int(r.uvarint())
	}
	t.dirs = make([]treeDir, r.count())
	for i := range t.dirs {
		d := &t.dirs[i]
		d.rel, d.mtime, d.names = r.string(), r.varint(), r.uint64()
		d.files = make([]treeFile, r.count())
		for j := range d.files {
			d.files[j] = treeFile{name: r.string(), size: r.varint(), mtime: r.varint(), state: r.string()}
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return nil, fmt.Errorf("walk tree: %w", r.err)
	}
	return t, nil
}

type treeReader struct {
	b   []byte
	err error
}

func (r *treeReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *treeReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *treeReader) uint64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = cmpErr(r.err, errors.New("truncated"))
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// count reads a length, bounded by the bytes left (each item takes one at
// least), so a damaged count cannot ask for a huge allocation.
func (r *treeReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = cmpErr(r.err, errors.New("count past the end"))
		return 0
	}
	return int(n)
}

func (r *treeReader) string() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errors.New("string past the end")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
