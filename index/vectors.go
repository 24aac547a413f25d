package index

import (
	"context"
	"crypto/sha256"
	"fmt"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/embed/remote"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// BuiltinModel describes the builtin embedder's vectors.
var BuiltinModel = search.BuiltinModel

// NewEmbedder returns the embedder the settings choose: the builtin one
// (a nil Embedder: its vectors are computed with each file) or a remote
// one. provider, when not empty, overrides c.Provider (the --embedder flag).
func NewEmbedder(c config.Embed, provider string) (store.VectorModel, embed.Embedder, error) {
	if provider != "" {
		c.Provider = provider
	}
	if err := c.Check(); err != nil {
		return store.VectorModel{}, nil, err
	}
	m := search.ModelOf(c)
	if c.Provider == "" || c.Provider == config.ProviderBuiltin {
		return m, nil, nil
	}
	e, err := remote.NewOpenAI(search.OpenAIConfig(m, c))
	if err != nil {
		return store.VectorModel{}, nil, fmt.Errorf("embedder: %w", err)
	}
	return m, e, nil
}

// maxEmbedText bounds what a remote embedder is sent of one chunk; chunks
// stay far below it (1200 tokens), it only guards against a pathological one.
const maxEmbedText = 32 << 10

// embedItem is one chunk's text for a remote embedder, and its hash.
type embedItem struct {
	hash [32]byte
	text string
}

// newEmbedItem is what a remote embedder sees of a chunk: its finder
// snippet (seed 001), header and text.
func newEmbedItem(c *store.Chunk, artifact string) embedItem {
	finder := c.Finder
	// What goes to a remote embedder never carries a secret: the
	// chunk's, and the finder's own (a section's finder quotes the
	// section before it).
	if len(c.Secrets) > 0 {
		artifact = secrets.Redact(artifact, secrets.OfChunk(c))
	}
	finder, _ = secrets.RedactString("", finder)
	t := finder + "\n" + artifact
	if len(t) > maxEmbedText {
		cut := maxEmbedText
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut]
	}
	return embedItem{hash: sha256.Sum256([]byte(t)), text: t}
}

// embedAll returns the stored form of every item's vector: from the cache
// where it has the text, from the remote embedder otherwise. New vectors are
// written to the cache before it returns, so a later failure (or a retry)
// never pays for them twice. The index file is not held during the calls
// to the endpoint.
func (ix *Indexer) embedAll(ctx context.Context, items []embedItem) (map[[32]byte][]byte, error) {
	model, dims := ix.model.Model, ix.model.Dims
	have := make(map[[32]byte][]byte, len(items))
	db, err := ix.openDB()
	if err != nil {
		return nil, err
	}
	err = db.View(func(tx *store.Tx) error {
		for _, it := range items {
			if v := tx.Embedding(model, dims, it.hash[:]); v != nil {
				have[it.hash] = append([]byte(nil), v...)
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	var missing []embedItem
	queued := map[[32]byte]bool{}
	for _, it := range items {
		if have[it.hash] == nil && !queued[it.hash] {
			queued[it.hash] = true
			missing = append(missing, it)
		}
	}
	// In groups, each cached as soon as it is embedded.
	for len(missing) > 0 {
		group := missing[:min(len(missing), embedGroup)]
		missing = missing[len(group):]
		texts := make([]string, len(group))
		for i, it := range group {
			texts[i] = it.text
		}
		vecs, err := ix.remote.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(group) {
			return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(group))
		}
		fresh := make(map[[32]byte][]byte, len(group))
		for i, v := range vecs {
			if len(v) != dims {
				return nil, fmt.Errorf("embedder returned a %d-dimensional vector, the index holds %d", len(v), dims)
			}
			entry, resid := vecindex.Encode(nil, nil, v)
			fresh[group[i].hash] = append(entry, resid...)
		}
		if err := ix.cacheEmbeddings(fresh); err != nil {
			return nil, err
		}
		for h, v := range fresh {
			have[h] = v
		}
	}
	return have, nil
}

// embedGroup is how many texts go to the embedder between cache writes.
const embedGroup = 1000

func (ix *Indexer) cacheEmbeddings(vs map[[32]byte][]byte) error {
	db, err := ix.openDB()
	if err != nil {
		return err
	}
	err = db.Update(func(tx *store.Tx) error {
		for h, v := range vs {
			if err := tx.PutEmbedding(ix.model.Model, ix.model.Dims, h[:], v); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// resolveVectors gives each outcome that waits for remote vectors its
// vector record.
func (ix *Indexer) resolveVectors(ctx context.Context, outs []outcome) error {
	var items []embedItem
	for _, o := range outs {
		items = append(items, o.embeds...)
	}
	if len(items) == 0 {
		return nil
	}
	have, err := ix.embedAll(ctx, items)
	if err != nil {
		return fmt.Errorf("embeddings from %s: %w", ix.model.BaseURL, err)
	}
	for _, o := range outs {
		if o.enc == nil || o.embeds == nil {
			continue
		}
		stored := make([][]byte, len(o.embeds))
		for i, it := range o.embeds {
			stored[i] = have[it.hash]
		}
		rec, err := search.EncodeStoredVectors(ix.model.Model, ix.model.Dims, stored)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", o.path, err)
		}
		o.enc.SetVectors(rec)
	}
	return nil
}

// prefill embeds every chunk of the workspace into the cache, before a
// switch to a remote model re-indexes with it: the files are processed as
// the run will process them, but nothing is written except the cache.
// Should the endpoint fail, the index still answers with its old vectors;
// once it succeeds, the run that follows finds every vector cached.
func (ix *Indexer) prefill(ctx context.Context, old map[string]store.File) error {
	sum := Summary{Skipped: map[string]int{}, Notes: map[string]int{}}
	w := &batchWriter{ix: ix, ctx: ctx, sum: &sum, skips: discover.NewSkips(false), dry: true}
	if _, err := ix.processAll(ctx, old, w); err != nil {
		return fmt.Errorf("embeddings from %s: %w", ix.model.BaseURL, err)
	}
	return nil
}
