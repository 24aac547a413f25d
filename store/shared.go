package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// A shared store is an index kept on a server (a team's Postgres), so that
// one run of `dossier index --store URL` serves every clone of the
// repository. The engine reads it through the same buckets as the local
// file: a Remote answers the bucket reads of one snapshot (repository,
// commit, recipe), and a workspace linked to a snapshot reads the remote
// for everything, except the files changed since that commit, which come
// from the local index.db (the overlay; see layered.go). Nothing above
// store/ knows which store it reads.
//
// Shared buckets come in two kinds. Per file (files, filestat, chunks,
// blobs, search, vectors, imports, framework, symnames, and the symbols of
// a file, whose keys hold its path) the values are stored once per (path,
// content hash, recipe) and shared by every snapshot holding that file.
// Per snapshot (meta, the active search snapshot and its postings,
// testlinks, pathids) the values belong to one snapshot.

// Remote is one snapshot of a shared store, open for reading. Buckets
// are named as in the local file (BucketFiles ...); keys and values are
// the local file's, byte for byte, except that blobs hold the redacted
// text (see MaskBlob). A Remote is used by one goroutine at a time.
type Remote interface {
	// Get returns the value of key in bucket, nil when absent.
	Get(ctx context.Context, bucket string, key []byte) ([]byte, error)
	// Scan calls fn with the pairs of bucket whose keys are at least from
	// (all when from is nil), in byte order of the keys, until fn returns
	// false. want, when positive, is how many pairs the caller expects to
	// take, for the size of a first round trip (an exact-name lookup
	// takes a few; a walk of the bucket all).
	Scan(ctx context.Context, bucket string, from []byte, want int, fn func(k, v []byte) bool) error
	// Size returns the length of key's value in bucket, -1 when absent.
	Size(ctx context.Context, bucket string, key []byte) (int, error)
	// GetRange returns n bytes of key's value in bucket from offset off
	// on (fewer at its end): the search tables are tens of megabytes, of
	// which a query reads a few places.
	GetRange(ctx context.Context, bucket string, key []byte, off, n int) ([]byte, error)
	// Count returns how many keys bucket holds.
	Count(ctx context.Context, bucket string) (int, error)
	// Fetch answers several reads at once, in one round trip of a
	// server: a query knows the postings, metadata entries and texts it
	// will read before it reads them, and a round trip each was most of
	// a one-shot search's time. vals[i] answers reads[i] as Get or
	// GetRange would.
	Fetch(ctx context.Context, reads []Read) (vals [][]byte, err error)
	// Grep returns the paths of the snapshot's files whose trigram filter
	// holds, for every clause, all the trigram hashes of one of its
	// literals (see GramHashes, BitsHold), in byte order; ok is false
	// when a file of the snapshot has no filter (the caller then reads
	// every text).
	Grep(ctx context.Context, clauses [][][]int64) (paths []string, ok bool, err error)
	// Generation identifies the snapshot's content: it changes when the
	// link moves to another snapshot.
	Generation() uint64
	// Nearest returns the k chunks of the snapshot whose vectors of model
	// are nearest q, best first, by inner product with their stored
	// vectors (unit length, as ChunkVector holds them), keeping only chunks
	// whose path starts with pathPrefix. ok is false when the server cannot
	// answer vector queries (no pgvector): the caller leaves vectors out
	// and says so.
	Nearest(ctx context.Context, model string, q []float32, k int, pathPrefix string) (hits []VectorHit, ok bool, err error)
	// Describe names the server, repository and commit for messages,
	// without a password.
	Describe() string
	Close() error
}

// Read is one read of Remote.Fetch: key's whole value in Bucket when N
// and Scan are zero, else N bytes of it from Off on; or, when Scan is
// positive, up to Scan pairs of Bucket from Key on, as Scan gives them,
// encoded by EncodePairs.
type Read struct {
	Bucket string
	Key    []byte
	Off, N int
	Scan   int
}

// VectorHit is one answer of Remote.Nearest.
type VectorHit struct {
	Path    string
	ChunkID string
	Ord     int     // the chunk's place in its file (ChunkVector.Ord)
	Score   float64 // inner product of the query and the stored vector
}

// Bucket names of the shared layout: those of the local file.
const (
	BucketMeta       = "meta"
	BucketFiles      = "files"
	BucketFileStat   = "filestat"
	BucketChunks     = "chunks"
	BucketPathIDs    = "pathids"
	BucketBlobs      = "blobs"
	BucketSymbols    = "symbols"
	BucketSymNames   = "symnames"
	BucketImports    = "imports"
	BucketTestLinks  = "testlinks"
	BucketSearch     = "search"
	BucketVectors    = "vectors"
	BucketPostings   = "postings.a"
	BucketSnapshot   = "snapshot.a"
	BucketFramework  = "framework"
	BucketDirty      = "dirty"
	BucketEmbedCache = "embcache"
)

// FileBuckets are the per-file buckets, keyed by path: a shared store
// keeps their values once per (path, content hash, recipe).
var FileBuckets = []string{BucketFiles, BucketFileStat, BucketChunks, BucketBlobs, BucketSearch,
	BucketVectors, BucketImports, BucketFramework, BucketSymNames}

// SnapshotBuckets are the per-snapshot buckets a shared snapshot holds.
// The local file's active slot (a or b) is always published as slot a.
var SnapshotBuckets = []string{BucketMeta, BucketSnapshot, BucketPostings, BucketTestLinks, BucketPathIDs}

// RecordKey names one file's records in a shared store.
type RecordKey struct {
	Path string
	Hash string // File.Hash: sha256 of the raw contents, hex
}

// FileRows are one file's values, as Publish hands them to a shared store.
type FileRows struct {
	RecordKey
	// Values by bucket (FileBuckets); absent buckets are left out.
	Values map[string][]byte
	// Symbols are the file's pairs of the symbols bucket.
	Symbols []KV
	// Vectors are the chunks' vectors, for a server's vector index.
	Vectors []ChunkVector
	// Grams is the Bloom filter of the trigrams of the file's text as
	// stored (GramBits), for a server's regular expression prefilter (see
	// grams.go).
	Grams []byte
}

// KV is one pair of a bucket.
type KV struct {
	Bucket     string
	Key, Value []byte
}

// ChunkVector is one chunk's vector in the model of the snapshot.
type ChunkVector struct {
	ChunkID string
	Ord     int    // the chunk's place in its file's chunk list
	Hash    string // Chunk.Hash
	Vector  []float32
}

// SnapshotKey names a snapshot: one repository at one commit, indexed by
// one recipe (the versions of everything that shapes the records).
type SnapshotKey struct {
	Repo   string
	Commit string
	Recipe string
}

func (k SnapshotKey) String() string {
	c := k.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return k.Repo + "@" + c
}

// Publisher writes snapshots into a shared store.
type Publisher interface {
	// Begin starts or resumes the upload of snapshot key, holding the
	// store's writer lock for it until the Upload is closed (a second
	// writer of the same key waits, then finds it done). done reports
	// that the store already holds the complete snapshot; model is the
	// embedding model of its vectors ("name/dims").
	Begin(ctx context.Context, key SnapshotKey, model string) (u Upload, done bool, err error)
	Describe() string
	Close() error
}

// Upload is one snapshot being written. Nothing of it is visible to
// readers until Finish returns; rows PutRecords stored stay, so an upload
// interrupted before Finish resumes where it stopped.
type Upload interface {
	// Missing returns the keys whose records the store lacks.
	Missing(ctx context.Context, keys []RecordKey) ([]RecordKey, error)
	// PutRecords stores files' records, committed when it returns.
	PutRecords(ctx context.Context, rows []FileRows) error
	// Finish records the snapshot's files and its per-snapshot pairs and
	// makes it visible, in one transaction.
	Finish(ctx context.Context, files []RecordKey, pairs func(put func(KV) error) error) error
	// Close releases the writer lock.
	Close() error
}

// Link is what ties a workspace to a snapshot of a shared store: written
// by `dossier index --store` to .dossier/shared.json. URL never holds a
// password.
type Link struct {
	URL         string `json:"url"`
	PasswordEnv string `json:"password_env,omitempty"`
	SnapshotKey
	Snapshot int64 `json:"snapshot"`
	// Overlay lists the paths the local index holds instead of the
	// snapshot's (changed, added or deleted since Commit).
	Overlay []string `json:"overlay,omitempty"`
}

// LinkPath is the link file of a workspace root.
func LinkPath(root string) string { return filepath.Join(Dir(root), "shared.json") }

// ReadLink returns the workspace's link, ok false when it has none.
func ReadLink(root string) (Link, bool, error) {
	raw, err := os.ReadFile(LinkPath(root))
	if errors.Is(err, os.ErrNotExist) {
		return Link{}, false, nil
	}
	if err != nil {
		return Link{}, false, fmt.Errorf("read %s: %w", LinkPath(root), err)
	}
	var l Link
	if err := json.Unmarshal(raw, &l); err != nil {
		return Link{}, false, fmt.Errorf("read %s: %v (remove it and run `dossier index --store URL` again)", LinkPath(root), err)
	}
	sort.Strings(l.Overlay)
	return l, true, nil
}

// WriteLink records l as the workspace's link, replacing the file whole.
func WriteLink(root string, l Link) error {
	raw, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(Dir(root), 0o700); err != nil {
		return err
	}
	tmp := LinkPath(root) + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, LinkPath(root))
}

// RemoveLink unlinks the workspace from its shared store: it reads its
// local index again.
func RemoveLink(root string) error {
	err := os.Remove(LinkPath(root))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// RemoteOpener opens the snapshot a link names.
type RemoteOpener func(ctx context.Context, l Link) (Remote, error)

var (
	openersMu sync.Mutex
	openers   = map[string]RemoteOpener{}
)

// RegisterRemote makes scheme ("postgres") openable by links; a shared
// store's package registers itself when imported (as database/sql
// drivers do), so store/ does not import it.
func RegisterRemote(scheme string, open RemoteOpener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[scheme] = open
}

// OpenRemote opens the snapshot l names.
func OpenRemote(ctx context.Context, l Link) (Remote, error) {
	scheme, _, _ := strings.Cut(l.URL, "://")
	if scheme == "postgresql" {
		scheme = "postgres"
	}
	openersMu.Lock()
	open := openers[scheme]
	openersMu.Unlock()
	if open == nil {
		return nil, fmt.Errorf("shared store %s: this dossier cannot read %q stores (only postgres://)", l.URL, scheme)
	}
	return open(ctx, l)
}

// Recipe is the recipe of this dossier's records, whose secrets are
// masked by the rules ruleset names (index/secrets.Ruleset): the layout
// version and the rules, the two things that change what a file's records
// hold (see SnapshotKey).
func Recipe(ruleset string) string { return fmt.Sprintf("s%d-%s", SchemaVersion, ruleset) }

// ModelRecipe is the recipe of an index with secret rules ruleset and
// vector model m: Recipe, and the model.
func ModelRecipe(ruleset string, m VectorModel) string { return Recipe(ruleset) + "+" + m.Key() }
