package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/store"
)

// WriteOldSnapshot replaces tx's snapshot with one of layout 3, whose path
// table was newline-separated, built from the current records: what an
// index written before snapVersion 4 holds.
func WriteOldSnapshot(tx *store.Tx) error {
	b := NewBuilder()
	if err := tx.SearchRecords(b.AddFile); err != nil {
		return err
	}
	meta, err := json.Marshal(snapMeta{Version: 3, Docs: b.Docs(), Paths: len(b.paths), TotalLen: b.totalLen,
		Kinds: b.kinds.names, SrcTypes: b.srcs.names})
	if err != nil {
		return err
	}
	if err := tx.ClearStaging(); err != nil {
		return err
	}
	err = tx.StageSnapshot(func(put func(k, v []byte) error) error {
		for _, kv := range []struct{ k, v []byte }{
			{keyMeta, meta}, {keyDocs, nonNil(b.docs)},
			{keyPaths, []byte(strings.Join(b.paths, "\n"))}, {keyPathInfo, nonNil(b.pathInfo)},
		} {
			if err := put(kv.k, kv.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tx.SwitchSnapshot()
}

// VectorsCached reports whether e kept a copy of the index's vector
// entries for its next query.
func VectorsCached(e *Engine) bool { return e.vecs.loaded }

// ResultsCached reports whether e keeps a cache of responses.
func ResultsCached(e *Engine) bool { return e.results != nil }

// VectorScans answers q's vector leg with a one-shot Engine in tx and
// returns how many files' vector records its scan read instead of the
// snapshot's vector table.
func VectorScans(tx *store.Tx, q Query) (int, error) {
	e := NewEngine()
	e.OneShot()
	q, err := prepare(q)
	if err != nil {
		return 0, err
	}
	v, err := e.open(tx)
	if err != nil {
		return 0, err
	}
	qv, m, ok, err := v.queryVector(q.Text, q.Embedder, nil)
	if err != nil || !ok {
		return 0, err
	}
	_, _, err = v.vector(qv, m, newFilter(q), candidates, nil)
	return v.recordScans, err
}

// RebuildDamaged rebuilds the snapshot as Rebuild does, with damage done
// to its vector and residual tables before it is written.
func RebuildDamaged(view, update func(func(*store.Tx) error) error, damage func(VecTables)) error {
	b, err := build(view)
	if err != nil {
		return err
	}
	damage(VecTables{vecs: b.vecs, l: colLayout{docs: b.Docs(), dims: b.vecTable.Dims}})
	return b.Write(update)
}

// VecTables are a snapshot's vector table as RebuildDamaged hands it out
// to be damaged.
type VecTables struct {
	vecs []byte
	l    colLayout
}

// Scales are the scales of the first block's documents.
func (t VecTables) Scales() []byte { off, n := t.l.piece(0, 0); return t.vecs[off : off+n] }

// Column is component j of the first block's documents.
func (t VecTables) Column(j int) []byte { off, n := t.l.piece(0, 1+j); return t.vecs[off : off+n] }

// Row is document d's row of residuals, without its checksum.
func (t VecTables) Row(d int) []byte { return t.vecs[t.l.row(d) : t.l.row(d)+t.l.dims] }

// RowAndSum is document d's row of residuals with its checksum.
func (t VecTables) RowAndSum(d int) []byte {
	return t.vecs[t.l.row(d) : t.l.row(d)+t.l.rowSize()]
}

// Docs is the number of documents.
func (t VecTables) Docs() int { return t.l.docs }

// Dims is the vectors' length.
func (t VecTables) Dims() int { return t.l.dims }

// OneShotGC is oneShotGC.
const OneShotGC = oneShotGC

// BuildDiff builds the snapshot from view's records as Rebuild does (two
// passes at once) and as a single Builder fed every record does, and says
// where the two differ ("" when nowhere).
func BuildDiff(view func(func(*store.Tx) error) error) (string, error) {
	got, err := build(view)
	if err != nil {
		return "", err
	}
	want := NewBuilder()
	err = view(func(tx *store.Tx) error {
		if err := tx.SearchRecords(want.AddFile); err != nil {
			return err
		}
		m, ok, err := tableModel(tx)
		if err != nil || !ok {
			return err
		}
		return want.addVectors(m, tx.VectorRecords)
	})
	if err != nil {
		return "", err
	}
	for _, c := range []struct {
		name     string
		got, wnt []byte
	}{
		{"docs", got.docs, want.docs}, {"metaOffs", got.metaOffs, want.metaOffs}, {"metaData", got.metaData, want.metaData},
		{"pathInfo", got.pathInfo, want.pathInfo}, {"vecs", got.vecs, want.vecs}, {"vecPaths", got.vecPaths, want.vecPaths},
		{"paths", []byte(strings.Join(got.paths, pathSep)), []byte(strings.Join(want.paths, pathSep))},
	} {
		if !bytes.Equal(c.got, c.wnt) {
			return c.name + " differ", nil
		}
	}
	if got.totalLen != want.totalLen || got.Docs() != want.Docs() || len(got.postings) != len(want.postings) {
		return fmt.Sprintf("totals differ: %d/%d/%d vs %d/%d/%d", got.totalLen, got.Docs(), len(got.postings),
			want.totalLen, want.Docs(), len(want.postings)), nil
	}
	for k, p := range want.postings {
		q := got.postings[k]
		if q == nil || !bytes.Equal(p.buf, q.buf) || p.df != q.df {
			return fmt.Sprintf("postings of %q differ", k), nil
		}
	}
	return "", nil
}

// SmallRecordBlocks makes the rebuild copy each search record into a
// block of its own until the test ends, so its passes let blocks go all
// along.
func SmallRecordBlocks(t interface{ Cleanup(func()) }) {
	old := recBlock
	recBlock = 1
	t.Cleanup(func() { recBlock = old })
}

// SymbolNameTable is the snapshot's table of symbol names (nil if none).
func SymbolNameTable(tx *store.Tx) ([]byte, error) { return tx.SnapshotValue(keyNames) }

// IsReleaseNotes is isReleaseNotes, for the ranking tests.
var IsReleaseNotes = isReleaseNotes

// NameCover is nameCover for symbol and the terms of query, as e splits
// them.
func NameCover(e *Engine, symbol, query string) float64 {
	v := &view{e: e}
	return v.nameCover(symbol, e.queryTerms(query))
}
