package search

import (
	"context"
	"errors"
	"runtime/debug"
	"sync/atomic"

	"github.com/dossierhq/dossier/store"
)

// Rebuild builds the snapshot from every file's search and vector records
// and writes it as Write does. It is the serial end of an index run, so it
// spreads over two cores: the search records are copied out of one short
// read transaction, then one goroutine builds the postings from the copy
// while this one builds the tables, adds the vector table (a second read)
// and stages the tables; the postings are staged last. No transaction is
// open while the postings are built, so the tables' staging transactions
// (which open the index for writing) need not wait for them.
//
// A cancelled ctx stops the passes and the staging between transactions;
// the earlier snapshot stays in force, and the next run rebuilds.
func Rebuild(ctx context.Context, view, update func(func(*store.Tx) error) error) error {
	// The rebuild holds every posting at once while it decodes every
	// record, the peak of an index run's memory: collect more often.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	recs, err := readRecords(&stop, view)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	wait := recs.postings(&stop, true)
	b, err := recs.tables(&stop, view)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = b.writeTables(ctx, update)
	}
	if err != nil {
		stop.Store(true)
		wait()
		return err
	}
	p, err := wait()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	b.lists = p.lists
	return b.writePostings(ctx, update)
}

// build builds the snapshot as Rebuild does, without writing it.
func build(view func(func(*store.Tx) error) error) (*Builder, error) {
	var stop atomic.Bool
	recs, err := readRecords(&stop, view)
	if err != nil {
		return nil, err
	}
	wait := recs.postings(&stop, false)
	b, err := recs.tables(&stop, view)
	if err != nil {
		stop.Store(true)
		wait()
		return nil, err
	}
	p, err := wait()
	if err != nil {
		return nil, err
	}
	b.postings = p.postings
	return b, nil
}

// records is a copy of every file's search record, in path order: the
// passes over it need no transaction, and two of them can run at once.
type records struct {
	paths []string
	recs  [][]byte
	// The records are copied into blocks; ends[b] is one past block b's
	// last record, and left[b] counts the passes (passes at first) yet
	// to go past it: the last lets the block go.
	block []byte
	ends  []int
	left  []atomic.Int32
}

// recBlock is the size of the blocks records are copied into: one buffer
// grown to hold them all would copy them again at every growth, and a
// block can go once both passes are past it.
var recBlock = 4 << 20

// errStopped ends the copy of the records when the rebuild is stopped.
var errStopped = errors.New("rebuild stopped")

// passes is how many passes read the records (each): the postings', the
// tables'.
const passes = 2

// readRecords copies every search record, until stop is set.
func readRecords(stop *atomic.Bool, view func(func(*store.Tx) error) error) (*records, error) {
	r := &records{}
	// An index run's view opens the file for each transaction, so the
	// pages of the records, mapped in as they are read and counted in the
	// process's memory, go when it ends; the copies stay.
	err := view(func(tx *store.Tx) error {
		return tx.SearchRecords(func(path string, rec []byte) error {
			if stop.Load() {
				return errStopped
			}
			if len(rec) > cap(r.block)-len(r.block) {
				if len(r.recs) > 0 {
					r.ends = append(r.ends, len(r.recs))
				}
				r.block = make([]byte, 0, max(recBlock, len(rec)))
			}
			n := len(r.block)
			r.block = append(r.block, rec...)
			r.paths = append(r.paths, path)
			r.recs = append(r.recs, r.block[n:len(r.block):len(r.block)])
			return nil
		})
	})
	if errors.Is(err, errStopped) {
		err = nil // the caller knows why
	}
	if len(r.recs) > 0 {
		r.ends = append(r.ends, len(r.recs))
	}
	r.block = nil
	r.left = make([]atomic.Int32, len(r.ends))
	for b := range r.left {
		r.left[b].Store(passes)
	}
	return r, err
}

// each calls add with every record in path order, until stop is set; it
// is one of the passes.
func (r *records) each(stop *atomic.Bool, add func(path string, rec []byte) error) error {
	b := 0
	for i, p := range r.paths {
		if stop != nil && stop.Load() {
			return nil
		}
		if err := add(p, r.recs[i]); err != nil {
			return err
		}
		if i+1 == r.ends[b] {
			if r.left[b].Add(-1) == 0 {
				// Both passes are past the block: its records can go.
				clear(r.recs[i+1-r.blockLen(b) : i+1])
			}
			b++
		}
	}
	return nil
}

// blockLen is the number of records in block b.
func (r *records) blockLen(b int) int {
	if b == 0 {
		return r.ends[0]
	}
	return r.ends[b] - r.ends[b-1]
}

// postings builds the postings on a goroutine of its own, and finishes
// them when finish is set (see finishPostings); wait returns its builder.
// A builder of the postings alone numbers the documents as one of the
// tables does (see add), so the two make one snapshot.
func (r *records) postings(stop *atomic.Bool, finish bool) (wait func() (*Builder, error)) {
	p := NewBuilder()
	done := make(chan error, 1)
	go func() {
		err := r.each(stop, func(path string, rec []byte) error { return p.add(path, rec, false, true) })
		if err == nil && finish && !stop.Load() {
			p.finishPostings()
		}
		done <- err
	}()
	return func() (*Builder, error) { return p, <-done }
}

// tables builds the document, path and metadata tables from r, then the
// symbol names and the vector table from the symbol map and the vector
// records, read in transactions run by view; it stops when stop is set.
func (r *records) tables(stop *atomic.Bool, view func(func(*store.Tx) error) error) (*Builder, error) {
	b := &Builder{}
	if err := r.each(stop, func(path string, rec []byte) error { return b.add(path, rec, true, false) }); err != nil || stop.Load() {
		return nil, err
	}
	// The names are read in a transaction of their own: with an index
	// run's view (see readRecords), the symbol map's pages they lie in go
	// before the vector records' come in.
	err := view(func(tx *store.Tx) error {
		b.names = tx.AppendSymbolNames([]byte{})
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = view(func(tx *store.Tx) error {
		m, ok, err := tableModel(tx)
		if err != nil || !ok {
			return err
		}
		return b.addVectors(m, tx.VectorRecords)
	})
	return b, err
}
