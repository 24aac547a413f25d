package index

import (
	"fmt"

	"github.com/dossierhq/dossier/store"
)

// Stats returns the summary recorded by the last completed run.
func Stats(root string) (Summary, error) {
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return Summary{}, err
	}
	defer db.Close()
	var sum Summary
	err = db.View(func(tx *store.Tx) error {
		ok, err := tx.Summary(&sum)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: no completed run recorded in %s; run `dossier index`", store.ErrNoIndex, db.FilePath())
		}
		return nil
	})
	return sum, err
}
