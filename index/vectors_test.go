package index

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestStalledEndpointBoundsIndexing: an endpoint that accepts requests and
// never answers (or answers headers and stalls the body) fails a run after
// the settings' attempts, each cut at the timeout, with an error that says
// so; the index keeps what it held. Cancelling a run that waits on it ends
// the wait with the context's error.
func TestStalledEndpointBoundsIndexing(t *testing.T) {
	srv := embedtest.NewServer(t)
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	root := t.TempDir()
	for _, f := range []string{"a", "b", "c"} {
		p := filepath.Join(root, f+".go")
		if err := os.WriteFile(p, []byte("package x\n\n// Do"+f+" does "+f+".\nfunc Do"+f+"() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := config.Embed{Provider: "openai", BaseURL: srv.BaseURL(), Model: embedtest.Model, APIKeyEnv: "TEST_EMBED_KEY",
		Timeout: "300ms", MaxRetries: 1}
	run := func(ctx context.Context, c config.Embed) <-chan error {
		m, e, err := NewEmbedder(c, "")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			ix, err := Open(Options{Root: root, Model: m, Embedder: e})
			if err != nil {
				done <- err
				return
			}
			defer ix.Close()
			_, err = ix.Run(ctx)
			done <- err
		}()
		return done
	}
	await := func(done <-chan error) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("the run did not return in 30s")
			return nil
		}
	}
	snapshot := func() string {
		t.Helper()
		db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var b strings.Builder
		err = db.View(func(tx *store.Tx) error {
			m, _, err := tx.VectorModel()
			fmt.Fprintf(&b, "%v\n", m)
			if err != nil {
				return err
			}
			return tx.VectorRecords(func(p string, rec []byte) error {
				fmt.Fprintf(&b, "%s %x\n", p, sha256.Sum256(rec))
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	srv.Set(embedtest.OK)
	if err := await(run(context.Background(), c)); err != nil {
		t.Fatal(err)
	}
	// A changed file's chunks wait on the endpoint.
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package x\n\n// Dob does it again.\nfunc Dob() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot()
	for _, mode := range []string{embedtest.Stall, embedtest.StallBody} {
		srv.Set(mode)
		err := await(run(context.Background(), c))
		if err == nil || !strings.Contains(err.Error(), "timed out after 2 attempts (300ms each)") || strings.Contains(err.Error(), embedtest.Key) {
			t.Errorf("%s endpoint: %v, want timed out after 2 attempts", mode, err)
		}
		if reqs, _ := srv.Counts(); reqs != 2 {
			t.Errorf("%s endpoint: %d requests, want 2 (max_retries 1)", mode, reqs)
		}
		if after := snapshot(); after != before {
			t.Errorf("%s endpoint changed the index:\nbefore %s\nafter  %s", mode, before, after)
		}
	}
	// A long timeout: the run waits until it is cancelled.
	srv.Set(embedtest.Stall)
	long := c
	long.Timeout = "10m"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := run(ctx, long)
	select {
	case <-srv.Arrived():
	case err := <-done:
		t.Fatalf("the run returned before the endpoint answered: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the run never reached the endpoint")
	}
	cancel()
	if err := await(done); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
	if after := snapshot(); after != before {
		t.Errorf("a cancelled run changed the index:\nbefore %s\nafter  %s", before, after)
	}
}
