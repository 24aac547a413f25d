// Command dossier-bench compares dossier's indexer with repomix on a copy of
// a large source tree (by default $(go env GOROOT)/src), then searches the
// index, and reports wall time, latency and peak memory against dossier's
// speed targets:
//
//   - a full index (search records and builtin embeddings included) in at
//     most half of repomix's wall time, with at most half of its peak RSS
//     (issue 18);
//   - on that index, when the tree has documented Go functions to make
//     queries from (on another tree this phase is skipped, with a
//     warning): hybrid queries p95 <= 50 ms, symbol lookups p95 <= 5 ms,
//     a regular expression over the whole tree <= 300 ms, and the searching
//     process under 600 MB;
//   - a no-op re-index in under a second;
//   - the CLI figure for re-indexing after one file changed (informational:
//     it includes the walk; the < 100 ms target is for Indexer.Update, which
//     BenchmarkReindexOneFile in ./index measures).
//
// It is a report: it exits 0 even when a target is missed, and non-zero only
// when the harness itself fails (copying, or dossier failing to run).
//
//	go run ./cmd/dossier-bench -dossier bin/dossier [-src DIR] [-repomix=false] [-runs N] [-json] [-cold]
//
// # Speed
//
// Work that search does not need is not done at index time (no exact token counts). Files
// are read, parsed, described, analysed for search and embedded (builtin) by parallel
// workers, in buffers each worker reuses, while a separate goroutine commits batches, so
// parsing continues during commits.
//
// Measured on this project's CI machine (2 vCPUs, 24 GiB), `$(go env GOROOT)/src` of Go
// 1.26.8 (11,478 files, 122 MB as copied, 137,644 chunks) in /tmp, three runs interleaved
// with `npx repomix@1.14` packing the same tree, then query streams against the index
// (`go run ./cmd/dossier-bench -dossier bin/dossier -runs 3`, part of `make bench`). Two
// such runs on 2026-11-22; the second overlapped other test runs (load average about 2):
//
//	| | wall | peak RSS |
//	|---|---|---|
//	| repomix 1.14 | 20.1–24.5 s | 904–964 MB |
//	| `dossier index`, full (search records and builtin vectors included) | 16.7–19.7 s (median 0.79–0.85 of repomix) | 396–497 MB (median 0.46–0.52 of repomix) |
//	| `dossier index`, nothing changed | 0.47–0.61 s | 65–90 MB |
//	| one changed file (`Indexer.Update`, `go test -bench ReindexOneFile ./index`) | 43 ms | — |
//
//	| query stream (`dossier search --json`, one process; the last run) | p50 | p95 | process peak RSS |
//	|---|---|---|---|
//	| hybrid, 436 distinct descriptions from the tree's doc comments | 24.0 ms | 31.7 ms | 145 MB |
//	| text | 3.0 ms | 5.7 ms | 39 MB |
//	| vector | 19.8 ms | 25.5 ms | 142 MB |
//	| symbol, the same functions' names | 0.48 ms | 3.0 ms | 39 MB |
//	| regex, 7 patterns over the whole tree (`-k 100`) | 132 ms | slowest 169 ms | 112 MB |
//
// On 2026-11-24 (one run at the end of the day, `-runs 1`): dossier 26.4 s and 404 MB
// against repomix's 26.9 s and 918 MB (0.98× and 0.44×); streams p50 / p95: hybrid 18.7 /
// 31.4 ms, text 5.4 / 13.8, vector 12.7 / 21.1, symbol 0.9 / 4.9 (the stream keeps the index
// open while queries wait, see `dossier search`), regex slowest 194 ms.
//
// Latency is dossier's own figure (`debug.latency_ms`), from opening the index to the
// answer; every query is different, so none comes from the result cache. Earlier runs the
// same day (with some repeated queries, and under load) gave hybrid p95 30–36 ms, symbol
// p95 2.7–4.6 ms and the slowest regex 160–270 ms.
//
// The first query of a process also loads the Engine's copy of the vector entries (about
// 200 ms here). Tree-sitter parsing is the floor of indexing: parsing the tree's
// non-generated Go alone takes 9.3 s on one core and 5.7 s on both. A full run's memory
// peaks three times at about the same height: the last batch commits (the heap of the
// workers, and the index pages a commit touches), the snapshot rebuild's pass over every
// record, and its write. The run hands its garbage back to the OS before the rebuild, and
// stores nothing that no query reads (schema 11 dropped a content-hash table whose random
// keys had every batch rewrite pages all over it): 479–490 MB on Go's tree, from 592–615 MB
// (2026-11-24, under a load average of 10–15, base and new binaries alternated).
// `dossier-full` and the workbench cap the Go heap at 256 MB or half again the live heap
// after the last collection, whichever is more (`cmd/internal/heapcap`; a `GOMEMLIMIT` or
// `GOGC=off` you set wins): three runs alone, alternated, peaked at 453/496/499 MB without
// the cap and 441/453/401 MB with it, in 21.6–23.6 s and 22.9–23.5 s (2026-11-24). In `make
// bench`'s run beside repomix the same day: 24.6 s and 424 MB against repomix's 26.6 s and
// 909 MB (0.93× and 0.47×; the machine was slower than on 2026-11-22, when repomix took
// 20–25 s).
//
// Secret scanning (2026-11-23, same machine and tree, old and new binaries interleaved):
// gitleaks' detector runs each of its ~220 rules over the whole text once one of the rule's
// keywords occurs anywhere in it, about 2.8 MB/s on Go source (`BenchmarkScanWholeText`, one
// core, GOROOT/src/net); dossier runs each rule only over the lines its matches can reach
// from its own keywords (computed from the line breaks each expression can match; the few
// unbounded rules, such as private keys, read the whole text), with the same findings on the
// whole GOROOT tree, at 28–34 MB/s (`BenchmarkScan`). A full index of GOROOT went from
// 17.9–18.6 s to 18.8–20.6 s (about +2 s of scanning) and its peak RSS from 439–445 MB to
// 497–502 MB (the compiled rules and the texts being scanned); a no-op re-index is unchanged
// (0.58–0.68 s before, 0.56–0.64 s after). The binary grew from 49.3 MB to 54.3 MB; start-up
// is unchanged (the rules compile on the first scan, 39 ms in `BenchmarkLoad`). Since issue
// 18 the first scan reads the rule set only, each rule's expression compiles when a text
// first holds one of its keywords, and its allowlists when it first finds something: one
// changed file no longer pays for all ~220 rules. Reading the rule set still cost a process's
// first scan ~21-29 ms (gitleaks' TOML parsed with go-toml, the global allowlists compiled, an
// Aho-Corasick trie of the 244 keywords built); the rules are now Go data generated from
// `index/secrets/gitleaks.toml` (`go generate ./index/secrets`; `TestGeneratedRulesAreGitleaksToml`
// fails when the two disagree), the keywords are found by a bitset of their first two bytes,
// the generic rule's 1,448 stop words too, and the global allowlists compile at the first
// finding: 25-38 µs (`BenchmarkLoad`, `BenchmarkFirstScan/plain`, from 2.6-5.9 ms warm; a
// fresh process's first scan of a line without keywords, 34 ms before, 0.6 ms), and
// `BenchmarkScan` went from 30-38 to 37-41 MB/s. On a 14-file repository with a file of secrets
// (2026-11-24, binaries alternated), `dossier search "slack token"`, whose
// results mask a secret, went from 167 to 61 ms (medians of 20), and a one-file `dossier index` of that file
// from 158 to 74 ms (medians of 15). Since issue 18, too, dossier links no gitleaks package: its
// detector and config packages brought viper, archive and file-type detectors, sprig, semver
// and more, whose package init every process paid (~5 ms of start-up); the same rules run
// through `index/secrets` (`TestMatchIsGitleaksDetect` compares the findings with gitleaks'
// on gitleaks' own rule test cases, this repository, and with `DOSSIER_SECRETS_CORPUS` on
// larger trees: koel, BookStack and GOROOT/src gave 2,990 findings, all identical).
//
// # One-shot speed
//
// Every command a shell, a script, an editor or an agent runs is a new process, so `dossier`
// is a small binary that answers `stats` and `search` itself (no tree-sitter, no network
// client, no command framework) and hands every other command to `dossier-full`.
// `make bench-cold` measures each figure as one process on a copy of GOROOT/src (Go 1.26,
// 10,679 files indexed) beside `rg -i WORD` over the same tree. These figures are from
// 2026-11-24 on the development machine (2 vCPUs, load average 1.4), 9 runs each, with 20
// queries for each search mode. The targets are issue 18's.
//
//	| one process | p50 / p95 ms | peak RSS | target |
//	|---|---|---|---|
//	| `rg -i WORD` (5 words), for scale | 157 / 182 | 10 MB | |
//	| `dossier stats` | 16.5 / 17.8 | 10 MB | ≤ 0.1× rg (16 ms): at the line |
//	| `dossier index`, nothing changed | 84 / 124 | 21 MB | ≤ 0.6× rg: met |
//	| `dossier index`, one file changed | 154 / 163 | 50 MB | ≤ the no-op + 100 ms: met |
//	| `dossier search` hybrid | 47.8 / 56.4 | 30 MB | p95 ≤ 0.3× rg (47 ms), ≤ 60 MB: p95 missed |
//	| `dossier search --mode text` | 26.9 / 31.7 | 25 MB | p95 ≤ 20 ms: missed |
//	| `dossier search --mode symbol` | 20.2 / 32.1 | 19 MB | p95 ≤ 20 ms: missed |
//	| `dossier search --mode symbol` for a name the index lacks (fuzzy matching; `perf stat -r 10`) | 33–35 (was 232–522) | 11 MB (was 114 MB) | |
//
// Earlier the same day, with the machine busier (rg 194–221 ms p50), the same binary gave
// stats 22–25 ms p50, hybrid 71–74 ms p95, text 39–40 and symbol 32.
//
// Where a one-shot query's time goes (`perf stat -r 30` on the same index, quiet machine):
// a static Go "hello world" takes 6.3–7.2 ms and 182–186 page faults; the front's package
// initialisation alone (a binary importing what it imports and exiting) 8.5 ms and 233
// faults; the front failing to find an index 12.2 ms and 308 faults; `dossier stats` 13.8 ms
// and 335 faults. Symbol lookups of the first 20 names above take 17–25 ms each (386–602
// faults; common names such as `Read` are the slowest), three text queries 19–20 ms. What a text
// query itself costs (~10 ms) is spread over reading the postings, BM25 scoring, the chunks'
// metadata, the best lines and the checksums, none above 15% of the process; a page fault
// costs ~17 µs on this VM. Reading the vector table through the memory map instead of by
// copy made no difference beyond the noise (hybrid over 20 queries, twice each, alternated:
// p50 37.3–38.2 ms either way, p95 42.7–44.7 against 45.9–46.3 ms); `GOMAXPROCS=1` saves
// about 1 ms (stats 13.6 → 12.8 ms, a symbol lookup 23.4 → 22.3 ms).
//
// A resident answerer (a `dossier serve` the front talks to over a socket) was weighed and
// not built: the front's own start (12 ms quiet, ~16 ms under `make bench-cold`) stays, so by
// estimate (not measured) a text query would still take 15–20 ms, for a background process, a
// socket and its permissions, and the environment, working directory and terminal of every
// caller to carry across. The
// workbench and `dossier mcp` are the resident answerers where one is wanted; a query stream
// (`dossier search --json` reading queries from standard input) keeps the index open between
// queries (text p50 3 ms, symbol 0.5–1 ms, see "Speed").
//
// The full index of Go's tree took 24.6–26.4 s and 404–424 MB in `make bench`'s runs beside
// repomix (26.6–26.9 s and 909–918 MB; 0.93–0.98× and 0.44–0.47×, 2026-11-24); issue 18
// asks for 0.5× of both. The wall time is bound by CPU: a run takes ~44.5 s of it on 2
// cores, 11 s of which is tree-sitter parsing Go (7.5 MB/s on one core against 47–58 MB/s for
// Go's own `go/parser`, on the 7,594 files, 61 MB, the indexer parses). On the two other
// trees measured, the target is met (`go run ./cmd/dossier-bench -dossier bin/dossier
// -src DIR -runs 3`, same day, three runs each beside repomix 1.14; on a tree without Go doc
// comments it skips the search phase, with a warning):
//
//	| tree | repomix | `dossier index`, full | ratio (median) |
//	|---|---|---|---|
//	| netbox-community/netbox 43fe81f (Python/Django; 2,239 files, 42 MB) | 25.3–27.6 s, 530–555 MB | 5.2–6.3 s, 261–279 MB | 0.23× wall, 0.49× RSS |
//	| documenso/documenso 7533016 (TypeScript; 2,835 files, 60 MB) | 9.5–11.4 s, 472–485 MB | 4.0–5.0 s, 131–142 MB | 0.49× wall, 0.29× RSS |
//
// (Both from the tool's mirrors, which lack a few large blobs: netbox's `contrib/openapi.json`
// and `netbox/extras/data/un_locode.py`, for one. No-op re-index 57–78 ms on both.)
//
// # Assembly and workbench speed
//
// Measured on the development machine (2 vCPUs) with issue 4's benchmark flow: 500 evidence
// parts of Go source from GOROOT, about 400k tokens (`make bench` runs these):
//
//	| what | figure | target |
//	|---|---|---|
//	| full assembly, new assembler, token counts from the warm cache (`BenchmarkAssembleWarm`): mdctx / aptix / responses | 8.4 / 6.2 / 13 ms | ≤ 50 ms |
//	| re-assembly after toggling one part (`BenchmarkReassembleToggle`): mdctx / aptix / responses | 0.57 / 0.64 / 2.7 ms | ≤ 5 ms |
//	| every CLI command's floor: read 500 part files and assemble (`BenchmarkEngineAssemble`) | 26 ms; 34 ms with the secrets gate (each part's source file read and checked against the clean set) | |
//	| toggle with the rename on disk, then re-assembly (`BenchmarkEngineToggle`) | 3.9 ms | |
//	| counting 400k tokens from nothing (`BenchmarkAssembleCold`) | 37 ms; 100 ms with the first secret scan of every part | |
//	| workbench key press to frame, 500 parts (`BenchmarkKeyToFrame`): move / toggle / rank | 1.4 / 1.3 / 2.3 ms | ≤ 16 ms |
//	| workbench toggle round trip: engine rename, build/ rewritten, reply, frame (toggles back to back, each re-reading the flow first) | 45 ms; 57–73 ms with flow containment and the secrets gate (53 ms for the old code in the same run) | |
//	| workbench first frame on the GOROOT/src index (binary start to first screen, tmux) | 158 ms | ≤ 200 ms |
//	| workbench peak RSS on the GOROOT/src index after a re-index and searches | 166 MB | < 600 MB |
//	| workbench search on GOROOT/src: first query / later ones | 213 / 46 ms | |
//	| workbench, a file written to its symbol found by the overlay's search, 200-file workspace (`BenchmarkWriteToSearchable`: 150 ms of watcher quiet, the batch, the query) / to its result on screen in the open overlay (tmux, `TestWorkbenchFollowsWorkspace`) | 165–175 / 210–230 ms | ≤ 1 s |
//	| answer delta to frame, Update + View at 160x50 (`BenchmarkAnswerDeltaToFrame`): at the start / after 100k tokens / inside a 64 kB line | 0.5–1.0 / 0.6–0.9 / 1.4 ms | ≤ 16 ms |
//	| first answer byte written by a sendtest server to the frame showing it (`BenchmarkSendFirstByteToScreen`: HTTP, SSE, engine, Update, View) | 1.4–3.1 ms | |
//	| frames drawn for 25,000 deltas arriving over one second (`BenchmarkStreamCoalescing`) | 57–58 | ≈ 60 |
//	| heap of a 100k-token (400 kB) answer in the pane: streamed / with its glamour rendering (`BenchmarkAnswerMemory`) | 1.1 / 3.8 MB; glamour renders it in 0.3–1 s, in the background | |
//
// The tokenizer counts about 57 MB/s (o200k_base) and 40 MB/s (cl100k_base); a cached count
// costs the SHA-256 of the text.
package main
