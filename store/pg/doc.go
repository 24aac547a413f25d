// Package pg is the shared store on PostgreSQL: one server holds the
// indexes of a team's repositories, written once (by CI, or the first
// clone) and read by every clone and agent. It implements store.Remote,
// store.Publisher and store.Upload, registers the "postgres" scheme with
// store.RegisterRemote, and is the only package that imports pgx.
//
// # Layout
//
// Values are the local index's bytes, never decoded here. They are kept
// by content, so that snapshots share almost every row:
//
//   - dossier_records: one row per (path, content hash, recipe). Its
//     per-file buckets (files, chunks, blobs, search, ...) are in
//     dossier_record_values, its symbols in dossier_symbols, its chunk ids
//     and hashes (what vectors are keyed by) in dossier_record_chunks.
//     Records never change once written.
//   - dossier_snapshots: one row per (repository, commit, recipe), in
//     state building or ready. dossier_snapshot_files maps the snapshot's
//     paths to records; dossier_snapshot_values holds its per-snapshot
//     buckets (meta, the search snapshot and postings, testlinks,
//     pathids).
//   - dossier_refs: names pointing at snapshots, which gc keeps.
//   - dossier_record_grams: a Bloom filter of the trigrams of each
//     record's (masked) text: a regular expression search asks which
//     files may hold its literals' trigrams and is sent only their texts
//     (see store/grams.go; Remote.Grep). A record stored before migration
//     0003 counts as missing until an upload sends its filter.
//
// A clone a few commits away from a stored snapshot sends only the files
// whose records the store lacks (Upload.Missing); a clone at a stored
// commit sends nothing.
//
// # Writing
//
// An upload holds one connection with a session-level advisory lock per
// snapshot key: a second writer of the same commit waits, then finds the
// snapshot ready and sends nothing. PutRecords commits each batch of
// records on its own, so an upload that is interrupted (killed,
// cancelled, its connection lost, which also drops the lock) leaves
// everything it stored, and the next one resumes where it stopped.
// Finish lists the snapshot's files and per-snapshot pairs and flips it
// to ready in one transaction; readers open only ready snapshots, so none
// sees one half built. Bulk rows go by COPY, or by INSERT ... SELECT FROM
// unnest(arrays) on PGlite, which cannot take COPY (Options.NoCopy, set
// by itself when version() names Emscripten/WASM). PGlite also serves one
// connection at a time: give it pool_max_conns=1 in the URL.
//
// # Reading
//
// A linked workspace opens its snapshot by the id its link records and
// checks it with its first read, in the same round trip. A query sends
// what it knows it will read as one pgx batch (Remote.Fetch: the
// postings of its terms; its candidates' metadata entries, all ranges of
// one value in one statement, with its results' texts; a symbol query's
// name lookups), which pgx pipelines: a one-shot search takes a
// connection and two or three round trips. Values and ranges it read are
// kept in the workspace's cache (store/remotecache.go).
//
// # Schema
//
// Migrations are the embedded files migrations/NNNN_name.sql, applied in
// order under an advisory lock, recorded in dossier_schema_migrations;
// writers apply them by themselves. A client refuses a store whose schema
// is newer than it knows (NewerSchemaError). A migration needing an
// extension the server lacks (pgvector) stays pending until it is there.
//
// # gc
//
// GC keeps what refs point at and the newest ready snapshot of each
// repository (DefaultGC), drops the other snapshots, then the records no
// snapshot holds. Records and building snapshots younger than a day are
// kept so that an interrupted upload can still resume; gc refuses to run
// while an upload does (they hold its lock shared). A workspace linked to
// a dropped snapshot is told to run `dossier index --store` again.
//
// # What a user must know
//
// The URL is libpq's (postgres://user@host:port/db?sslmode=verify-full,
// or ?host=/run/postgresql for a Unix socket) and is printed and recorded
// in .dossier/shared.json, so it must not hold a password: Open refuses
// one. The password comes from the variable a password_env setting names,
// PGPASSWORD, or ~/.pgpass, as libpq finds them. Connecting gives up
// after connect_timeout (DefaultConnectTimeout when the URL sets none),
// and every round trip after Options.Timeout: a server that stops
// answering is an error naming it, never a hang.
package pg
