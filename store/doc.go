// Package store keeps dossier's index in one bbolt file per workspace,
// <root>/.dossier/index.db. It is the only package that imports bbolt.
//
// Processes hold the file only for the length of one operation: a writer
// opens it for a batch of files and closes it again, and readers open it
// read-only per query. The long-lived "one indexer per workspace" rule is a
// separate lock file (see AcquireWriter), so a `dossier search` in another
// shell gets through between an indexer's batches instead of waiting for the
// whole run.
//
// # Storage and concurrency
//
// One bbolt file per workspace, `.dossier/index.db`, with a schema version. An index written
// by a newer dossier is refused ("upgrade dossier or delete …"); an older one is rebuilt by
// the next writer, which says so. Records are stored per file so that writes are sequential:
// `files` (path → record), `chunks` (path → the file's chunks, JSON compressed with S2),
// `blobs` (path → the file's text, in 16 KB blocks compressed with S2 each on its own, so a
// result's line decodes only its chunk's blocks), `pathids` (path hash → path, to find a chunk's file
// from its id), `symbols` (lower-cased name ⟂ path ⟂
// chunk id, with the chunk's position in its file), `imports`, `testlinks`; for search, per
// file `search` (each chunk's weighted terms and the metadata a result shows: id, kind,
// lines, bytes, symbol, first line) and `vectors` (each chunk's vector as an int8 entry plus
// a residual byte per component, with the model name), and per workspace a snapshot in one
// of two slots, `postings.a`/`snapshot.a` or `postings.b`/`snapshot.b`, named by `meta`:
// postings (term → document frequency and delta-coded (document, tf, document length)
// triples, so scoring never reads the document table), snapshot (document table with a
// CRC-32C per 256 entries; chunk metadata as one table of per-document offsets and entries,
// each entry ending in a CRC-32C over its document's number and its bytes, read by copy one
// entry at a time; NUL-separated path table with each file's first document and mtime; and
// a vector table: every document's scale and int8
// components in document order, by column in blocks of 8192 documents (the block's scales,
// then each component's column), with a CRC-32C per piece, then every document's residuals
// by row, each row ending in a CRC-32C over its document's number and its bytes, and which
// files it holds; and every distinct lower-cased symbol name, NUL-terminated, in order, for
// fuzzy name matching), and `dirty` (files written, touched or deleted since the
// snapshot was built);
// `embcache` (model ⟂ dimensions ⟂ sha256 of the embedded text → vector) for remote
// embedders. The `meta` bucket holds the schema version, the last run's summary, the model
// of the index's vectors, the last walk's tree (directories with their mtimes, files with
// their sizes, mtimes and states, valid for the generation it names), and a generation
// counter that every committed write bumps, so a
// long-lived reader knows whether anything it derived is still current. Chunk lists, texts,
// search and vector records, snapshot values and posting lists end in a CRC-32C that every
// read checks, so a damaged page is an error (see `dossier doctor`), never a silently
// different ranking. Before bbolt maps the file, its two meta pages and its size are checked,
// so a file cut short is an error rather than a SIGBUS.
//
// Results are a function of the tree, not of its history: a query scores files changed since
// the snapshot from their own records, with the corpus statistics (documents, average length,
// each term's document frequency) corrected for them exactly, so an index kept current by
// incremental runs or the watcher ranks bit for bit as a fresh index of the same tree (a test
// compares every score).
//
// bbolt allows one writer per file and blocks readers while it is open for writing. dossier
// therefore separates the two concerns:
//
//   - *One indexer per workspace* is a lock file, `.dossier/index.lock`, held for the whole run
//     (or watch, or the workbench's life). A second `dossier index` waits up to 2 s and fails with "index in use by
//     another dossier process".
//   - *The index file* is held only per operation: an indexer opens it for one batch (about
//     8 MiB of source or 1000 files), commits, and closes it; readers open it read-only per
//     query. So `dossier stats` and `dossier search` in a second shell work while a
//     watcher (`index --watch`, `dossier mcp`, the workbench) writes; a reader that arrives during a commit
//     waits for it (up to 60 s, saying `waiting for the indexer to finish writing (pid N)...`
//     after a second; Ctrl-C ends the wait) and never fails because a writer is committing.
//   - No transaction is long: the snapshot is built from a read-only open, written into the
//     inactive slot in transactions of at most 16 MB or 50,000 terms, and switched to in one
//     small transaction that also clears the dirty set; readers meanwhile use the old snapshot
//     and the changed files' records. A turnstile, `.dossier/index.turn`, lets a waiting reader
//     in between two of a writer's transactions.
//   - A search never holds the index while it waits on a remote embeddings endpoint: the query
//     is embedded with the index closed, within `[embed] timeout` and `max_retries`, and hybrid
//     search answers from text and symbols (with a note on stderr) when the endpoint fails.
//   - Each batch is one transaction, so a file is in the index whole or not at all; an
//     interrupted run (Ctrl-C, `kill -9`) leaves the last committed state, and the next run,
//     finding those files unchanged, completes the rest.
//
// # Nothing lost, nothing hangs
//
//   - SIGINT, SIGTERM and SIGHUP (unless started under nohup) end every command within a
//     second: the command's context is cancelled, and one blocked where a context cannot reach
//     is ended anyway (a second signal ends it at once), with `dossier: stopped by SIGTERM;
//     everything written so far is kept` and exit code 128 + the signal. Nothing is lost that
//     way: the index commits atomically and every file dossier writes is renamed into place whole.
//   - dossier reads only regular files and never waits on one: sources (also one swapped for a
//     FIFO after the walk saw it), ignore files, git's own files, config, flow parts and
//     `from-output FILE` are opened without blocking and their type checked on the open handle.
//   - A file touched without a change of content (`touch`, `git stash && git stash pop`, a
//     branch switch and back) keeps its whole record; only its size and time change.
//   - `make crash` (or `DOSSIER_CRASH=N go test -run TestCrash ./cmd/dossier-full`) kills full and
//     incremental index runs, the watcher and flow commands at random points, by SIGKILL or
//     SIGTERM, N times (50 by default), and checks after each kill: bbolt's consistency check,
//     the flow reads and its flow.json parses, no part was lost, the next `dossier index`
//     completes, and every tenth round that the index answers exactly as a fresh index of a
//     copy of the tree. `DOSSIER_CRASH_SEED` repeats a run.
package store
