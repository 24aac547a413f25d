-- requires extension: vector
-- Vectors of chunks, for the server's nearest-neighbour search (pgvector).
-- A server without pgvector runs without this migration (vectors are then
-- left out of searches); `dossier store migrate` applies it once the
-- extension is installed. See store/pg/vectors.go.
CREATE EXTENSION IF NOT EXISTS vector;

-- One row per embedding model ("name/dims"): the HNSW index of its vectors
-- is named after its id (dossier_vectors_hnsw_<id>) and created when the
-- model's first vectors are stored.
CREATE TABLE dossier_models (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  dims int NOT NULL CHECK (dims > 0)
);

-- One row per (model, chunk content hash): a chunk whose text appears in
-- many files or snapshots is stored and indexed once. halfvec (2 bytes a
-- dimension) halves the table and its index against vector; the column has
-- no dimension because models of different sizes share it, so each
-- model's index and query cast it to halfvec(<dims>).
CREATE TABLE dossier_vectors (
  model_id int NOT NULL REFERENCES dossier_models,
  chunk_hash text NOT NULL,
  embedding halfvec NOT NULL,
  PRIMARY KEY (model_id, chunk_hash)
);
