package pg

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// table is a table written in bulk: by COPY on a real server, by
// INSERT ... SELECT FROM unnest(arrays) where COPY is not available
// (Options.NoCopy: PGlite).
type table struct {
	name  string
	cols  []string
	types []string // bigint, text or bytea
}

var (
	recordValues   = table{"dossier_record_values", []string{"record_id", "bucket", "value"}, []string{"bigint", "text", "bytea"}}
	symbolsTable   = table{"dossier_symbols", []string{"record_id", "key", "value"}, []string{"bigint", "bytea", "bytea"}}
	recordGrams    = table{"dossier_record_grams", []string{"record_id", "bits"}, []string{"bigint", "bytea"}}
	recordChunks   = table{"dossier_record_chunks", []string{"record_id", "chunk_id", "ord", "chunk_hash"}, []string{"bigint", "text", "int", "text"}}
	snapshotValues = table{"dossier_snapshot_values", []string{"snapshot_id", "bucket", "key", "value"}, []string{"bigint", "text", "bytea", "bytea"}}
)

// Batches of the pairs Finish buffers, and of the INSERTs that stand in
// for COPY: small enough for one protocol message, large enough that
// round trips do not dominate.
const (
	batchRows  = 4096
	batchBytes = 8 << 20
)

// writeRows writes rows into t within tx.
func (s *Store) writeRows(ctx context.Context, tx pgx.Tx, t table, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if err := s.probe(ctx, tx); err != nil {
		return err
	}
	if !s.opts.NoCopy {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(rows))
		if err != nil {
			return fmt.Errorf("copy into %s: %w", t.name, err)
		}
		return nil
	}
	start, size := 0, 0
	for i, r := range rows {
		size += rowSize(r)
		if i+1 == len(rows) || i+1-start >= batchRows || size >= batchBytes {
			if err := insertUnnest(ctx, tx, t, rows[start:i+1]); err != nil {
				return err
			}
			start, size = i+1, 0
		}
	}
	return nil
}

func rowSize(r []any) int {
	n := 0
	for _, v := range r {
		switch v := v.(type) {
		case []byte:
			n += len(v)
		case string:
			n += len(v)
		default:
			n += 8
		}
	}
	return n
}

// insertUnnest inserts rows with one statement: a column array each.
func insertUnnest(ctx context.Context, tx pgx.Tx, t table, rows [][]any) error {
	args := make([]any, len(t.cols))
	casts := make([]string, len(t.cols))
	for c, typ := range t.types {
		casts[c] = fmt.Sprintf("$%d::%s[]", c+1, typ)
		switch typ {
		case "bigint":
			col := make([]int64, len(rows))
			for i, r := range rows {
				col[i] = r[c].(int64)
			}
			args[c] = col
		case "int":
			col := make([]int32, len(rows))
			for i, r := range rows {
				col[i] = r[c].(int32)
			}
			args[c] = col
		case "text":
			col := make([]string, len(rows))
			for i, r := range rows {
				col[i] = r[c].(string)
			}
			args[c] = col
		case "bytea":
			col := make([][]byte, len(rows))
			for i, r := range rows {
				col[i] = r[c].([]byte)
			}
			args[c] = col
		}
	}
	sql := fmt.Sprintf("INSERT INTO %s (%s) SELECT * FROM unnest(%s)", t.name, strings.Join(t.cols, ", "), strings.Join(casts, ", "))
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("insert into %s: %w", t.name, err)
	}
	return nil
}

// watchdog bounds a long piece of work by progress rather than in
// whole: ctx is cancelled (with a cause wrapping DeadlineExceeded) when
// Timeout passes without a kick. A ctx with a deadline of its own is left
// alone.
func (s *Store) watchdog(ctx context.Context) (context.Context, func(), func()) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stalled := fmt.Errorf("no progress for %s: %w", s.opts.Timeout, context.DeadlineExceeded)
	timer := time.AfterFunc(s.opts.Timeout, func() { cancel(stalled) })
	return ctx, func() { timer.Reset(s.opts.Timeout) }, func() { timer.Stop(); cancel(nil) }
}
