package index

import (
	"context"
	"errors"
	"time"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// quickLimit is how many changed files a run takes through the quick path;
// more are processed by a full run, on every core.
const quickLimit = 64

// quickRun brings the index up to date from the last walk's tree instead of
// a walk (see discover.Tree): with one stat per directory and file, no
// directory read, no file record decoded and no write when nothing changed,
// and the changed files alone re-indexed (updatePaths) when a few did. ok is
// false when the tree cannot stand for a walk (none, stale, a directory's
// entries or an ignore rule changed, another model, a new commit): a full
// run follows.
func (ix *Indexer) quickRun(ctx context.Context) (sum Summary, ok bool, err error) {
	start := time.Now()
	if p := store.Path(ix.root); ix.opts.Verbose || ix.noQuick || store.DamageNoted(p) || store.ChangedOutside(p) {
		// A reader found the index damaged, or it changed behind
		// dossier's back: a full run's open checks and repairs it.
		return sum, false, nil
	}
	var tree *discover.Tree
	var model store.VectorModel
	var hasModel bool
	err = ix.view(func(tx *store.Tx) error {
		b := tx.WalkTree()
		if b == nil {
			return errStop
		}
		t, err := discover.DecodeTree(b)
		if err != nil || t.Gen != tx.Generation() {
			return errStop
		}
		// The summary's totals are current too (see currentTotals): the
		// changed files' writes keep them so.
		if ok, err := tx.Summary(&sum); err != nil || !ok || sum.Generation != t.Gen {
			return errStop
		}
		// A snapshot of another layout (a newer dossier) is rebuilt by a
		// full run, though no file changed.
		if !search.SnapshotCurrent(tx) {
			return errStop
		}
		if model, hasModel, err = tx.VectorModel(); err != nil {
			return err
		}
		tree = t
		return nil
	})
	if err != nil || !hasModel {
		return sum, false, nil // a full run opens the index and says what is wrong
	}
	if current := ix.adoptModel(&model); ix.model.Dims == 0 || !current.Same(ix.model) {
		return sum, false, nil
	}
	repo := repoInfo(ix.root)
	if repo != sum.Repo {
		return sum, false, nil
	}
	// The files under .dossier the index reads are no part of the tree:
	// history that its HEAD or settings no longer stand for, or kept
	// answers added, edited or removed, take a full run.
	// The history on disk must be what the last finished run indexed too:
	// a run cut short after its sync leaves files newer than the index.
	hopts := ix.historyOptions(repo)
	if !history.Current(hopts) || history.MarkOf(hopts) != sum.HistoryMark || ix.answersMark() != sum.AnswersMark {
		return sum, false, nil
	}
	opts := discover.Options{MaxFileSize: ix.opts.MaxFileSize, Exclude: ix.opts.Exclude}
	changed, err := tree.Check(ctx, ix.root, opts)
	if err != nil {
		if ctx.Err() != nil {
			return sum, true, ctx.Err()
		}
		return sum, false, nil
	}
	if len(changed) > quickLimit {
		return sum, false, nil
	}
	paths := make([]string, len(changed))
	for i, c := range changed {
		if isManifest(c.Rel) {
			return sum, false, nil // decides how a framework's files are derived: a full run
		}
		paths[i] = c.Rel
	}
	if len(paths) == 0 {
		// Nothing changed: the last summary stands, and nothing is
		// written but, once, what the check learned.
		if tree.Learned() > 0 {
			// Best effort: an index that cannot be written (read-only
			// file, full disk) still answers that nothing changed.
			if ix.keepLearned(tree) == nil {
				sum.Generation = tree.Gen
			}
		}
		sum.Indexed, sum.Touched, sum.Removed = 0, 0, 0
		sum.Unchanged = tree.Files(discover.StateIndexed)
		sum.Skipped, sum.SkippedFiles = tree.SkipCounts(), nil
		sum.Notes, sum.NotedFiles, sum.Errors = map[string]int{}, nil, nil
		sum.Root, sum.RebuiltFrom, sum.RebuiltDamaged, sum.Damage, sum.DamagedFile = ix.root, -1, false, "", ""
		sum.Seconds = time.Since(start).Seconds()
		return sum, true, nil
	}
	ix.noQuick = true
	defer func() { ix.noQuick = false }()
	sum, err = ix.updatePaths(ctx, paths, &quickTree{tree: tree, seen: changed})
	if errors.Is(err, store.ErrDamaged) && ctx.Err() == nil {
		return sum, false, nil // a full run sets the damaged file aside
	}
	return sum, true, err
}

// keepLearned writes tree back when its check came to trust directories
// whose listings it had to read: a walk right after a clone or a copy
// records their times as too recent to trust, and without this every
// later check would read them all again. The stored summary is kept as
// it is, at the new generation. A writer in between wins: the tree is
// then left as that writer made it, nothing is committed, and
// errStaleTree is returned. It does not wait for readers past
// learnWait: the next run can learn it again.
func (ix *Indexer) keepLearned(tree *discover.Tree) error {
	db, err := store.OpenContext(ix.ctx(), store.Path(ix.root), store.Options{Timeout: learnWait})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(func(tx *store.Tx) error {
		var sum Summary
		ok, err := tx.Summary(&sum)
		if err != nil {
			return err
		}
		if !ok || tx.Generation() != tree.Gen || sum.Generation != tree.Gen {
			return errStaleTree // rolls back: the generation stays
		}
		tree.Gen = tx.Generation() + 1
		sum.Generation = tree.Gen
		if err := tx.SetWalkTree(tree.Encode()); err != nil {
			return err
		}
		return tx.SetSummary(sum)
	})
}

// learnWait is how long keepLearned waits for the index file.
const learnWait = 200 * time.Millisecond

// errStaleTree is keepLearned's answer when another writer changed the
// index since the tree was read.
var errStaleTree = errors.New("index: the walk tree is older than the index")

// quickTree is the tree a quick run updates with what it changed, written
// with the run's records.
type quickTree struct {
	tree *discover.Tree
	seen []discover.Candidate // the changed files as the check found them
}

// save brings the tree up to date with what updatePaths did with paths
// (cands as it read them, states of those not indexed), completes sum
// with the figures of the whole tree (dossier: the files written or
// touched that no tree holds), and writes the tree for the generation tx
// commits.
func (q *quickTree) save(tx *store.Tx, sum *Summary, paths []string, cands []discover.Candidate, states map[string]string, dossier int) error {
	read := make(map[string]discover.Candidate, len(cands)+len(q.seen))
	for _, c := range q.seen {
		read[c.Rel] = c
	}
	for _, c := range cands {
		read[c.Rel] = c
	}
	for _, p := range paths {
		c, ok := read[p]
		switch state := states[p]; {
		case ok && state != discover.ReasonVanished:
			q.tree.Put(p, c.Size, c.ModTime, state)
		case state == discover.ReasonTooLarge || state == discover.ReasonSpecial:
			q.tree.Put(p, 0, 0, state) // no size known: the next check reads it again
		default:
			q.tree.Drop(p) // gone, or no file a walk records
		}
	}
	if !q.tree.Usable() {
		return tx.SetWalkTree(nil)
	}
	sum.Unchanged = q.tree.Files(discover.StateIndexed) - (sum.Indexed + sum.Touched - dossier)
	sum.Skipped = q.tree.SkipCounts()
	q.tree.Gen = tx.Generation() + 1
	sum.Generation = q.tree.Gen // the totals were current, and kept so
	return tx.SetWalkTree(q.tree.Encode())
}

// watchTree is the walk tree for a watcher's update, when the index's is
// current: recorded at the index's generation by a run whose summary,
// sum, is current too (else nil, and the update counts skips as best it
// can, see mergeSkips).
func watchTree(tx *store.Tx, sum Summary) *quickTree {
	b := tx.WalkTree()
	if b == nil {
		return nil
	}
	t, err := discover.DecodeTree(b)
	if err != nil || t.Gen != tx.Generation() || sum.Generation != t.Gen || !t.Usable() {
		return nil
	}
	return &quickTree{tree: t}
}
