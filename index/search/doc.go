// Package search finds chunks: BM25 over the chunks' finder snippets,
// exact vector scan over their embeddings, symbol lookup and regular
// expressions over the files' text, fused into one ranked list.
//
// Its data lives in the store in two layers (see store/search.go): per-file
// records (terms and metadata; vectors) written by the indexer's workers
// with each file, and a snapshot (postings, documents, chunk metadata,
// paths) rebuilt from the term records.
// Queries read the snapshot for files unchanged since it was built and the
// per-file records for the rest, so results are always current. Both layers
// carry each chunk's metadata (Meta), so answering a query never decodes
// the chunk records themselves.
//
// Ranking: each retriever's scores are absolute (relevance.go), hybrid
// mode fuses them (fuse.go), and a reranker applies priors (results.go):
// proximity, recency, and the document kind, which ranks the code that
// implements a behaviour above its tests, prose and release notes unless
// the query asks for those (intent.go). Results scoring below the query's
// threshold (DefaultMinScore, calibrated so that real queries keep their
// best candidates and random strings get none) are left out. Symbol
// lookup finds exact names, prefixes, abbreviations and typos (typo.go).
//
// # Search
//
// Terms are code-aware (`index/terms`): identifiers split at camelCase, snake_case and
// acronym boundaries (`parseHTTPRequest` → parse, http, request, plus the joined
// `parsehttprequest`), lower-cased, English stop words dropped, Snowball-stemmed. A term in
// the symbol's name counts 3 times, in its signature, enclosing symbols or section names
// twice, in the path, doc or body once; BM25 (k1 1.2, b 0.75) runs over these weighted
// counts, accumulated in a dense array in query-term order (so the same query always adds
// up the same score).
//
// The workers compute each file's search record and builtin vectors with the file, so an
// unchanged file is never re-analysed or re-embedded. The snapshot (postings, documents,
// chunk metadata, paths) is rebuilt at the end of an index run only when more than
// max(64, 2 %) of the files changed since it was built; until then a query reads the
// snapshot for clean files and the changed files' own records (skipping their stale snapshot
// entries), so results are always current and one changed file costs the indexer nothing
// extra. A result is labelled from the metadata stored next to its terms: no query decodes
// the chunk records.
//
// **The builtin embedder** (`dossier-builtin-v3`, 256 dimensions) uses the hashing trick:
// each term sets two signed components and each of its character trigrams one at weight
// 0.3, so `addr` lands near `address`; a chunk's vector gives its name a fixed 30 % and its
// signature 20 % of the length, the rest to every term of its snippet, which is where it
// differs from BM25 (whose saturating counts let a long body full of query words outrank the
// short function whose name says what the query asks). Query terms are weighted by their
// IDF in the index. Features are summed in fixed point, so a vector is bit-for-bit the same
// on every run and machine.
//
// **Vectors are searched by an exact scan**, not a graph. The index keeps each vector as an
// int8 entry (scale, block sum, components) and, separately, a residual byte per component;
// a query estimates every entry with a SWAR int8 dot product (eight vectors or two
// products per 64-bit multiply), keeps the best 2k+32, and rescores those from their
// residuals to 16-bit precision (`index/vecindex`). The entries a query scans are the
// snapshot's vector table, laid out by column: the builtin embedder hashes a query's few
// words into 15–70 of its 256 components, so a query reads (with pread, a block at a time
// into a buffer it reuses) the scales and only the columns of its own non-zero components,
// about a tenth of the table, and gets the same int8 estimates, bit for bit, as a scan of
// every entry; the scan keeps the components of the documents it may rescore, and rescoring
// reads the residuals of each document it rescores, one row of the table. A one-shot `dossier search`
// thus neither faults in one page run per file nor keeps every page it read mapped, and only
// files changed since the snapshot are read from their own records. A long-lived searcher
// (a `--json` stream, the workbench) copies the files' records once per index generation
// and reads the table as a one-shot query does. Measured on 20,000 clustered vectors against exact float64 search (200 queries,
// `go test ./index/vecindex`): recall@10 is 0.979 (384 dims) and 0.980 (256) from the int8
// entries alone, **1.000 at both sizes** with the rescoring (TestStoredRecall), which is
// what dossier ships. github.com/coder/hnsw v0.6.1 (the only version the module proxy
// serves) was measured on the same data (`BenchmarkHNSW`, part of `make bench`): recall@10
// 0.12–0.14 with its defaults (M 16, EfSearch 20), 0.26 at M 32 / EfSearch 100, 0.54–0.59
// when fetching 200 and keeping the best 10, 0.38–0.40 at M 64 / EfSearch 200; raising
// EfSearch to 400 changed nothing (its layer search stops at the first step that does not
// improve), and results vary from run to run. It is not used.
//
// **Fusion.** Hybrid mode ranks by each retriever's scores scaled by its best, adding to
// the text score 0.5 × the cosine and 0.1 × the symbol score, scoring every candidate of any
// retriever with the vector model; the scores shown are absolute (see `dossier search`).
// The reranker then lifts a candidate by up to a fifth for the share of its own name's parts
// the query says (`splitAddress` for "split a network address into its host and port", see
// namematch.go): hybrid MRR@10 0.372 → 0.386 (Go), 0.449 → 0.457 (Python), 0.443 → 0.456 (JS),
// 0.355 → 0.366 on the held-out Go `crypto` + `go` set.
// Measured alternatives (`cmd/dossier-retrieval`): reciprocal-rank fusion gained a third of
// what score fusion does; min-max and z-score normalisation did worse; the symbol leg at 0.5
// cost 1–3 points of MRR on Go. Ranking by the absolute scores themselves (each retriever
// weighted by its own confidence) cost 0.010–0.015 of hybrid MRR on Go, and marking each chunk
// down by the share of the query it lacks (a coordination factor) cost a fifth of text MRR:
// long paraphrase queries share few words with their answer. Re-measured on all three sets
// (Go / Python / JS hybrid MRR@10, today's 0.370 / 0.447 / 0.443 in a replay of the fused
// candidates): vector weight 0.3 or 0.7 and symbol weight 0 or 0.3 do no better (best 0.371 /
// 0.446 / 0.441); sharpening the scaled scores (squared or more) or multiplying text by
// 1 + cosine, 0.344–0.368 on Go; weighting the vector leg by its score gap against the text
// leg's or by the query's length, ±0.003. Fusion of these legs has little left to give: even
// choosing, per query and knowing the answer, the best of eight vector weights from 0 to 100
// reaches only 0.443 / 0.532 / 0.534 (1.36x / 1.23x / 1.27x text), and the answer is in neither
// the text nor the vector leg's top 50 for 18 % / 11 % / 12 % of the queries. Fusion weights and the vector
// calibration were measured with the builtin embedder only; for remote models the null
// distribution is each query's own, but the thresholds (3 and 8 deviations) are the builtin's.
//
// **Retrieval quality** (`go run ./cmd/dossier-retrieval`, part of `make bench`): queries
// made the CodeSearchNet way from code nobody here wrote, at bench time (the doc comment or
// docstring is removed from the indexed copy; its first sentence without the function's
// name is the query; the function is the answer, or a result listing the answer's file as an
// identical or near-duplicate copy of a function of the same name, since search folds those).
// MRR@10 / recall@1 / recall@10, 2 vCPUs:
//
//	| set | queries | text | vector | hybrid | hybrid vs text (MRR) |
//	|---|---|---|---|---|---|
//	| Go `net` + `encoding` (the default) | 1,500 | 0.325 / 0.221 / 0.573 | 0.275 / 0.191 / 0.485 | **0.386 / 0.275 / 0.640** | +19 % |
//	| Go `crypto` + `go` (held out, `-src`; the name prior was not tuned on it) | 1,500 | 0.320 / 0.218 / 0.557 | 0.242 / 0.155 / 0.440 | **0.366 / 0.260 / 0.611** | +14 % |
//	| Python stdlib `email`, `http`, `asyncio`, `xml`, `logging` (`-lang python`) | 996 | 0.431 / 0.311 / 0.686 | 0.345 / 0.229 / 0.614 | **0.457 / 0.332 / 0.722** | +6 % |
//	| JS/TS: eslint 8.57 `lib/`, rxjs 7.8 `src/` (`-lang js`) | 1,500 | 0.420 / 0.314 / 0.659 | 0.318 / 0.239 / 0.507 | **0.456 / 0.350 / 0.675** | +9 % |
//
// Counting only the answer's own chunk (the `strict` column), MRR is 0.320 / 0.269 / 0.379 on
// Go, unchanged on Python, 0.409 / 0.302 / 0.439 on JS: where a function has an identical copy
// (eslint's `cli-engine.js` and `flat-eslint.js` share several), the copy that ranks first is
// shown with the other listed. Before absolute scores and folding, the same sets gave 0.313 /
// 0.265 / 0.362 (Go), 0.430 / 0.344 / 0.450 (Python), 0.416 / 0.308 / 0.433 (JS); the ranking
// itself is unchanged (see Fusion).
//
// Latency on these small indexes (about 10k chunks each): text p50 0.5–0.8 ms, hybrid
// 2.1–5.0 ms, p95 3.6–8.3 ms (measured before this change on an idle machine). In process on
// Go's source tree (`DOSSIER_BENCH_INDEX=… go test -bench Query ./index/search`, CPU time per
// query, before and after interleaved, on a shared machine with a load average of 10–20, so
// only the ranges mean much): hybrid 57–68 ms before, 56–78 after; vector 52–63 / 51–70;
// symbol 11–20 / 15–27; text 5.0–8.5 / 8.7–13.7. Text and symbol queries cost 3–5 ms more: the
// best lines read each shown result's file text and weigh its lines.
//
// Hybrid beats text on every set, clearly on Go and modestly on Python and JS, where the
// remaining misses are mostly paraphrases no lexical method bridges ("tidy up any resources"
// → `Handler.close`). Tried and not shipped, because hybrid did not improve on every set:
// random-indexing term vectors learned from the indexed corpus (vector alone rose from 0.264
// to 0.318 MRR on the Go set and 0.345 to 0.392 on Python, but they duplicate BM25's signal:
// fused, 0.346–0.359 against 0.359, as a third leg no change); call-site context added to
// each function's vector (+0.006); doc-word centroids added to the query vector (worse);
// PPMI term associations learned over the chunks with the snapshot, expanding the builtin
// query vector (branch vocab-experiment-h5, measured with the name prior above): vector
// 0.275 → 0.282 (Go), 0.345 → 0.348 (Python), 0.318 → 0.325 (JS), hybrid 0.386 → 0.387,
// 0.457 → 0.457, 0.456 → 0.457, for 9.7 % more index CPU (that branch's measurement); name parts counted as held when
// they begin a query term (`addr` for "address"): hybrid +0.002 / +0.003 / −0.001.
//
// **Regular expressions** run over the stored text in path order, in batches across the
// cores, and stop once the batches done hold enough hits. Before the expression runs, a
// file must contain one of the literals every match needs (from the parsed pattern: `TODO`
// or `FIXME` for `TODO|FIXME`), found by substring search, lowered eight bytes at a time for
// case-insensitive patterns; the filter is exact (a file holding ſ or the Kelvin sign, the
// two non-ASCII letters that fold onto ASCII, goes to the expression).
//
// **Symbols**: exact and prefix lookups in the symbol map (the chunk's position is stored
// with each symbol), then, only when nothing matched, fuzzy matching (github.com/sahilm/fuzzy)
// over the names that hold the query's letters in order: the snapshot's table of names (1.3 MB
// for Go's tree, one read; walking the symbol map's keys instead took 0.3 s and 190 MB as one
// process) and the names of the files changed since; a name whose symbols have gone since
// does not count among the 20 looked up.
//
// **Remote embedders** (`index/embed`, github.com/sashabaranov/go-openai): the workers
// compute each chunk's finder snippet; before a batch is written its texts are looked up in
// `embcache` and the missing ones embedded, with the index file closed during the calls;
// the new vectors are cached at once, the batch is committed with its vector records. The
// model is recorded at the end of the run. Fusion weights were measured with the builtin
// embedder only; they are used unchanged for remote models.
package search
