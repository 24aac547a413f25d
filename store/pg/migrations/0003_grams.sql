-- A Bloom filter of the trigrams of each record's text (as stored: masked),
-- ASCII letters lower-cased: a regular expression search asks which files
-- may hold the trigrams of the literals its matches must contain and
-- reads only their texts (store/grams.go). Tested by get_bit in a scan of
-- the snapshot's files: no index to maintain. A record stored before
-- this migration has no row: a snapshot holding one is searched by
-- reading every text, and the next upload holding it sends its filter.
CREATE TABLE dossier_record_grams (record_id bigint PRIMARY KEY REFERENCES dossier_records ON DELETE CASCADE,
  bits bytea NOT NULL);
