package index

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// Doctor checks the index of the workspace at root (see store.Doctor) and
// what only this package knows: the search and vector records' chunk
// counts, the snapshot's header and the stored summary's totals. It
// returns the problems found (none when the index is sound) and whether
// the last run finished.
func Doctor(root string) (store.Report, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return store.Report{}, fmt.Errorf("root %q: %w", root, err)
	}
	return store.Doctor(store.Path(abs), store.DoctorChecks{
		SearchChunks: func(rec []byte) (int, error) {
			fr, err := search.DecodeRecord(rec)
			if err != nil {
				return 0, err
			}
			return len(fr.Metas), nil
		},
		VectorChunks: func(rec []byte) (int, error) {
			set, err := search.DecodeVectors(rec)
			return set.Len(), err
		},
		More: doctorMore,
	})
}

func doctorMore(tx *store.Tx, report func(check, detail string)) error {
	if tx.HasSnapshot() {
		var hdr struct {
			Version *int `json:"version"`
		}
		raw, err := tx.SnapshotValue([]byte("meta"))
		if err == nil {
			err = json.Unmarshal(raw, &hdr)
		}
		if err != nil || hdr.Version == nil {
			report("snapshot", fmt.Sprintf("the search snapshot's header is unreadable (%v)", err))
		}
		if err := tx.CheckSnapshot(); err != nil {
			report("snapshot", err.Error())
		}
	}
	var sum Summary
	ok, err := tx.Summary(&sum)
	switch {
	case err != nil:
		report("summary", fmt.Sprintf("the summary of the last run does not decode: %v", err))
		return nil
	case !ok, tx.Unfinished():
		// A run was interrupted: its batches are not in the last summary's
		// totals (nor is there one after a first run), and the next run
		// completes both (store.Report.Incomplete).
		return nil
	}
	t := summary.NewTotals()
	if err := tx.Files(func(f store.File) error { t.Apply(f, 1); return nil }); err != nil {
		return err
	}
	if !reflect.DeepEqual(normalTotals(t), normalTotals(sum.Totals)) {
		report("summary", fmt.Sprintf("the summary's totals (%d files, %d chunks) are not the sums of the file records (%d files, %d chunks)",
			sum.Files, sum.Chunks, t.Files, t.Chunks))
	}
	return nil
}

// normalTotals makes empty and missing maps equal.
func normalTotals(t Totals) Totals {
	for _, m := range []*map[string]int{&t.ChunksByKind, &t.ChunksByLanguage, &t.FilesByLanguage} {
		if len(*m) == 0 {
			*m = nil
		}
	}
	return t
}
