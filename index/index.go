// Package index builds and maintains a workspace's index: it discovers
// files, segments them (tree-sitter for code), describes the segments,
// builds chunks, symbols, imports and test links, and writes them to the
// store in batches, each batch atomic, so an interrupted run leaves a
// consistent index that the next run completes.
//
// A run syncs the git history (package history) while its workers process
// the tree; the history files are offered to them once the sync is over,
// after the tree's own files, and the run ends only after both, so no
// search ever sees a half-written history.
package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dossierhq/dossier/index/describe"
	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/store"
)

// Options configure an Indexer.
type Options struct {
	Root        string
	MaxFileSize int64    // discover.DefaultMaxFileSize when zero
	Exclude     []string // extra ignore patterns
	Verbose     bool     // keep every skipped path in the summary
	Workers     int      // GOMAXPROCS when zero
	// Progress, when set, is called as files are done (from one goroutine).
	Progress func(Progress)
	// LockTimeout bounds the wait for another indexer; store.DefaultTimeout when zero.
	LockTimeout time.Duration
	// BatchFiles caps the files per write transaction (default 1000).
	BatchFiles int
	// Embedder gives chunks their vectors when it is not the builtin one
	// (nil); Model describes it (see NewEmbedder).
	Embedder embed.Embedder
	Model    store.VectorModel
	// Notice, when set, is told what a run does besides indexing: that it
	// found the index damaged and rebuilds it from scratch.
	Notice func(string)
	// HistoryDepth is how many recent commits per file are indexed as
	// file_change chunks (0: none), read from a window of at most
	// HistoryCommits commits (history.DefaultWindow when zero). See
	// index/history.
	HistoryDepth, HistoryCommits int
	// RunSummaries indexes the answers kept by `dossier send` as
	// run_summary chunks.
	RunSummaries bool
}

// Progress reports how far a run is.
type Progress struct {
	Done  int
	Total int // -1 while the walk is still finding files
	Bytes int64
	Path  string
}

// Summary describes the index after a run and what the run did (see
// package summary, which a binary that does not index reads it with).
type Summary = summary.Summary

// Totals are the figures of the whole index.
type Totals = summary.Totals

// Indexer keeps one workspace's index. It holds the workspace's writer lock
// from Open to Close, and the index file only while writing a batch.
type Indexer struct {
	opts   Options
	root   string
	lock   *store.WriterLock
	reg    *describe.Registry
	repo   store.Repo
	model  store.VectorModel
	remote embed.Embedder // nil: builtin vectors, computed with each file
	force  bool           // process every file, changed or not (a new vector model)
	// detectors tell the files of the applications of each framework;
	// new each run, so a changed manifest is read again.
	detectors detectors
	// manifestChanged: the manifests' verdicts are not as the last
	// finished run found them (manifestState), so unchanged files of the
	// frameworks' languages are derived again (see rederive).
	manifestChanged bool
	// prevManifest is the last finished run's manifestState; newManifest
	// is set when this run's walk finds a manifest the index did not hold
	// (files walked before it may need it: Run runs again).
	prevManifest string
	newManifest  atomic.Bool
	// history is what this run's history sync did; prevHistoryMark the
	// last finished run's Summary.HistoryMark.
	history         history.Result
	prevHistoryMark string
	// historyDone is closed once this run's history sync is over: it runs
	// beside the walk of the tree, and walkDossier waits for it before it
	// reads history or its files (nil: no sync runs alongside).
	historyDone chan struct{}
	runCtx      context.Context
	// noQuick keeps Run from the quick path while that path runs.
	noQuick bool
	// link: the workspace reads a shared snapshot and the indexer keeps
	// its overlay only (see keepshared.go).
	link *store.Link
}

// Open takes the writer lock of opts.Root. A second indexer on the same
// workspace fails with store.ErrInUse after opts.LockTimeout.
func Open(opts Options) (*Indexer, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("root %q: %w", opts.Root, err)
	}
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		// One more than the cores: a worker waiting on a read or on the
		// writer leaves a core to the others.
		opts.Workers = runtime.GOMAXPROCS(0) + 1
	}
	lock, err := store.AcquireWriter(root, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	ix := &Indexer{opts: opts, root: root, lock: lock, reg: describe.Default(), model: BuiltinModel}
	if opts.Embedder != nil {
		ix.model, ix.remote = opts.Model, opts.Embedder
	}
	return ix, nil
}

// Close releases the writer lock.
func (ix *Indexer) Close() error { return ix.lock.Release() }

// Root is the absolute workspace root.
func (ix *Indexer) Root() string { return ix.root }

func (ix *Indexer) openDB() (*store.DB, error) {
	return store.OpenContext(ix.ctx(), store.Path(ix.root), store.Options{})
}

// ctx is the context of the run in progress, for the index file's opens:
// a cancelled run stops waiting for readers.
func (ix *Indexer) ctx() context.Context {
	if ix.runCtx != nil {
		return ix.runCtx
	}
	return context.Background()
}

// Run brings the index up to date with the whole workspace: new and changed
// files are processed, unchanged ones (same size and mtime, or same content)
// are not, and files that are gone lose every record derived from them.
// A damaged index (store.ErrDamaged, when it is opened or a record is read)
// is kept as index.db.damaged and rebuilt from scratch.
func (ix *Indexer) Run(ctx context.Context) (Summary, error) {
	if ix.link != nil {
		return ix.syncOverlay(ctx, nil)
	}
	if sum, ok, err := ix.quickRun(ctx); ok {
		return sum, err
	}
	sum, err := ix.runOnce(ctx)
	if err == nil && ix.newManifest.Load() {
		// A new manifest (a nested app's composer.json) may make files
		// walked before it framework files: a second run derives them.
		sum, err = ix.runOnce(ctx)
		sum.Notes["manifest_added"] = 1
	}
	return sum, err
}

// runOnce is one run, repeated once from scratch when the index is
// damaged.
func (ix *Indexer) runOnce(ctx context.Context) (Summary, error) {
	sum, err := ix.run(ctx)
	var de *store.DamageError
	if !errors.As(err, &de) || ctx.Err() != nil {
		return sum, err
	}
	kept, serr := store.SetAside(de.Path)
	if serr != nil {
		return sum, fmt.Errorf("%w; %v", err, serr)
	}
	if ix.opts.Notice != nil {
		ix.opts.Notice(fmt.Sprintf("%s is damaged (%s): kept as %s, rebuilding from scratch",
			filepath.Base(de.Path), de.Problem, filepath.Base(kept)))
	}
	sum, err = ix.run(ctx)
	sum.RebuiltDamaged, sum.Damage, sum.DamagedFile = true, de.Problem, kept
	if err == nil {
		// The summary stored by the run lacks the repair: store it again.
		err = ix.saveSummary(sum)
	}
	return sum, err
}

// saveSummary replaces the stored summary of the last run.
func (ix *Indexer) saveSummary(sum Summary) error {
	db, err := ix.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(func(tx *store.Tx) error { return tx.SetSummary(sum) })
}

func (ix *Indexer) run(ctx context.Context) (Summary, error) {
	start := time.Now()
	ix.runCtx = ctx
	sum := Summary{Root: ix.root, Skipped: map[string]int{}, Notes: map[string]int{}}
	ix.repo = repoInfo(ix.root)
	sum.Repo = ix.repo
	ix.detectors = newDetectors(ix.root)
	// The history sync (git log, the files under history.Dir) is one
	// goroutine and git: it runs while the workers process the tree, not
	// before (on GOROOT/src a core idle for seconds otherwise). Its part
	// of the summary is its own until it is over; run never returns while
	// it writes.
	hsum := Summary{Notes: map[string]int{}}
	done := make(chan struct{})
	ix.historyDone = done
	go func() {
		defer close(done)
		ix.syncHistory(ctx, &hsum)
	}()
	defer func() { <-done }()
	sum.AnswersMark = ix.answersMark() // before the walk: an answer written during it shows next time

	old, rebuilt, current, base, err := ix.loadFiles()
	if err != nil {
		return sum, err
	}
	sum.RebuiltFrom = rebuilt
	state := manifestState(ix.root, ix.detectors, old)
	ix.manifestChanged = len(old) > 0 && state != ix.prevManifest
	ix.newManifest.Store(false)
	if current = ix.adoptModel(current); ix.model.Dims == 0 {
		if err := ix.prepareModel(ctx); err != nil {
			return sum, err
		}
	}
	// Another model's vectors are replaced by re-indexing every file; a
	// remote model's embeddings are all fetched first, so a failing
	// endpoint leaves the index as it was.
	ix.force = len(old) > 0 && (current == nil || !current.Same(ix.model))
	if ix.force {
		sum.Notes["vector_model_changed"] = 1
		if ix.remote != nil {
			if err := ix.prefill(ctx, old); err != nil {
				return sum, fmt.Errorf("%w; the index still holds its vectors from %s", err, describeModel(current))
			}
		}
	}

	skips := discover.NewSkips(ix.opts.Verbose)
	w := &batchWriter{ix: ix, ctx: ctx, sum: &sum, skips: skips, totals: base, tree: discover.NewTree()}
	seen, err := ix.processAll(ctx, old, w)
	<-done
	sum.HistoryMark = hsum.HistoryMark
	sum.Errors = append(hsum.Errors, sum.Errors...)
	maps.Copy(sum.Notes, hsum.Notes)
	if err != nil {
		return sum, err
	}
	// The walk is over: the files' states go into its tree.
	for p, state := range w.states {
		w.tree.SetState(p, state)
	}
	var gone []string
	for p := range old {
		if !seen[p] || w.skipped[p] {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	if !ix.newManifest.Load() {
		// What the next run compares with: the manifests found now, a
		// nested app's new one included (else the next run derives the
		// files again).
		sum.ManifestState = manifestState(ix.root, ix.detectors, seen)
	}
	tree := w.tree
	if ix.newManifest.Load() {
		tree = nil // the run is done again
	}
	if err := ix.finish(gone, &sum, skips, base, tree, start); err != nil {
		return sum, err
	}
	return sum, nil
}

// loadFiles reads the current file records (empty for a new index) and the
// model of the index's vectors (nil when none is recorded).
func (ix *Indexer) loadFiles() (map[string]store.File, int, *store.VectorModel, *Totals, error) {
	db, err := ix.openDB()
	if err != nil {
		return nil, 0, nil, nil, err
	}
	defer db.Close()
	old := map[string]store.File{}
	var current *store.VectorModel
	var base *Totals
	err = db.View(func(tx *store.Tx) error {
		m, ok, err := tx.VectorModel()
		if err != nil {
			return err
		}
		if ok {
			current = &m
		} else {
			// A first run that never finished records no model; its files'
			// vectors name theirs.
			current = ix.recordsModel(tx)
		}
		base = currentTotals(tx)
		var prev Summary
		if ok, err := tx.Summary(&prev); err == nil && ok {
			ix.prevManifest = prev.ManifestState
			ix.prevHistoryMark = prev.HistoryMark
		}
		return tx.FileStats(func(f store.File) { old[f.Path] = f })
	})
	rebuilt := -1
	if db.Rebuilt {
		rebuilt = db.OldSchema
	}
	return old, rebuilt, current, base, err
}

// currentTotals returns the totals of the last summary when nothing was
// written since it (its generation is the index's), else nil: a run then
// keeps them current with its own writes instead of decoding every file
// record at the end.
func currentTotals(tx *store.Tx) *Totals {
	var prev Summary
	if ok, err := tx.Summary(&prev); err != nil || !ok || prev.Generation == 0 || prev.Generation != tx.Generation() {
		return nil
	}
	t := prev.Totals
	for _, m := range []*map[string]int{&t.ChunksByKind, &t.ChunksByLanguage, &t.FilesByLanguage} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
	return &t
}

// recordsModel is the model named by the index's vector records (the first
// one found), or nil when there are none.
func (ix *Indexer) recordsModel(tx *store.Tx) *store.VectorModel {
	var found *store.VectorModel
	_ = tx.VectorRecords(func(_ string, rec []byte) error {
		set, err := search.DecodeVectors(rec)
		if err != nil {
			return errStop
		}
		found = &store.VectorModel{Model: set.Model, Dims: set.Dims} // provider unknown
		return errStop
	})
	return found
}

// adoptModel completes the configured model from the index's: a remote
// model's size when the index already holds its vectors (so an unchanged
// workspace costs no request), and the provider of a model read from the
// records. It returns current, completed.
func (ix *Indexer) adoptModel(current *store.VectorModel) *store.VectorModel {
	if current == nil {
		return nil
	}
	sameModel := current.Model == ix.model.Model && (current.Provider == "" || current.Provider == ix.model.Provider)
	// The model's own size, recorded when it was last asked for it.
	if sameModel && ix.model.Dims == 0 && !current.DimsRequested && current.BaseURL == ix.model.BaseURL {
		ix.model.Dims = current.Dims
	}
	if current.Provider == "" && sameModel && current.Dims == ix.model.Dims {
		return &ix.model
	}
	return current
}

// prepareModel learns a remote model's dimensions (and checks that the
// endpoint answers) before anything is written.
func (ix *Indexer) prepareModel(ctx context.Context) error {
	p, ok := ix.remote.(interface {
		Probe(context.Context) error
		Dims() int
	})
	if !ok {
		return nil
	}
	if err := p.Probe(ctx); err != nil {
		return fmt.Errorf("embeddings endpoint %s: %w", ix.model.BaseURL, err)
	}
	ix.model.Dims = p.Dims()
	return nil
}

func describeModel(m *store.VectorModel) string {
	if m == nil {
		return "no model"
	}
	return m.String()
}

// processAll walks the workspace and streams every new or changed file
// through the workers into the batch writer. It returns the paths seen.
func (ix *Indexer) processAll(ctx context.Context, old map[string]store.File, w *batchWriter) (map[string]bool, error) {
	// A deep queue lets the walk finish early, so progress knows the total.
	jobs := make(chan discover.Candidate, 1<<16)
	results := make(chan outcome, 64)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	seen := make(map[string]bool, len(old))
	read := map[string]bool{} // the files seen that the run reads
	var walkErr error
	var total atomic.Int64
	total.Store(-1) // unknown until the walk ends
	go func() {
		defer close(jobs)
		found := int64(0)
		opts := discover.Options{MaxFileSize: ix.opts.MaxFileSize, Exclude: ix.opts.Exclude, Tree: w.tree}
		visit := func(c discover.Candidate) error {
			seen[c.Rel] = true
			if _, ok := old[c.Rel]; !ok && len(old) > 0 && isManifest(c.Rel) {
				ix.newManifest.Store(true)
			}
			if f, ok := old[c.Rel]; ok && f.Size == c.Size && f.ModTime == c.ModTime && !ix.force && !ix.rederive(c.Rel) {
				w.sum.Unchanged++
				return nil
			}
			found++
			read[c.Rel] = true
			select {
			case jobs <- c:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		walkErr = discover.Walk(ctx, ix.root, opts, w.skips, visit)
		if walkErr == nil {
			walkErr = ix.walkDossier(ctx, old, seen, read, visit)
		}
		total.Store(found)
	}()
	var wg sync.WaitGroup
	for i := 0; i < ix.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := ix.newWorker()
			defer wk.parsers.Close()
			for c := range jobs {
				var prev *store.File
				if f, ok := old[c.Rel]; ok && !ix.force && !ix.rederive(c.Rel) {
					prev = &f
				}
				o := wk.process(ctx, c, prev)
				select {
				case results <- o:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	for o := range results {
		if ctx.Err() != nil {
			continue // interrupted: keep what is committed, write nothing new
		}
		w.total = int(total.Load())
		w.add(o)
	}
	if ctx.Err() != nil {
		w.pending = nil
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// jobs is closed only after the walk returned, so walkErr is set.
	if walkErr != nil {
		return nil, walkErr
	}
	return seen, nil
}

// finish removes vanished files, refreshes the search snapshot, rebuilds
// test links and records totals and the summary. Each step is its own short
// transaction, and the index file is closed in between, so readers get in
// (see store.Open): a whole-tree step in one transaction held every reader
// out for seconds.
func (ix *Indexer) finish(gone []string, sum *Summary, skips *discover.Skips, totals *Totals, tree *discover.Tree, start time.Time) error {
	for len(gone) > 0 {
		n := min(len(gone), deleteBatch)
		err := ix.update(func(tx *store.Tx) error {
			for _, p := range gone[:n] {
				if err := totals.Remove(tx, p); err != nil {
					return fmt.Errorf("remove %s: %w", p, err)
				}
				if err := tx.DeleteFile(p); err != nil {
					return fmt.Errorf("remove %s: %w", p, err)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("finish index: %w", err)
		}
		sum.Removed += n
		gone = gone[n:]
	}
	if totals != nil {
		// The last summary's totals, kept current with this run's writes:
		// decoding every file record would cost most of a small run.
		sum.Totals = *totals
	} else {
		t := summary.NewTotals()
		err := ix.view(func(tx *store.Tx) error {
			return tx.Files(func(f store.File) error { t.Apply(f, 1); return nil })
		})
		if err != nil {
			return fmt.Errorf("finish index: %w", err)
		}
		sum.Totals = t
	}
	if err := ix.refreshSearch(sum.Totals.Files); err != nil {
		return fmt.Errorf("finish index: %w", err)
	}
	for k, v := range skips.Counts() {
		sum.Skipped[k] = v
	}
	sum.SkippedFiles = skips.List()
	sum.SortNoted()
	err := ix.update(func(tx *store.Tx) error {
		if err := tx.ReplaceTestLinks(testLinks(tx.Paths())); err != nil {
			return fmt.Errorf("test links: %w", err)
		}
		sum.Seconds = time.Since(start).Seconds()
		sum.Finished = time.Now().UTC()
		if err := tx.SetRepo(ix.repo); err != nil {
			return err
		}
		if err := tx.SetVectorModel(ix.model); err != nil {
			return err
		}
		// This transaction's commit moves the generation one on.
		sum.Generation = tx.Generation() + 1
		if err := tx.SetSummary(sum); err != nil {
			return err
		}
		if !tree.Usable() {
			return tx.SetWalkTree(nil)
		}
		tree.Gen = sum.Generation
		return tx.SetWalkTree(tree.Encode())
	})
	if err != nil {
		return fmt.Errorf("finish index: %w", err)
	}
	return nil
}

// deleteBatch is how many vanished files one transaction removes.
const deleteBatch = 500

// update runs fn in one write transaction, with the index file open for
// that transaction alone.
func (ix *Indexer) update(fn func(*store.Tx) error) error {
	db, err := ix.openDB()
	if err != nil {
		return err
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// view runs fn in one read transaction on the index opened read-only, so
// readers share the file with it: the workspace's own file, which is all
// the indexer writes, whether or not the workspace is linked to a store.
func (ix *Indexer) view(fn func(*store.Tx) error) error {
	db, err := store.OpenContext(ix.ctx(), store.Path(ix.root), store.Options{ReadOnly: true, Local: true})
	if err != nil {
		return err
	}
	err = db.View(fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func (ix *Indexer) newWorker() *worker {
	tok := terms.New()
	tok.CacheWords() // a worker splits every word of the files it is given
	return &worker{parsers: segment.NewParsers(), reg: ix.reg, repo: ix.repo, detectors: ix.detectors, tok: tok, emb: embed.NewBuiltin(),
		remote: ix.remote != nil, maxSize: cmp.Or(ix.opts.MaxFileSize, discover.DefaultMaxFileSize), name: map[string]int{}, sig: map[string]int{},
		vec: make([]float32, embed.BuiltinDims), scratch: make([]float32, embed.BuiltinDims)}
}

// refreshSearch rebuilds the search snapshot when enough files changed
// since it was built, or there is none of the current layout; otherwise
// queries read the changed files' own records. The snapshot is built from
// a read-only open and written in short transactions (search.Builder.Write).
// CompleteSearch rebuilds the search snapshot unless it holds every file
// already: what a published index needs (see Publish), as a shared
// snapshot has no files of its own outside its search tables.
func (ix *Indexer) CompleteSearch(ctx context.Context) error {
	dirty := 0
	err := ix.view(func(tx *store.Tx) error {
		if !search.SnapshotCurrent(tx) {
			dirty = -1
		} else {
			dirty = tx.DirtyCount()
		}
		return nil
	})
	if err != nil || dirty == 0 {
		return err
	}
	ix.runCtx = ctx
	if err := search.Rebuild(ctx, ix.view, ix.update); err != nil {
		return fmt.Errorf("search snapshot: %w", err)
	}
	return nil
}

func (ix *Indexer) refreshSearch(files int) error {
	fresh := false
	err := ix.view(func(tx *store.Tx) error {
		fresh = search.SnapshotCurrent(tx) && tx.DirtyCount() <= search.RebuildThreshold(files)
		return nil
	})
	if err != nil || fresh {
		return err
	}
	// The files are written: what the run allocated for them is garbage,
	// which the heap would otherwise keep on top of the rebuild's peak.
	debug.FreeOSMemory()
	if err := search.Rebuild(ix.ctx(), ix.view, ix.update); err != nil {
		return fmt.Errorf("search snapshot: %w", err)
	}
	return nil
}

// batchWriter gathers outcomes into batches of about batchBytes and commits
// them on its own goroutine, so workers keep parsing while a batch is
// written. Each batch is one transaction: a file is in the index whole or
// not at all.
type batchWriter struct {
	ix *Indexer
	// totals, when not nil, are the index's totals, kept current with
	// every write (see currentTotals).
	totals  *Totals
	ctx     context.Context
	dry     bool // batches only fill the embedding cache (see prefill)
	sum     *Summary
	skips   *discover.Skips
	total   int
	done    int
	bytes   int64
	pending []outcome
	size    int
	skipped map[string]bool
	// tree is what the walk found; states, the files that did not end
	// indexed, are set in it once the walk is over.
	tree   *discover.Tree
	states map[string]string

	queue chan []outcome
	errc  chan error
}

const (
	batchBytes = 8 << 20
	batchFiles = 1000
)

func (w *batchWriter) start() {
	w.queue = make(chan []outcome, 1)
	w.errc = make(chan error, 1)
	go func() {
		var err error
		for batch := range w.queue {
			if err == nil {
				err = w.commit(batch)
			}
		}
		w.errc <- err
	}()
}

func (w *batchWriter) add(o outcome) {
	w.done++
	w.bytes += int64(o.bytes)
	if w.states == nil {
		w.states = map[string]string{}
	}
	switch {
	case o.err != nil:
		w.sum.Errors = append(w.sum.Errors, o.err.Error())
		w.states[o.path] = discover.StateFailed
	case o.skip != "":
		w.skips.Add(o.path, o.skip, o.detail)
		w.states[o.path] = o.skip
		if w.skipped == nil {
			w.skipped = map[string]bool{}
		}
		w.skipped[o.path] = true
	default:
		for _, n := range o.notes {
			w.sum.Note(n, w.ix.opts.Verbose || isProblem(n.Reason))
		}
		if o.touched != nil {
			w.sum.Touched++
		} else {
			w.sum.Indexed++
		}
		w.pending = append(w.pending, o)
		w.size += o.bytes
	}
	if p := w.ix.opts.Progress; p != nil {
		p(Progress{Done: w.done, Total: w.total, Bytes: w.bytes, Path: o.path})
	}
	limit := w.ix.opts.BatchFiles
	if limit <= 0 {
		limit = batchFiles
	}
	if w.size >= batchBytes || len(w.pending) >= limit {
		w.send()
	}
}

func (w *batchWriter) send() {
	if len(w.pending) == 0 {
		return
	}
	if w.queue == nil {
		w.start()
	}
	w.queue <- w.pending
	w.pending, w.size = nil, 0
}

// close sends the last batch and waits for every commit.
func (w *batchWriter) close() error {
	w.send()
	if w.queue == nil {
		return nil
	}
	close(w.queue)
	return <-w.errc
}

func (w *batchWriter) commit(batch []outcome) error {
	if w.dry {
		var items []embedItem
		for _, o := range batch {
			items = append(items, o.embeds...)
		}
		_, err := w.ix.embedAll(w.ctx, items)
		return err
	}
	if err := w.ix.resolveVectors(w.ctx, batch); err != nil {
		return err
	}
	db, err := w.ix.openDB()
	if err != nil {
		return err
	}
	err = db.Update(func(tx *store.Tx) error {
		for _, o := range batch {
			if o.touched != nil {
				if _, _, _, err := o.touched.apply(tx, o.path); err != nil {
					return fmt.Errorf("update %s: %w", o.path, err)
				}
				continue
			}
			if err := w.totals.Remove(tx, o.path); err != nil {
				return fmt.Errorf("write %s: %w", o.path, err)
			}
			if err := tx.Put(o.enc); err != nil {
				return fmt.Errorf("write %s: %w", o.path, err)
			}
			if w.totals != nil {
				w.totals.Apply(*o.file, 1)
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func checkRoot(root string) error {
	err := discover.Walk(context.Background(), root, discover.Options{}, discover.NewSkips(false), func(discover.Candidate) error {
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	return nil
}

var errStop = errors.New("stop")
