-- The core of the shared store: repositories, content-addressed file
-- records, snapshots and refs (store/pg/doc.go explains the layout).
CREATE TABLE dossier_repos (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE,
  created timestamptz NOT NULL DEFAULT now());

-- one row per (path, content hash, recipe): shared by every snapshot holding
-- that file. created lets gc spare the records of a recent interrupted upload.
CREATE TABLE dossier_records (id bigserial PRIMARY KEY, path bytea NOT NULL, hash text NOT NULL,
  recipe text NOT NULL, created timestamptz NOT NULL DEFAULT now(), UNIQUE (path, hash, recipe));
CREATE TABLE dossier_record_values (record_id bigint NOT NULL REFERENCES dossier_records ON DELETE CASCADE,
  bucket text NOT NULL, value bytea NOT NULL, PRIMARY KEY (record_id, bucket));
CREATE TABLE dossier_symbols (record_id bigint NOT NULL REFERENCES dossier_records ON DELETE CASCADE,
  key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (record_id, key));
CREATE INDEX dossier_symbols_key ON dossier_symbols (key);

-- chunk ids, places in their file and content hashes of a record (vectors
-- are keyed by chunk hash)
CREATE TABLE dossier_record_chunks (record_id bigint NOT NULL REFERENCES dossier_records ON DELETE CASCADE,
  chunk_id text NOT NULL, ord int NOT NULL, chunk_hash text NOT NULL, PRIMARY KEY (record_id, chunk_id));
CREATE INDEX dossier_record_chunks_hash ON dossier_record_chunks (chunk_hash);

CREATE TABLE dossier_snapshots (id bigserial PRIMARY KEY, repo_id bigint NOT NULL REFERENCES dossier_repos,
  commit text NOT NULL, recipe text NOT NULL, model text NOT NULL DEFAULT '',
  state text NOT NULL CHECK (state IN ('building','ready')), created timestamptz NOT NULL DEFAULT now(),
  finished timestamptz, UNIQUE (repo_id, commit, recipe));

CREATE TABLE dossier_snapshot_files (snapshot_id bigint NOT NULL REFERENCES dossier_snapshots ON DELETE CASCADE,
  path bytea NOT NULL, record_id bigint NOT NULL REFERENCES dossier_records, PRIMARY KEY (snapshot_id, path));
-- (record_id, snapshot_id): a symbol found by key is checked against one
-- snapshot with one index probe, however many snapshots share its record.
CREATE INDEX dossier_snapshot_files_record ON dossier_snapshot_files (record_id, snapshot_id);

-- per-snapshot buckets: meta, snapshot.a, postings.a, testlinks, pathids
CREATE TABLE dossier_snapshot_values (snapshot_id bigint NOT NULL REFERENCES dossier_snapshots ON DELETE CASCADE,
  bucket text NOT NULL, key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (snapshot_id, bucket, key));
-- Stored uncompressed out of line: a query reads a few 16 KB ranges of the
-- search tables (tens of megabytes), and substring() of an uncompressed
-- value reads only the chunks of the range.
ALTER TABLE dossier_snapshot_values ALTER COLUMN value SET STORAGE EXTERNAL;

CREATE TABLE dossier_refs (repo_id bigint NOT NULL REFERENCES dossier_repos, name text NOT NULL,
  snapshot_id bigint NOT NULL REFERENCES dossier_snapshots, PRIMARY KEY (repo_id, name));
