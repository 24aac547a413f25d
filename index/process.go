package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"
	"unsafe"

	"github.com/dossierhq/dossier/index/describe"
	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// outcome is what processing one candidate produced.
type outcome struct {
	path    string
	skip    string // a discover.Reason*, when the file is not indexable
	detail  string
	touched *touch         // same content, new size/mtime
	file    *store.File    // the record of a new or changed file
	enc     *store.Encoded // everything derived from it, ready to write
	bytes   int
	notes   []summary.Skipped // indexed, but worth knowing (see Summary.Notes)
	err     error             // a bug in the describers; the file is left as it was
	embeds  []embedItem       // the chunks' texts, when a remote embedder gives the vectors
}

// touch is a file whose content is unchanged but whose size or time is
// new; the rest of its record is kept as it is in the index.
type touch struct{ size, mtime int64 }

// apply writes t to path's record; cur is the record after, ok false when
// path is no longer indexed.
func (t *touch) apply(tx *store.Tx, path string) (old, cur store.File, ok bool, err error) {
	return tx.TouchFile(path, t.size, t.mtime, func(rec []byte) ([]byte, error) {
		return search.WithModTime(rec, t.mtime)
	})
}

// worker processes candidates for one goroutine.
type worker struct {
	parsers   *segment.Parsers
	reg       *describe.Registry
	repo      store.Repo
	tok       *terms.Tokenizer
	emb       *embed.Builtin
	remote    bool // vectors come later, from a remote embedder
	detectors detectors
	maxSize   int64

	// Buffers reused from chunk to chunk and file to file.
	recs      search.RecordWriter
	vecs      search.VectorWriter
	name, sig map[string]int
	vec       []float32
	scratch   []float32
}

// sniffLen is how much of a file the binary check reads (as git does).
const sniffLen = 8000

// process reads one candidate and derives everything the index keeps about
// it. old is the previous record, if any.
func (w *worker) process(ctx context.Context, c discover.Candidate, old *store.File) outcome {
	// A file the index does not hold and larger than the sniff may be a
	// binary it skipped last time: its head says so without reading the
	// rest (a no-op re-index of Go's tree read 700 binaries in full).
	if old == nil && c.Size > sniffLen {
		if head, err := fsafe.ReadHead(c.Abs, sniffLen, w.maxSize); err == nil && bytes.IndexByte(head, 0) >= 0 {
			return outcome{path: c.Rel, skip: discover.ReasonBinary}
		}
	}
	// The file may have become a FIFO or a device since the walk saw it:
	// read it only if it is still a regular file, never waiting on it.
	data, err := fsafe.ReadFile(c.Abs, w.maxSize)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return outcome{path: c.Rel, skip: discover.ReasonVanished, detail: err.Error()}
		case errors.Is(err, fsafe.ErrNotRegular):
			return outcome{path: c.Rel, skip: discover.ReasonSpecial, detail: err.Error()}
		case errors.Is(err, fsafe.ErrTooLarge):
			return outcome{path: c.Rel, skip: discover.ReasonTooLarge, detail: err.Error()}
		}
		return outcome{path: c.Rel, skip: discover.ReasonUnreadable, detail: err.Error()}
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return outcome{path: c.Rel, skip: discover.ReasonBinary}
	}
	if minified(data) {
		return outcome{path: c.Rel, skip: discover.ReasonMinified, detail: "minified or generated (very long lines)"}
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	size := int64(len(data))
	if old != nil && old.Hash == hash {
		return outcome{path: c.Rel, touched: &touch{size: size, mtime: c.ModTime}}
	}
	head := data[:min(len(data), 2048)]
	language := lang.Detect(c.Rel, head)
	var notes []summary.Skipped
	if !utf8.Valid(data) {
		// Chunks index into the repaired text, which is also what is stored.
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		notes = append(notes, summary.Skipped{Path: c.Rel, Reason: discover.ReasonInvalidUTF8})
	}
	found := secrets.Scan(c.Rel, string(data))
	srcType := lang.SourceType(c.Rel, language, head)
	if len(data) > lang.GeneratedParseLimit && lang.IsGenerated(head) {
		srcType = lang.SrcGenerated
	}
	fc := &describe.FileContext{Path: c.Rel, Abs: c.Abs, Contents: data, Language: language,
		SourceType: srcType, Repo: w.repo}
	if st, facts := dossierSource(w.repo.Root, c.Rel, data); st != "" {
		fc.SourceType, fc.Facts = st, facts
	}
	o := w.derive(ctx, fc, hash, size, c.ModTime, found)
	o.notes = append(notes, o.notes...)
	return o
}

// NoteAsText is the note of a code file indexed as text windows: its
// parse gave up or its tree was too costly to walk (see segment.Result's
// Fallback, which the note's detail gives).
const NoteAsText = "indexed_as_text"

// derive is the pure part: file context (and the secrets found in it) in,
// file update out. What it cannot read (a syntax error, a framework's
// facts, a describer's section) costs that part only: the file is
// indexed, and the problem is kept in its record and noted.
func (w *worker) derive(ctx context.Context, fc *describe.FileContext, hash string, size, mtime int64, found []secrets.Finding) outcome {
	var problems []store.FileProblem
	undo := w.frameworkHook(fc, &problems)
	res := segment.File(ctx, w.parsers, fc.Language, fc.SourceType, fc.Contents)
	undo()
	if res.ParseError {
		problems = append(problems, store.FileProblem{Reason: NoteParseError, Line: res.ErrorLine, Detail: "syntax error"})
	}
	framework, err := frameworkRecord(fc)
	if err != nil {
		problems = append(problems, factsDropped(fc.App.Framework, err))
		fc.App, framework = nil, nil
	}
	if fc.App != nil {
		for _, n := range fc.App.Notes {
			problems = append(problems, store.FileProblem{Reason: NoteFrameworkUnread, Line: n.Line, Detail: n.Text})
		}
	}
	sections, failed := w.reg.Describe(fc, res.Segments)
	chunks, dropped := describe.Points(fc, sections)
	for _, p := range append(failed, dropped...) {
		problems = append(problems, store.FileProblem{Reason: NoteSectionDropped, Line: p.Line, Detail: p.Err})
	}
	markSecrets(chunks, found)
	f := store.File{Path: fc.Path, Size: size, ModTime: mtime, Hash: hash, Language: fc.Language,
		SourceType: fc.SourceType, ParseError: res.ParseError, Chunks: make([]string, len(chunks)), Kinds: map[string]int{},
		Secrets: len(found), Problems: problems}
	for i, c := range chunks {
		f.Chunks[i] = c.ID
		f.Kinds[c.Kind]++
	}
	u := store.FileUpdate{File: f, Chunks: chunks, Blob: fc.Contents, Symbols: describe.Symbols(chunks, res.Symbols),
		Imports: res.Imports, Framework: framework}
	var embeds []embedItem
	if u.Search, u.Vectors, embeds, err = w.searchRecords(f.ModTime, chunks, fc.Contents); err != nil {
		return outcome{path: fc.Path, err: err}
	}
	enc, err := store.Encode(u)
	if err != nil {
		return outcome{path: fc.Path, err: err}
	}
	o := outcome{path: fc.Path, bytes: len(fc.Contents), file: &f, enc: enc, embeds: embeds}
	if res.Fallback != "" {
		o.notes = []summary.Skipped{{Path: fc.Path, Reason: NoteAsText, Detail: res.Fallback}}
	}
	for _, p := range problems {
		o.notes = append(o.notes, summary.Skipped{Path: fc.Path, Reason: p.Reason, Detail: problemDetail(p)})
	}
	return o
}

// NoteParseError is the note of a file the parser recovered from syntax
// errors in (chunked around them); its detail is where the first is.
const NoteParseError = summary.NoteParseError

// NoteSectionDropped is the note of a file one of whose describers
// emitted a section Points left out, or failed on a segment (see
// describe.Problem): the file's other chunks and symbols are indexed.
const NoteSectionDropped = "section_dropped"

// NoteFrameworkUnread is the note of a file a framework extractor read
// only in part (see appgraph.Facts.Notes): a URL pattern whose prefix is
// no module constant, kept as written.
const NoteFrameworkUnread = "framework_unread"

// isProblem reports whether a note's reason is a problem (see
// store.File.Problems): a run's summary names those files even when it is
// not verbose, so `index --json` says which files and where.
func isProblem(reason string) bool {
	return reason == NoteParseError || reason == NoteSectionDropped || reason == NoteFactsDropped || reason == NoteFrameworkUnread
}

// problemDetail is the detail of p's note: where, then what.
func problemDetail(p store.FileProblem) string {
	switch {
	case p.Reason == NoteParseError && p.Line > 0:
		return fmt.Sprintf("first syntax error at line %d", p.Line)
	case p.Reason == NoteParseError:
		return ""
	case p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Detail)
	}
	return p.Detail
}

// markSecrets gives each chunk the findings inside its span; outline
// chunks, whose text is synthesized, are scanned on their own.
func markSecrets(chunks []store.Chunk, found []secrets.Finding) {
	if len(found) == 0 {
		return
	}
	for i := range chunks {
		c := &chunks[i]
		if c.Outline != "" {
			c.Secrets = secrets.Scan("", c.Outline)
			continue
		}
		for _, f := range found {
			if f.Start < c.EndByte && f.End > c.StartByte {
				c.Secrets = append(c.Secrets, f)
			}
		}
	}
}

// searchRecords derives the file's search record (weighted terms per chunk)
// and its builtin vectors, both from the same terms; with a remote embedder,
// the texts to embed instead of the vectors.
func (w *worker) searchRecords(mtime int64, chunks []store.Chunk, blob []byte) ([]byte, []byte, []embedItem, error) {
	var embeds []embedItem
	if w.remote {
		embeds = make([]embedItem, len(chunks))
	} else if err := w.vecs.Begin(embed.BuiltinModel, embed.BuiltinDims); err != nil {
		return nil, nil, nil, err
	}
	w.recs.Begin(mtime, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		text := c.Outline
		if text == "" && c.StartByte <= c.EndByte && c.EndByte <= len(blob) {
			// A view, not a copy: the file's contents are never written
			// once read (derive is pure), and what the records keep of a
			// chunk's text they copy. Copying every chunk was a tenth of
			// the worker's allocation.
			text = unsafe.String(unsafe.SliceData(blob[c.StartByte:]), c.EndByte-c.StartByte)
		}
		ct := w.recs.Add(w.tok, c, text)
		if w.remote {
			embeds[i] = newEmbedItem(c, text)
			continue
		}
		w.tok.Count(w.name, c.Symbol)
		w.tok.Count(w.sig, c.Signature)
		w.emb.Chunk(w.vec, w.scratch, w.name, w.sig, ct.Terms)
		w.vecs.Add(w.vec)
	}
	if w.remote {
		return w.recs.Record(), nil, embeds, nil
	}
	return w.recs.Record(), w.vecs.Record(), nil, nil
}

// minified spots machine-written files: long, with very long lines.
func minified(data []byte) bool {
	if len(data) < 32<<10 {
		return false
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	return len(data)/lines > 1000
}
