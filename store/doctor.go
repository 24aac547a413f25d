package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Problem is one thing `dossier doctor` found wrong with an index: which
// check found it, what is wrong and how to fix it.
type Problem struct {
	Check  string `json:"check"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// Fixes of the problems Doctor reports.
const (
	// FixDamaged repairs a damaged file.
	FixDamaged = "run `dossier index`; the damaged file will be kept as index.db.damaged"
	// FixRebuild repairs records that disagree with each other.
	FixRebuild = "run `dossier index`; it rebuilds the index from scratch"
)

// DoctorChecks are the checks of records whose format belongs to other
// packages; any may be nil.
type DoctorChecks struct {
	// SearchChunks and VectorChunks decode a search or vector record and
	// return the number of chunks it holds.
	SearchChunks func(rec []byte) (int, error)
	VectorChunks func(rec []byte) (int, error)
	// More runs further checks in the same transaction, reporting each
	// problem (with FixRebuild) through report.
	More func(tx *Tx, report func(check, detail string)) error
}

// maxPerCheck bounds the problems listed per check; the rest are counted.
const maxPerCheck = 10

// Report is what Doctor found.
type Report struct {
	// Problems lists what is wrong, each with its fix; none: the index is
	// sound.
	Problems []Problem
	// Incomplete, when set, says that the last index run did not finish
	// (see Tx.Unfinished): no problem, since every batch it wrote is whole
	// and the next run completes the rest.
	Incomplete string
}

// Doctor checks the index at path thoroughly: its layout, bbolt's
// consistency check (every page reachable or free, none twice), every
// value's checksum and dossier's invariants between buckets. It returns
// the problems found (none: the index is sound) and whether the last run
// finished; an error means it could not check at all (no index, or
// locked). It changes nothing in the index; a problem it finds is noted
// for the next writer (see noteDamage), which rebuilds, as the fix says.
func Doctor(path string, checks DoctorChecks) (Report, error) {
	d := &doctor{path: path, counts: map[string]int{}}
	if err := checkLink(path); err != nil {
		return Report{}, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Report{}, fmt.Errorf("%w at %s: run `dossier index` first", ErrNoIndex, path)
	}
	// Open checks the file's layout before bbolt maps it.
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return d.fatal("file", err)
	}
	defer db.Close()
	if err := d.checkFreelist(); err != nil {
		return d.fatal("file", err)
	}
	var incomplete string
	err = db.View(func(tx *Tx) error {
		if !d.walk(tx) {
			return nil // bbolt's check would read the same damaged pages
		}
		d.bolt(tx)
		d.records(tx, checks)
		incomplete = unfinishedRun(tx, filepath.Dir(path))
		if checks.More != nil {
			return checks.More(tx, func(check, detail string) { d.add(check, detail, FixRebuild) })
		}
		return nil
	})
	if err != nil {
		return d.fatal("file", err)
	}
	if len(d.problems) > 0 {
		// A plain `dossier index` would keep what it does not rewrite:
		// the note makes it rebuild from scratch.
		db.noteDamage(damaged(path, "`dossier doctor` found %s: %s", d.problems[0].Check, d.problems[0].Detail))
	}
	return Report{Problems: d.list(), Incomplete: incomplete}, nil
}

// unfinishedRun says why the index in dir is incomplete, or "" when its
// last run finished.
func unfinishedRun(tx *Tx, dir string) string {
	first := tx.b(bucketMeta).Get(metaSummary) == nil
	switch {
	case !first && !tx.Unfinished():
		return ""
	case writerActive(dir):
		holder := "another process"
		if pid := writerPID(dir); pid > 0 {
			holder = fmt.Sprintf("process %d", pid)
		}
		return fmt.Sprintf("%s is writing the index (`dossier index`, a watcher, `dossier mcp` or the workbench): what it wrote so far is sound, and it completes the rest", holder)
	case first:
		return "the first `dossier index` did not finish (it was interrupted): what it wrote is sound, and the next `dossier index` resumes it"
	}
	return "the last `dossier index` did not finish (it was interrupted): what it wrote is sound, and the next `dossier index` resumes it"
}

type doctor struct {
	path     string
	problems []Problem
	counts   map[string]int
	sink     uint32
}

func (d *doctor) add(check, detail, fix string) {
	d.counts[check]++
	if d.counts[check] <= maxPerCheck {
		d.problems = append(d.problems, Problem{Check: check, Detail: detail, Fix: fix})
	}
}

func (d *doctor) list() []Problem {
	for check, n := range d.counts {
		if n > maxPerCheck {
			d.problems = append(d.problems, Problem{Check: check, Detail: fmt.Sprintf("and %d more problems like these", n-maxPerCheck), Fix: FixRebuild})
		}
	}
	return d.problems
}

// fatal ends the check with err as a problem when it is one (damage, an
// older schema) and as an error otherwise: an index with nothing in it
// yet (ErrNoIndex, as a missing file) is not damaged.
func (d *doctor) fatal(check string, err error) (Report, error) {
	var de *DamageError
	switch {
	case errors.As(err, &de):
		d.add(check, de.Problem, FixDamaged)
	case errors.Is(err, ErrOlderSchema):
		d.add("schema", err.Error(), FixRebuild)
	default:
		return Report{}, err
	}
	return Report{Problems: d.list()}, nil
}

// checkFreelist checks the freelist page's header before bbolt's check
// loads it on a goroutine of its own, where a panic could not be caught.
func (d *doctor) checkFreelist() error {
	f, err := openRegular(d.path)
	if err != nil {
		return err
	}
	defer f.Close()
	m0, _ := readMeta(f, 0)
	m1, _ := readMeta(f, int64(m0.pageSize))
	cur := m0
	if m1.txid > m0.txid {
		cur = m1
	}
	if cur.freelist == boltNoFreelist {
		return nil
	}
	var hdr [boltPageHeader]byte
	if _, err := f.ReadAt(hdr[:], int64(cur.freelist)*int64(cur.pageSize)); err != nil {
		return damaged(d.path, "freelist page %d: %v", cur.freelist, err)
	}
	ne := binary.NativeEndian
	id, flags := ne.Uint64(hdr[0:]), ne.Uint16(hdr[8:])
	if id != cur.freelist || flags&0x10 == 0 {
		return damaged(d.path, "freelist page %d: header says page %d, flags %#x", cur.freelist, id, flags)
	}
	if overflow := uint64(ne.Uint32(hdr[12:])); cur.freelist+overflow >= cur.pgid {
		return damaged(d.path, "freelist page %d: %d overflow pages run past the high-water mark %d", cur.freelist, overflow, cur.pgid)
	}
	return nil
}

// walk reads every key and value of every bucket on this goroutine, where
// a bbolt panic or a fault is caught; false when that found damage.
func (d *doctor) walk(tx *Tx) bool {
	for _, name := range allBuckets {
		b := tx.b(name)
		if b == nil {
			d.add("buckets", fmt.Sprintf("bucket %q is missing", name), FixRebuild)
			continue
		}
		err := guard(d.path, func() error {
			return b.ForEach(func(k, v []byte) error {
				if v == nil {
					// dossier keeps no nested buckets; bbolt's own check
					// would open this one on a goroutine of its own, where a
					// damaged page cannot be recovered.
					return damaged(d.path, "bucket %q: the entry %q is marked as a nested bucket", name, k)
				}
				// Read every byte: a page past the end faults here.
				d.sink ^= crc32.Checksum(v, castagnoli)
				return nil
			})
		})
		var de *DamageError
		if errors.As(err, &de) {
			d.add("pages", fmt.Sprintf("bucket %q: %s", name, de.Problem), FixDamaged)
			return false
		}
	}
	return true
}

// bolt runs bbolt's own consistency check.
func (d *doctor) bolt(tx *Tx) {
	for err := range tx.tx.Check(bolt.WithKVStringer(bolt.HexKVStringer())) {
		d.add("bbolt", err.Error(), FixDamaged)
	}
}

// records verifies the checksums and the invariants between buckets.
func (d *doctor) records(tx *Tx, checks DoctorChecks) {
	files := map[string]File{}
	_ = tx.b(bucketFiles).ForEach(func(k, v []byte) error {
		var f File
		if err := json.Unmarshal(v, &f); err != nil || f.Path != string(k) {
			d.add("files", fmt.Sprintf("file record of %q does not decode (%v)", k, err), FixRebuild)
			return nil
		}
		files[f.Path] = f
		return nil
	})
	d.fileStats(tx, files)
	chunks := d.chunks(tx, files)
	d.pathIDs(tx, files)
	d.sealedKeys(tx, bucketBlobs, files, nil, nil)
	d.sealedKeys(tx, bucketSearch, files, chunks, checks.SearchChunks)
	d.sealedKeys(tx, bucketVectors, files, chunks, checks.VectorChunks)
	ids := map[string]Chunk{}
	for _, cs := range chunks {
		for _, c := range cs {
			ids[c.ID] = c
		}
	}
	symNames := nameLists{}
	c := tx.b(bucketSymbols).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		parts := bytes.SplitN(k, []byte{0}, 4)
		if len(parts) < 3 {
			d.add("symbols", fmt.Sprintf("malformed symbol key %q", k), FixRebuild)
			continue
		}
		if ch, ok := ids[string(parts[2])]; !ok || ch.Path != string(parts[1]) {
			d.add("symbols", fmt.Sprintf("symbol %q of %s points to chunk %s, which %s does not have", parts[0], parts[1], parts[2], parts[1]), FixRebuild)
		}
		// A symbol with a span of its own is deleted with its file by the
		// name list of symnames; one missing there would outlive the file.
		if len(parts) == 4 && !symNames.has(tx, string(parts[1]), string(parts[0])) {
			d.add("symbols", fmt.Sprintf("symbol %q of %s is missing from the file's symbol names", parts[0], parts[1]), FixRebuild)
		}
	}
	for _, p := range tx.Dirty() {
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") {
			d.add("dirty", fmt.Sprintf("the dirty set names %q, which is no workspace path", p), FixRebuild)
		}
	}
}

// chunks checks that every file has its chunk list and every list its file,
// with the ids the file record names, each mapped back by the path-id table.
func (d *doctor) chunks(tx *Tx, files map[string]File) map[string][]Chunk {
	out := map[string][]Chunk{}
	_ = tx.b(bucketChunks).ForEach(func(k, v []byte) error {
		p := string(k)
		cs, err := tx.decodeChunks(k, v)
		if err != nil {
			d.damage("chunks", err)
			return nil
		}
		out[p] = cs
		f, ok := files[p]
		if !ok {
			d.add("chunks", fmt.Sprintf("chunk list of %s has no file record", p), FixRebuild)
			return nil
		}
		var ids []string
		for _, c := range cs {
			ids = append(ids, c.ID)
			if c.Path != p || len(c.ID) < 11 || c.ID[1:11] != PathHash(p) {
				d.add("chunks", fmt.Sprintf("chunk %s in the list of %s belongs to %s", c.ID, p, c.Path), FixRebuild)
			}
		}
		if !slices.Equal(ids, f.Chunks) {
			d.add("chunks", fmt.Sprintf("%s: the file record names %d chunks, its chunk list has %d others", p, len(f.Chunks), len(ids)), FixRebuild)
		}
		return nil
	})
	for p, f := range files {
		if _, ok := out[p]; !ok && tx.b(bucketChunks).Get([]byte(p)) == nil && len(f.Chunks) > 0 {
			d.add("chunks", fmt.Sprintf("%s has no chunk list", p), FixRebuild)
		}
	}
	return out
}

// pathIDs checks that the path-id table names every indexed path under its
// hash and nothing else.
func (d *doctor) pathIDs(tx *Tx, files map[string]File) {
	listed := map[string]bool{}
	_ = tx.b(bucketPathIDs).ForEach(func(k, v []byte) error {
		for _, p := range splitPaths(v) {
			listed[p] = true
			if _, ok := files[p]; !ok || PathHash(p) != string(k) {
				d.add("pathids", fmt.Sprintf("path-id %s names %s, which is not indexed under it", k, p), FixRebuild)
			}
		}
		return nil
	})
	for p := range files {
		if !listed[p] {
			d.add("pathids", fmt.Sprintf("%s is missing from the path-id table: its chunk ids do not resolve", p), FixRebuild)
		}
	}
}

// sealedKeys verifies the checksums of a bucket of per-file values, that
// each value's file is indexed and, with count, that the record holds as
// many chunks as the file's chunk list.
func (d *doctor) sealedKeys(tx *Tx, bucket []byte, files map[string]File, chunks map[string][]Chunk, count func([]byte) (int, error)) {
	name := string(bucket)
	_ = tx.b(bucket).ForEach(func(k, v []byte) error {
		p := string(k)
		body, err := tx.unseal(bucket, k, v)
		if err != nil {
			d.damage(name, err)
			return nil
		}
		if _, ok := files[p]; !ok {
			d.add(name, fmt.Sprintf("the %s record of %s has no file record", name, p), FixRebuild)
			return nil
		}
		if count == nil {
			return nil
		}
		n, err := count(body)
		switch {
		case err != nil:
			d.add(name, fmt.Sprintf("the %s record of %s does not decode: %v", name, p, err), FixRebuild)
		case n != len(chunks[p]):
			d.add(name, fmt.Sprintf("the %s record of %s holds %d chunks, the file has %d", name, p, n, len(chunks[p])), FixRebuild)
		}
		return nil
	})
}

func (d *doctor) damage(check string, err error) {
	var de *DamageError
	if errors.As(err, &de) {
		d.add(check, de.Problem, FixDamaged)
		return
	}
	d.add(check, err.Error(), FixRebuild)
}

// nameLists caches the symnames lists of files, as sets.
type nameLists map[string]map[string]bool

func (l nameLists) has(tx *Tx, path, name string) bool {
	set, ok := l[path]
	if !ok {
		set = map[string]bool{}
		if v := tx.b(bucketSymNames).Get([]byte(path)); v != nil {
			for _, n := range strings.Split(string(v), "\x00") {
				set[n] = true
			}
		}
		l[path] = set
	}
	return set[name]
}

// fileStats checks that the stat table holds every file's size, mtime and
// hash, and nothing else: a re-index trusts it to tell what changed.
func (d *doctor) fileStats(tx *Tx, files map[string]File) {
	seen := 0
	err := tx.FileStats(func(s File) {
		f, ok := files[s.Path]
		switch {
		case !ok:
			d.add("filestat", fmt.Sprintf("stat entry of %q names no indexed file", s.Path), FixRebuild)
		case f.Size != s.Size || f.ModTime != s.ModTime || f.Hash != s.Hash:
			d.add("filestat", fmt.Sprintf("stat entry of %q disagrees with its file record", s.Path), FixRebuild)
		default:
			seen++
		}
	})
	if err != nil {
		d.add("filestat", err.Error(), FixRebuild)
		return
	}
	if seen < len(files) {
		d.add("filestat", fmt.Sprintf("%d indexed files have no stat entry", len(files)-seen), FixRebuild)
	}
}
