package index

import (
	"context"
	"fmt"
	"sort"

	"github.com/dossierhq/dossier/store"
)

// Stats returns the summary recorded by the last completed run; ctx ends a
// wait for a writer early (see store.OpenContext).
func Stats(ctx context.Context, root string) (Summary, error) {
	db, err := store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true})
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

// SecretAt is one secret the index found: where, and by which rule.
type SecretAt struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Rule string `json:"rule"`
}

// Secrets lists the secrets the index found, by path and line, so they
// can be removed (search and every exit mask them).
func Secrets(ctx context.Context, root string) ([]SecretAt, error) {
	db, err := store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out []SecretAt
	err = db.View(func(tx *store.Tx) error {
		return tx.Files(func(f store.File) error {
			if f.Secrets == 0 {
				return nil
			}
			chunks, err := tx.FileChunks(f.Path)
			if err != nil {
				return err
			}
			seen := map[int]bool{}
			for _, c := range chunks {
				if c.Outline != "" {
					continue // an outline's findings repeat its span chunks'
				}
				for _, s := range c.Secrets {
					if !seen[s.Start] {
						seen[s.Start] = true
						out = append(out, SecretAt{Path: f.Path, Line: s.Line, Rule: s.Rule})
					}
				}
			}
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, err
}
