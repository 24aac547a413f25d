package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// Update re-indexes just the given paths (slash paths relative to the root),
// as a watcher reports them, in one transaction. A path that no longer
// exists, or is now ignored, is removed with everything under it. A
// directory, or a change to an ignore file, falls back to a full Run.
func (ix *Indexer) Update(ctx context.Context, paths []string) (Summary, error) {
	if ix.link != nil {
		return ix.syncOverlay(ctx, paths)
	}
	sum, err := ix.updatePaths(ctx, paths, nil)
	if errors.Is(err, store.ErrDamaged) && ctx.Err() == nil {
		// A full run sets the damaged file aside and rebuilds.
		return ix.Run(ctx)
	}
	return sum, err
}

// updatePaths re-indexes paths; qt, when set, is the walk tree of a quick
// run (see quickRun), brought up to date and written with the records.
func (ix *Indexer) updatePaths(ctx context.Context, paths []string, qt *quickTree) (Summary, error) {
	start := time.Now()
	ix.runCtx = ctx
	if ix.repo.Root == "" {
		ix.repo = repoInfo(ix.root)
	}
	ix.detectors = newDetectors(ix.root)
	sort.Strings(paths)
	opts := discover.Options{MaxFileSize: ix.opts.MaxFileSize, Exclude: ix.opts.Exclude}
	var cands []discover.Candidate
	var gone []string
	states := map[string]string{} // what each path ended as, for qt
	skips := discover.NewSkips(ix.opts.Verbose)
	for _, p := range paths {
		// A manifest decides which files a framework describer reads.
		// (An overlay holds the files themselves: the store's snapshot
		// answers for the rest as its commit had them.)
		if base := path.Base(p); ix.link == nil && (base == ".gitignore" || base == discover.IgnoreFile || isManifest(p) || strings.HasPrefix(p, ".git/info/")) {
			return ix.Run(ctx)
		}
		c, reason, err := discover.Check(ix.root, p, opts)
		switch {
		case errors.Is(err, discover.ErrIsDir) && ix.link != nil:
			continue // its files are listed themselves
		case errors.Is(err, discover.ErrIsDir):
			return ix.Run(ctx)
		case err != nil:
			return Summary{}, err
		case reason != "":
			skips.Add(p, reason, "")
			gone = append(gone, p)
			states[p] = reason
		default:
			cands = append(cands, c)
		}
	}
	cands, gone = ix.historyOf(paths, cands, gone)

	db, err := ix.openDB()
	if err != nil {
		return Summary{}, err
	}
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	var sum Summary
	prevs := map[string]store.File{}
	if err := db.View(func(tx *store.Tx) error {
		if m, ok, err := tx.VectorModel(); err != nil || ok && !m.Same(ix.model) {
			if err != nil {
				return err
			}
			return fmt.Errorf("the index holds vectors from %s, not %s: run a full `dossier index` to re-embed", m, ix.model)
		}
		for _, c := range cands {
			old, ok, err := tx.File(c.Rel)
			if err != nil {
				return err
			}
			if ok {
				prevs[c.Rel] = old
			}
		}
		if _, err := tx.Summary(&sum); err != nil {
			return err
		}
		if qt == nil {
			qt = watchTree(tx, sum)
		}
		return nil
	}); err != nil {
		return sum, err
	}
	prevSkipped, prevSkippedFiles := sum.Skipped, sum.SkippedFiles
	// Not holding the index file while files are parsed (or a remote
	// endpoint answers): readers get in meanwhile. The writer lock keeps
	// every other writer out, so the records read above stay current.
	err = db.Close()
	db = nil
	if err != nil {
		return sum, err
	}
	if sum.ChunksByKind == nil {
		sum.Totals = summary.NewTotals()
	}
	sum.Root, sum.Repo, sum.RebuiltFrom = ix.root, ix.repo, -1
	sum.Indexed, sum.Unchanged, sum.Touched, sum.Removed = 0, 0, 0, 0
	sum.Skipped, sum.SkippedFiles, sum.Notes, sum.NotedFiles, sum.Errors = map[string]int{}, nil, map[string]int{}, nil, nil

	wk := ix.newWorker()
	defer wk.parsers.Close()
	var outs []outcome
	for _, c := range cands {
		var prev *store.File
		if old, ok := prevs[c.Rel]; ok {
			if old.Size == c.Size && old.ModTime == c.ModTime {
				sum.Unchanged++
				continue
			}
			prev = &old
		}
		o := wk.process(ctx, c, prev)
		switch {
		case o.err != nil:
			sum.Errors = append(sum.Errors, o.err.Error())
			states[o.path] = discover.StateFailed
		case o.skip != "":
			skips.Add(o.path, o.skip, o.detail)
			gone = append(gone, o.path)
			states[o.path] = o.skip
		default:
			outs = append(outs, o)
		}
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if ix.remote != nil {
		if err := ix.resolveVectors(ctx, outs); err != nil {
			return sum, err
		}
	}
	if db, err = ix.openDB(); err != nil {
		return sum, err // db is nil: nothing for the deferred Close
	}
	dossier := 0 // files under .dossier written or touched, which no tree holds
	err = db.Update(func(tx *store.Tx) error {
		changedSet := false
		for _, o := range outs {
			old, existed, err := tx.File(o.path)
			if err != nil {
				return err
			}
			if existed {
				sum.Totals.Apply(old, -1)
			} else {
				changedSet = true
			}
			if o.touched != nil {
				_, cur, ok, err := o.touched.apply(tx, o.path)
				if err != nil {
					return fmt.Errorf("update %s: %w", o.path, err)
				}
				if ok {
					sum.Totals.Apply(cur, 1)
					sum.Touched++
					dossier += dossierFile(o.path)
				}
				continue
			}
			if err := tx.Put(o.enc); err != nil {
				return fmt.Errorf("write %s: %w", o.path, err)
			}
			sum.Totals.Apply(*o.file, 1)
			sum.Indexed++
			dossier += dossierFile(o.path)
			for _, n := range o.notes {
				sum.Note(n, ix.opts.Verbose || isProblem(n.Reason))
			}
		}
		var removed []string
		all := tx.Paths()
		for _, g := range gone {
			for _, p := range all {
				if p == g || strings.HasPrefix(p, g+"/") {
					removed = append(removed, p)
				}
			}
		}
		for _, p := range removed {
			old, ok, err := tx.File(p)
			if err != nil || !ok {
				continue
			}
			if err := tx.DeleteFile(p); err != nil {
				return fmt.Errorf("remove %s: %w", p, err)
			}
			sum.Totals.Apply(old, -1)
			sum.Removed++
			changedSet = true
		}
		if changedSet {
			if err := tx.ReplaceTestLinks(testLinks(tx.Paths())); err != nil {
				return err
			}
		}
		// The skips of the whole tree: the batch's files as they are now,
		// the others as they were.
		sum.SkippedFiles = mergeSkipped(prevSkippedFiles, paths, skips.List())
		sum.SortNoted()
		if qt != nil {
			if err := qt.save(tx, &sum, paths, cands, states, dossier); err != nil {
				return err
			}
		} else {
			sum.Skipped = mergeSkips(prevSkipped, prevs, states)
		}
		sum.Seconds = time.Since(start).Seconds()
		sum.Finished = time.Now().UTC()
		return tx.SetSummary(sum)
	})
	if err != nil {
		return sum, err
	}
	// The snapshot is refreshed in transactions of its own, with the file
	// closed in between.
	err = db.Close()
	db = nil
	if err != nil {
		return sum, err
	}
	return sum, ix.refreshSearch(sum.Totals.Files)
}

// dossierFile is 1 for a file under .dossier (a history file), else 0.
func dossierFile(p string) int {
	if strings.HasPrefix(p, store.DirName+"/") {
		return 1
	}
	return 0
}

// mergeSkips is the skip counts of the whole tree after a batch when no
// walk tree tells each file's state: the last counts, with the files the
// index held before the batch (prevs) and now skips (states) counted in.
// A file the index did not hold keeps the count it had, whatever it was.
func mergeSkips(prev map[string]int, prevs map[string]store.File, states map[string]string) map[string]int {
	out := maps.Clone(prev)
	if out == nil {
		out = map[string]int{}
	}
	for p, state := range states {
		if _, held := prevs[p]; held && state != discover.StateFailed && state != discover.ReasonVanished {
			out[state]++
		}
	}
	return out
}

// mergeSkipped is the list of skipped files (kept by a verbose run) after
// a batch of paths: prev's entries of other paths, and the batch's skips
// but for files gone, which a walk would not find.
func mergeSkipped(prev []summary.Skipped, paths []string, batch []summary.Skipped) []summary.Skipped {
	if len(prev) == 0 && len(batch) == 0 {
		return nil
	}
	in := make(map[string]bool, len(paths))
	for _, p := range paths {
		in[p] = true
	}
	out := slices.DeleteFunc(slices.Clone(prev), func(s summary.Skipped) bool { return in[s.Path] })
	for _, s := range batch {
		if s.Reason != discover.ReasonVanished {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b summary.Skipped) int { return strings.Compare(a.Path, b.Path) })
	return out
}
