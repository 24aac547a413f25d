-- The trigrams of each record's text (as stored: masked), ASCII letters
-- lower-cased, each as three bytes in an int: a regular expression search
-- asks which files hold the trigrams of the literals its matches must
-- contain and reads only their texts (store/grams.go). int4[] under GIN
-- needs no extension. A record stored before this migration has no row:
-- a snapshot holding one is searched by reading every text.
CREATE TABLE dossier_record_grams (record_id bigint PRIMARY KEY REFERENCES dossier_records ON DELETE CASCADE,
  grams int4[] NOT NULL);
CREATE INDEX dossier_record_grams_gin ON dossier_record_grams USING gin (grams);
