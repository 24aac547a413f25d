package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/embed/embedtest"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// TestRemoteSwitchIsAllOrNothing switches an index to a remote model while
// a changed file's text makes the endpoint fail, with one file per batch:
// the run must fail before writing anything, so every file keeps its
// builtin vectors and the index its model; once the endpoint works, the
// switch completes and every vector comes from the new model.
func TestRemoteSwitchIsAllOrNothing(t *testing.T) {
	srv := embedtest.NewServer(t)
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	root := t.TempDir()
	put := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a", "b", "c", "d"} {
		put(f+".go", "package x\n\n// Do"+f+" does "+f+".\nfunc Do"+f+"() {}\n")
	}
	run := func(opts Options) error {
		t.Helper()
		opts.Root, opts.BatchFiles = root, 1
		ix, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		_, err = ix.Run(context.Background())
		return err
	}
	if err := run(Options{}); err != nil {
		t.Fatal(err)
	}
	put("z.go", "package x\n\n// Void cancels.\nfunc Void() {}\n") // processed last
	m, e, err := NewEmbedder(config.Embed{Provider: "openai", BaseURL: srv.BaseURL(), Model: embedtest.Model, APIKeyEnv: "TEST_EMBED_KEY", MaxRetries: -1}, "")
	if err != nil {
		t.Fatal(err)
	}
	srv.Set(embedtest.OK)
	srv.FailOn("Void")
	if err := run(Options{Model: m, Embedder: e}); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("switch with a failing text: %v", err)
	}
	models := func() (store.VectorModel, map[string]int) {
		db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var model store.VectorModel
		byModel := map[string]int{}
		err = db.View(func(tx *store.Tx) error {
			model, _, err = tx.VectorModel()
			if err != nil {
				return err
			}
			return tx.VectorRecords(func(_ string, rec []byte) error {
				set, err := search.DecodeVectors(rec)
				byModel[set.Model]++
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return model, byModel
	}
	if model, byModel := models(); model.Provider != "builtin" || len(byModel) != 1 || byModel[BuiltinModel.Model] != 4 {
		t.Fatalf("after the failed switch: model %v, vector records by model %v (want 4 builtin, nothing else)", model, byModel)
	}
	srv.Set(embedtest.OK)
	if err := run(Options{Model: m, Embedder: e}); err != nil {
		t.Fatal(err)
	}
	if model, byModel := models(); model.Model != embedtest.Model || byModel[embedtest.Model] != 5 || len(byModel) != 1 {
		t.Fatalf("after the switch: model %v, vector records by model %v (want 5 of %s)", model, byModel, embedtest.Model)
	}
}
