package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/store"
)

// SearchRoot answers q against the index of the workspace at root; ctx
// bounds the wait on a remote embedder. It opens the index read-only for
// its reading only, so a running indexer or workbench is never held up for
// longer than one search reads: a query an index of a remote model embeds
// is sent with the file closed, between a first look (the index's model,
// or a recent answer) and the search. Every front-end searches here.
func (e *Engine) SearchRoot(ctx context.Context, root string, q Query) (Response, error) {
	if slices.Contains(q.Types, TypeTable) {
		return e.searchTables(ctx, root, q)
	}
	start := time.Now()
	resp := Response{Query: q.Text, Results: []Result{}}
	q, err := prepare(q)
	if err != nil {
		return resp, err
	}
	var qe *queryEmbedding
	for look := 1; ; look++ {
		var need *store.VectorModel
		err = e.read(ctx, root, func(tx *store.Tx) error {
			if m, ok := e.embedsRemotely(tx, q); ok && (qe == nil || qe.model != m) {
				if _, cached := e.cached(tx.Generation(), q); !cached {
					need = &m
					return nil
				}
			}
			var err error
			resp, err = e.search(tx, q, qe)
			return err
		})
		if err != nil || need == nil {
			break
		}
		if look == maxLooks {
			// Re-indexed to another model between each look.
			err = fmt.Errorf("the index's vector model changed while the query was embedded: search again")
			break
		}
		// Not while holding the index (see Hold): the call may take a
		// minute.
		if err = e.drop(); err != nil {
			break
		}
		if qe = e.embedQuery(ctx, *need, q.Text); ctx.Err() != nil {
			// Interrupted: the caller is gone, no answer is wanted.
			return Response{Query: q.Text, Results: []Result{}}, ctx.Err()
		}
		if errors.Is(qe.err, embed.ErrNoRemote) {
			// This binary embeds with no endpoint: the search would fail
			// after all its other work, so it fails now.
			return Response{Query: q.Text, Results: []Result{}}, qe.err
		}
	}
	// The latency a caller sees includes opening the index and embedding.
	resp.Debug.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, err
}

// maxLooks bounds how often SearchRoot opens the index for one query: the
// model may change between two looks (a re-index to another model), and
// the query is then embedded again.
const maxLooks = 3

// read runs fn in a read transaction on the index of root, open only for
// that long unless e holds it (see Hold).
func (e *Engine) read(ctx context.Context, root string, fn func(tx *store.Tx) error) error {
	if e.held != nil && (e.heldRoot != root || e.heldReads >= holdReads || !e.held.Current()) {
		if err := e.drop(); err != nil {
			return err
		}
	}
	db := e.held
	if db == nil {
		var err error
		if db, err = store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true}); err != nil {
			return err
		}
	}
	err := db.View(fn)
	if e.oneShot {
		// Its path table is the transaction's memory (see open).
		e.snap = snapshotState{}
	}
	if e.hold && err == nil {
		if e.held != db {
			e.held, e.heldRoot, e.heldReads = db, root, 0
		}
		e.heldReads++
		return nil
	}
	e.held = nil
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Hold keeps the index open from one query to the next, until Release,
// for a caller with more queries at hand (a stream whose next lines are
// already read): opening the file and faulting in the pages every query
// reads (the roots of the trees, the tables' heads) again was a third of a
// symbol lookup's time. A writer is held up for one query at most: each
// query first checks that no one waits to open the index (store's
// DB.Current) and lets the file go if someone does. The caller must
// Release before it waits for anything (its next input): a held index
// keeps writers out for as long.
func (e *Engine) Hold() { e.hold = true }

// holdReads is how many reads one open of a held index serves: every page
// a read touches stays mapped into the process (and counted in its
// memory) until the file is closed, and a stream of regular expressions
// touches every file's text.
const holdReads = 32

// Release closes the index Hold kept open, and ends the hold.
func (e *Engine) Release() error {
	e.hold = false
	return e.drop()
}

// drop closes the index Hold kept open; the hold goes on.
func (e *Engine) drop() error {
	db := e.held
	e.held, e.heldRoot = nil, ""
	if db == nil {
		return nil
	}
	return db.Close()
}
