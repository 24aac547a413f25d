package store

// SchemaVersion is the layout version of index.db. Bump it whenever a bucket,
// key layout or record encoding changes incompatibly; an older index is then
// rebuilt by the next writer and a newer one is refused.
// 11: no locations bucket (content hash -> chunk ids): nothing read it, and
// its random keys made every batch of a full index rewrite pages all over it.
// 12: blobs in blocks of 16 KB compressed each on its own (blob.go), so a
// chunk's lines decode without the rest of its file.
// 13: search records (version 5) hold no term of a secret.
// 14: chunks and symbols of definitions under Python's if/try/with, Rust
// unit structs, Java enum members and body-less methods: a file indexed
// before has other chunks, and a shared store's records are keyed by the
// layout (Recipe), so no clone reuses the older ones.
// 15: framework facts say what decided a class's role (role_by), its
// traits and further bases (mixins), relations narrowing another (of) and
// where a model's fields are: facts written before answer model: and
// route: walks by the old name-based roles; and TypeScript symbols of destructurings, overload signatures (in their
// definition's span), `declare function`s, interface and abstract methods
// and `declare global {}`'s definitions, JavaScript's functions assigned
// to properties, Ruby's classes without a body, Ruby's and Bash's
// definitions under begin/if/unless, C#'s body-less records and named
// operators, every overload of an interface method, C/C++ types declared
// in a class, C++ friend functions and brace-less `extern "C"` functions:
// a file indexed before has other chunks and symbols.
// 16: the definitions a parse used to lose (C/C++ macros between type
// and name, conversion operators, typedef'd struct tags, shell functions
// after a broken one, Go interface methods): a file indexed before has
// other chunks and symbols.
const SchemaVersion = 16

// Bucket names. Keys are described next to each bucket; "\x00" separates the
// parts of composite keys so prefix scans stay exact. The values of chunks,
// blobs, search and vectors end in a CRC-32C of the rest (checksum.go).
var (
	// meta: schema version, workspace facts and the last run summary.
	bucketMeta = []byte("meta")
	// files: relative path -> File (JSON).
	bucketFiles = []byte("files")
	// filestat: relative path -> size and modification time (int64 each,
	// little endian, Unix ns), then the content hash (File.Hash): what a
	// re-index compares the walk with, in small values read without
	// decoding the file records (schema 9).
	bucketFileStat = []byte("filestat")
	// chunks: relative path -> []Chunk of that file in source order (JSON).
	// One value per file keeps writes sequential and cheap.
	bucketChunks = []byte("chunks")
	// pathids: PathHash(path) -> the paths with that hash, "\x00"-separated.
	// A chunk id starts with its file's path hash (see PathHash).
	bucketPathIDs = []byte("pathids")
	// blobs: relative path -> the text the chunks were cut from (UTF-8);
	// a chunk's artifact is blob[StartByte:EndByte] unless it is an outline.
	bucketBlobs = []byte("blobs")
	// symbols: lower(name) \x00 path \x00 chunk id -> Symbol (JSON), and
	// for a symbol with a span of its own inside its chunk (a constant, a
	// field, a property function): lower(name) \x00 path \x00 chunk id
	// \x00 start byte (decimal) " " name, as one chunk may hold several of
	// a name (in different scopes) and one declaration several names that
	// differ only in case.
	bucketSymbols = []byte("symbols")
	// symnames: path -> the lower-cased names of the file's symbols that
	// have spans of their own, "\x00"-separated: what to delete from
	// symbols when the file goes (its chunks name the others).
	bucketSymNames = []byte("symnames")
	// imports: path -> []string of import specs as written (JSON).
	bucketImports = []byte("imports")
	// testlinks: path \x00 linked path -> role of the linked path ("test" or "subject").
	bucketTestLinks = []byte("testlinks")
	// search: relative path -> the search record of its chunks (terms and
	// counts, encoded by the search package).
	bucketSearch = []byte("search")
	// vectors: relative path -> the vector record of its chunks.
	bucketVectors = []byte("vectors")
	// postings.a, postings.b: term -> the postings list of the snapshot in
	// slot a or b, then its CRC-32C (Castagnoli, 4 bytes little endian).
	// snapshot.a, snapshot.b: the search snapshot in slot a or b: its
	// header ("meta"), document, path and chunk-metadata tables, laid out by
	// the search package, each value followed by its CRC-32C. metaSnapSlot
	// names the active slot; the other is a staging area a rebuild fills in
	// short transactions before one small one switches to it.
	bucketPostingsA = []byte("postings.a")
	bucketPostingsB = []byte("postings.b")
	bucketSnapshotA = []byte("snapshot.a")
	bucketSnapshotB = []byte("snapshot.b")
	// dirty: path -> empty, for every file written or deleted since the
	// snapshot was built.
	bucketDirty = []byte("dirty")
	// embcache: model \x00 dims (uint32) \x00 sha256 of the embedded text
	// -> its vector in the stored form (see index/vecindex), for embedders
	// that are expensive to call.
	bucketEmbCache = []byte("embcache")
	// framework: relative path -> what a framework describer read from
	// the file (JSON, index/laravel.Facts): routes, models, migrations,
	// controllers. The application graph is joined from these per query.
	bucketFramework = []byte("framework")
)

var allBuckets = [][]byte{
	bucketMeta, bucketFiles, bucketFileStat, bucketChunks, bucketPathIDs, bucketBlobs,
	bucketSymbols, bucketSymNames, bucketImports, bucketTestLinks, bucketSearch, bucketVectors,
	bucketPostingsA, bucketSnapshotA, bucketPostingsB, bucketSnapshotB,
	bucketDirty, bucketEmbCache, bucketFramework,
}

// retiredBuckets are buckets of older schemas: rebuilding an older index
// deletes them with the rest.
var retiredBuckets = [][]byte{[]byte("locations")}

// Keys inside bucketMeta.
var (
	metaSchema  = []byte("schema")
	metaSummary = []byte("summary")
	metaRepo    = []byte("repo")
	// metaGeneration counts committed write transactions (uint64, big
	// endian), so readers can tell whether the index changed since they
	// last looked.
	metaGeneration = []byte("generation")
	// metaVectors is the VectorModel of the index's vectors (JSON).
	metaVectors = []byte("vectors")
	// metaSnapSlot is the active search snapshot's slot, "a" or "b";
	// absent before the first snapshot.
	metaSnapSlot = []byte("snapslot")
	// metaWalk is what the last full walk found (index/discover.Tree,
	// encoded by that package): the directories' mtimes and the files'
	// sizes and mtimes, valid while the generation it names is the
	// index's. A re-index checks it with one stat per file and directory.
	metaWalk = []byte("walktree")
	// metaUnfinished is present while file records were written that no
	// stored summary accounts for: an index run was interrupted (or is
	// under way), and the next one completes it. Put and DeleteFile set
	// it, SetSummary removes it.
	metaUnfinished = []byte("unfinished")
)

// snapMeta is the key of the search snapshot's header inside a snapshot
// slot's bucket; the rest of that bucket's keys belong to the search
// package.
var snapMeta = []byte("meta")

const sep = "\x00"

func key(parts ...string) []byte {
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	return b
}
