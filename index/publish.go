package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// Recipe names everything that shapes what the index holds of a file: the
// store's layout (which changes with every record format), the secret
// rules (which decide what is masked) and the vector model. Two clones
// with one recipe derive the same records from the same file; a shared
// store keeps one copy.
func Recipe(m store.VectorModel) string { return store.ModelRecipe(secrets.Ruleset(), m) }

// PublishReport is what Publish did.
type PublishReport struct {
	Key store.SnapshotKey
	// Done: the store held the snapshot already; nothing was sent.
	Done bool
	// Files in the snapshot, of which Sent the store lacked.
	Files, Sent int
	Bytes       int64 // of the records sent
}

// publishBatch bounds one PutRecords call: its files and bytes.
const (
	publishBatchFiles = 256
	publishBatchBytes = 16 << 20
)

// Publish uploads the local index of root as the snapshot key to p: the
// records of the files the store lacks, then the snapshot (its files and
// search tables) in one step. The local index must be complete and match
// key's commit (the caller checks the working tree). Secrets are masked
// before anything leaves: the stored text holds the same number of bytes
// with each secret's characters replaced (see maskSecrets), which every
// exit then redacts as it redacts the local text.
func Publish(ctx context.Context, root string, p store.Publisher, key store.SnapshotKey, progress func(sent, total int)) (PublishReport, error) {
	rep := PublishReport{Key: key}
	db, err := store.OpenLocal(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return rep, err
	}
	defer db.Close()
	return rep, db.View(func(tx *store.Tx) error {
		if tx.Unfinished() {
			return fmt.Errorf("the local index of %s is unfinished: run `dossier index` to complete it first", root)
		}
		if n := tx.DirtyCount(); n > 0 {
			// The store's readers find a file through the snapshot's
			// search tables only (see Indexer.CompleteSearch).
			return fmt.Errorf("the search tables of the local index of %s lack %d files changed since they were built: run `dossier index --store` (it rebuilds them) to publish", root, n)
		}
		m, _, err := tx.VectorModel()
		if err != nil {
			return err
		}
		u, done, err := p.Begin(ctx, key, m.Key())
		if err != nil {
			return err
		}
		defer u.Close()
		if rep.Done = done; done {
			return nil
		}
		var files []store.File
		var keys []store.RecordKey
		if err := tx.Files(func(f store.File) error {
			if f.Secrets > 0 {
				h, err := maskedHash(tx, f)
				if err != nil {
					return fmt.Errorf("publish %s: %w", f.Path, err)
				}
				f.Hash = h
			}
			files = append(files, f)
			keys = append(keys, store.RecordKey{Path: f.Path, Hash: f.Hash})
			return nil
		}); err != nil {
			return err
		}
		rep.Files = len(files)
		missing, err := u.Missing(ctx, keys)
		if err != nil {
			return err
		}
		need := map[store.RecordKey]bool{}
		for _, k := range missing {
			need[k] = true
		}
		var batch []store.FileRows
		size := 0
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if err := u.PutRecords(ctx, batch); err != nil {
				return err
			}
			rep.Sent += len(batch)
			rep.Bytes += int64(size)
			batch, size = batch[:0], 0
			if progress != nil {
				progress(rep.Sent, len(missing))
			}
			return nil
		}
		for _, f := range files {
			if !need[store.RecordKey{Path: f.Path, Hash: f.Hash}] {
				continue
			}
			rows, err := exportFile(tx, f)
			if err != nil {
				return fmt.Errorf("publish %s: %w", f.Path, err)
			}
			batch = append(batch, rows)
			for _, v := range rows.Values {
				size += len(v)
			}
			if len(batch) >= publishBatchFiles || size >= publishBatchBytes {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		moments, err := vectorMoments(tx, m, files)
		if err != nil {
			return err
		}
		return u.Finish(ctx, keys, func(put func(store.KV) error) error {
			if moments != nil {
				if err := put(store.KV{Bucket: store.BucketMeta, Key: store.MetaVectorNull, Value: moments}); err != nil {
					return err
				}
			}
			return tx.ExportSnapshot(func(kv store.KV) error {
				if kv.Bucket == store.BucketSnapshot && search.Unshared(kv.Key) {
					return nil
				}
				return put(kv)
			})
		})
	})
}

// exportFile is f's records as a shared store keeps them: secrets masked,
// and each chunk's vector for the server's vector index.
func exportFile(tx *store.Tx, f store.File) (store.FileRows, error) {
	rows, err := tx.ExportFile(f)
	if err != nil {
		return rows, err
	}
	chunks, err := tx.FileChunks(f.Path)
	if err != nil {
		return rows, err
	}
	if strings.HasPrefix(f.Path, store.DirName+"/flows/") {
		// A flow's turns (run summaries) are the user's own.
		return rows, fmt.Errorf("the local index holds %s, a flow's answer: index with run summaries off (`dossier index --store` does) before publishing", f.Path)
	}
	text, _ := tx.Blob(f.Path)
	// Scanned again whatever the index recorded: an index built with
	// older rules would hold a secret the recipe's rules find.
	if found := secrets.Scan(f.Path, string(text)); len(found) > 0 && f.Secrets == 0 && !anySecrets(chunks) {
		return rows, fmt.Errorf("%s holds a secret the local index did not record (it was built with other secret rules): remove .dossier/index.db and run `dossier index --store` again", f.Path)
	}
	finders := redactFinders(chunks)
	stored := text
	if f.Secrets > 0 || anySecrets(chunks) || finders {
		stored = maskSecrets(f.Path, text, chunks)
		// The hashes of a text that holds a secret, the file's and its
		// chunks', are the masked text's: the rest of the text is known,
		// so a raw hash would let a short secret be guessed offline.
		for i := range chunks {
			if c := &chunks[i]; len(c.Secrets) > 0 && c.StartByte >= 0 && c.StartByte <= c.EndByte && c.EndByte <= len(stored) {
				c.Hash = maskedSum(stored[c.StartByte:c.EndByte])
			}
		}
		if err := store.MaskRows(&rows, stored, chunks); err != nil {
			return rows, err
		}
		if f.Secrets > 0 {
			if err := store.MaskFileHash(&rows, f.Hash); err != nil {
				return rows, err
			}
		}
		redact := func(s string) string { r, _ := secrets.RedactString("", s); return r }
		if err := store.MaskSymbols(&rows, redact); err != nil {
			return rows, err
		}
	}
	rows.Grams = store.GramBits(stored)
	if rec := tx.VectorRecord(f.Path); rec != nil {
		vs, err := search.DecodeVectors(rec)
		if err == nil && vs.Len() == len(chunks) {
			for i, c := range chunks {
				rows.Vectors = append(rows.Vectors, store.ChunkVector{ChunkID: c.ID, Ord: i, Hash: c.Hash,
					Vector: vecindex.Decode(vs.Entry(i), vs.Resid(i))})
			}
		}
	}
	return rows, nil
}

func anySecrets(chunks []store.Chunk) bool {
	for _, c := range chunks {
		if len(c.Secrets) > 0 {
			return true
		}
	}
	return false
}

// maskSecrets returns text with every secret the scanner finds in it
// masked, and masks chunks' own texts (outlines, finder headers, symbols
// and signatures) in place. A mask keeps the length and the newlines, so
// every offset and line number stays true.
func maskSecrets(path string, text []byte, chunks []store.Chunk) []byte {
	out := []byte(string(text))
	secrets.MaskStored(out, secrets.Scan(path, string(text)))
	for _, c := range chunks {
		if c.Outline == "" {
			// A finding the index made (with the rules of its day).
			secrets.MaskStored(out, c.Secrets)
		}
	}
	for i := range chunks {
		c := &chunks[i]
		if c.Outline != "" && len(c.Secrets) > 0 {
			o := []byte(c.Outline)
			secrets.MaskStored(o, c.Secrets)
			c.Outline = string(o)
		}
		c.Finder, _ = secrets.RedactString("", c.Finder)
		c.Symbol, _ = secrets.RedactString("", c.Symbol)
		c.Signature, _ = secrets.RedactString("", c.Signature)
	}
	return out
}

// maskedHash is the content hash f is published under when it holds
// secrets: that of its masked text (see exportFile), which every clone
// computes alike.
func maskedHash(tx *store.Tx, f store.File) (string, error) {
	chunks, err := tx.FileChunks(f.Path)
	if err != nil {
		return "", err
	}
	text, _ := tx.Blob(f.Path)
	return maskedSum(maskSecrets(f.Path, text, chunks)), nil
}

// maskedSum is the hash of a masked text: marked, so it never passes for
// the hash of a raw one.
func maskedSum(b []byte) string {
	h := sha256.Sum256(b)
	return "masked-" + hex.EncodeToString(h[:])
}

// vectorMoments are the moments of the index's vectors (see
// search.VectorMoments), nil for an index without vectors.
func vectorMoments(tx *store.Tx, m store.VectorModel, files []store.File) ([]byte, error) {
	total := 0
	for _, f := range files {
		total += len(f.Chunks)
	}
	if m.Dims == 0 || total == 0 {
		return nil, nil
	}
	mo := search.NewVectorMoments(m.Dims, total)
	err := tx.VectorRecords(func(path string, rec []byte) error {
		vs, err := search.DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", path, err)
		}
		if vs.Dims != m.Dims {
			return nil
		}
		for i := range vs.Len() {
			mo.Add(vs.Entry(i))
		}
		return nil
	})
	return mo.Encode(), err
}

// redactFinders redacts the secrets of the chunks' finder headers in
// place (a section's finder quotes the section before it, whose secrets
// are not the chunk's); true when one held any.
func redactFinders(chunks []store.Chunk) bool {
	changed := false
	for i := range chunks {
		if r, found := secrets.RedactString("", chunks[i].Finder); len(found) > 0 {
			chunks[i].Finder, changed = r, true
		}
	}
	return changed
}
