package index_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/sharedtest"
)

// sharedRepo is a git repository of real code (some of dossier's own
// packages) and a file holding secrets, committed, with a remote.
func sharedRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, dir := range []string{"../store", "search", "related"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, filepath.Base(dir))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(root, "creds.go"), []byte(secrettest.GoFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	// A token in one Markdown section: the next section's finder quotes it.
	readme := "# Fixture\n\nDeploy with the token " + secrettest.GitHub + " from the vault.\n\n## Usage\n\nRun the thing.\n"
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "init", "-q")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture")
	gitIn(t, root, "remote", "add", "origin", "git@github.com:Example/Fixture.git")
	return root
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func indexRoot(t *testing.T, root string) {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// publishAndClone indexes root, publishes it to p and returns a clone of
// root with no index of its own, linked to the snapshot.
func publishAndClone(t *testing.T, root string, p store.Publisher, url string) string {
	t.Helper()
	ctx := context.Background()
	indexRoot(t, root)
	repo, err := history.RepoID(ctx, root, "")
	if err != nil {
		t.Fatal(err)
	}
	commit, changed, err := history.HeadCommit(ctx, root)
	if err != nil || len(changed) > 0 {
		t.Fatalf("head: %v, changed %v", err, changed)
	}
	key := store.SnapshotKey{Repo: repo, Commit: commit, Recipe: index.Recipe(search.BuiltinModel)}
	rep, err := index.Publish(ctx, root, p, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Done || rep.Sent != rep.Files || rep.Files == 0 {
		t.Fatalf("first publish: %+v", rep)
	}
	again, err := index.Publish(ctx, root, p, key, nil)
	if err != nil || !again.Done {
		t.Fatalf("second publish of one commit: %+v, %v (want done)", again, err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, filepath.Dir(clone), "clone", "-q", root, clone)
	if err := store.WriteLink(clone, store.Link{URL: url, SnapshotKey: key}); err != nil {
		t.Fatal(err)
	}
	return clone
}

// sameAnswers runs the conformance queries on the local index of root and
// on the clone that reads the shared snapshot, and wants identical
// answers.
func sameAnswers(t *testing.T, root, clone string) {
	t.Helper()
	compareAnswers(t, root, clone, conformanceQueries)
}

// sameTextAnswers is sameAnswers but for the vectors, which the store's
// server does not answer (no pgvector): text, symbols and regex.
func sameTextAnswers(t *testing.T, root, clone string) {
	t.Helper()
	var qs []search.Query
	for _, q := range conformanceQueries {
		if q.Mode != search.Hybrid && q.Mode != search.Vector {
			qs = append(qs, q)
		}
	}
	compareAnswers(t, root, clone, qs)
	res, err := search.NewEngine().SearchRoot(context.Background(), clone, search.Query{Text: "postings list", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || !strings.Contains(strings.Join(res.Debug.Notes, "\n"), "vectors left out: the shared store's server has no pgvector") {
		t.Errorf("hybrid without pgvector: %d results, notes %q", len(res.Results), res.Debug.Notes)
	}
}

var conformanceQueries = []search.Query{
	{Text: "postings list of a term", Mode: search.Text},
	{Text: "SnapshotSealed", Mode: search.Symbol},
	{Text: "fuzzy symbol", Mode: search.Symbol},
	{Text: `func \(t \*Tx\) [A-Z]\w+\(`, Mode: search.Regex},
	{Text: "how is a file's text split into blocks", Mode: search.Hybrid},
	{Text: "near duplicate folding", Mode: search.Hybrid, PathPrefix: "search/"},
	{Text: "checksum damage", Mode: search.Hybrid, Types: []string{"function"}},
	{Text: "access key", Mode: search.Text},
	{Text: "decode a postings list", Mode: search.Vector},
}

func compareAnswers(t *testing.T, root, clone string, queries []search.Query) {
	t.Helper()
	ctx := context.Background()
	for _, q := range queries {
		if q.K == 0 {
			q.K = 10
		}
		local, err := search.NewEngine().SearchRoot(ctx, root, q)
		if err != nil {
			t.Fatalf("local %q: %v", q.Text, err)
		}
		shared, err := search.NewEngine().SearchRoot(ctx, clone, q)
		if err != nil {
			t.Fatalf("shared %q: %v", q.Text, err)
		}
		if q.Mode == search.Hybrid || q.Mode == search.Vector {
			// The server scores vectors; the absolute scores are
			// calibrated on the snapshot's moments, not on a scan of
			// every vector (see index/search/sharedvec.go): the same
			// results in the same order, scores within 0.05. The server
			// sums a cosine in another order than the local scan, so two
			// chunks whose cosines tie to the last bits may stand in
			// either order in the vector list: their vector ranks may
			// differ by one.
			for i := range min(len(local.Results), len(shared.Results)) {
				l, s := &local.Results[i], &shared.Results[i]
				if d := l.Score - s.Score; d > 0.05 || d < -0.05 {
					t.Errorf("%s %q: result %d scores %.3f locally, %.3f shared", q.Mode, q.Text, i, l.Score, s.Score)
				}
				l.Score, s.Score = 0, 0
				if lr, sr := l.Ranks["vector"], s.Ranks["vector"]; lr > 0 && sr > 0 && (lr-sr == 1 || sr-lr == 1) {
					s.Ranks["vector"] = lr
				}
			}
		}
		lj, sj := resultsJSON(t, local), resultsJSON(t, shared)
		if lj != sj {
			t.Errorf("%s %q: the shared snapshot answers otherwise\nlocal:  %s\nshared: %s", q.Mode, q.Text, lj, sj)
		}
		if len(local.Results) == 0 && q.Text != "access key" {
			t.Errorf("%s %q: no results, the query proves nothing", q.Mode, q.Text)
		}
	}
	for _, tgt := range []related.Target{{Path: "store/tx.go"}, {Path: "search/text.go", Symbol: "stats"}} {
		lx, err := related.ExpandRoot(ctx, root, tgt, related.Options{})
		if err != nil {
			t.Fatalf("related local %v: %v", tgt, err)
		}
		sx, err := related.ExpandRoot(ctx, clone, tgt, related.Options{})
		if err != nil {
			t.Fatalf("related shared %v: %v", tgt, err)
		}
		if a, b := mustJSON(t, lx), mustJSON(t, sx); a != b {
			t.Errorf("related %v differs\nlocal:  %.400s\nshared: %.400s", tgt, a, b)
		}
	}
}

// hint is the first characters of a secret a local preview shows before
// its marker ("AKIA…[REDACTED:"): the shared store never had them.
var hint = regexp.MustCompile(`[^"\s]{1,4}…\[REDACTED:`)

func resultsJSON(t *testing.T, r search.Response) string {
	return hint.ReplaceAllString(mustJSON(t, r.Results), "[REDACTED:")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSharedSnapshotAnswersAsTheLocalIndex is the conformance test of the
// shared store's layers on the in-memory store (the Postgres store runs
// the same in store/pg).
func TestSharedSnapshotAnswersAsTheLocalIndex(t *testing.T) {
	root := sharedRepo(t)
	m := sharedtest.New("mem://" + t.Name())
	clone := publishAndClone(t, root, m, "mem://"+t.Name())
	if _, err := os.Stat(store.Path(clone)); !os.IsNotExist(err) {
		t.Fatalf("the clone has an index of its own: %v", err)
	}
	sameAnswers(t, root, clone)
}

// TestSharedStoreHoldsNoSecret dumps everything the store received and
// finds none of the fixture's secrets, nor a term made of one.
func TestSharedStoreHoldsNoSecret(t *testing.T) {
	root := sharedRepo(t)
	// CI clones with a token in the remote's URL.
	gitIn(t, root, "remote", "set-url", "origin", "https://ci-user:Tok3nOfTheCIrunner@github.com/Example/Fixture.git")
	m := sharedtest.New("mem://" + t.Name())
	publishAndClone(t, root, m, "mem://"+t.Name())
	n := 0
	secret := secretChecker(t)
	check := func(what string, b []byte) {
		t.Helper()
		secret(what, b)
		if strings.Contains(string(b), "Tok3nOfTheCIrunner") {
			t.Errorf("%s holds the remote's credentials", what)
		}
	}
	// The hashes of a text holding a secret, the file's and its chunks':
	// with the rest of the text known, each would let a short secret be
	// guessed offline.
	var raw []string
	db, err := store.OpenLocal(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		return tx.Files(func(f store.File) error {
			if f.Secrets == 0 {
				return nil
			}
			raw = append(raw, f.Hash)
			chunks, err := tx.FileChunks(f.Path)
			for _, c := range chunks {
				if len(c.Secrets) > 0 {
					raw = append(raw, c.Hash)
				}
			}
			return err
		})
	})
	db.Close()
	if err != nil || len(raw) < 4 {
		t.Fatalf("the raw hashes of the files with secrets: %q, %v", raw, err)
	}
	m.Dump(func(what string, b []byte) {
		n++
		check(what, b)
		for _, h := range raw {
			if strings.Contains(string(b), h) {
				t.Errorf("%s holds %s, the hash of a raw text that holds a secret", what, h)
			}
		}
	})
	if n < 100 {
		t.Fatalf("dumped only %d values", n)
	}
}

// TestSharedOverlayAnswersForChangedFiles edits, adds and deletes files in
// a clone linked to the snapshot: a search answers from the local index
// for those files and from the snapshot for the rest.
func TestSharedOverlayAnswersForChangedFiles(t *testing.T) {
	root := sharedRepo(t)
	m := sharedtest.New("mem://" + t.Name())
	clone := publishAndClone(t, root, m, "mem://"+t.Name())
	l, _, err := store.ReadLink(clone)
	if err != nil {
		t.Fatal(err)
	}
	edit := filepath.Join(clone, "store", "tx.go")
	data, err := os.ReadFile(edit)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte("\n// Zanzibarify renames the quokka ledger.\nfunc Zanzibarify() {}\n")...)
	if err := os.WriteFile(edit, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clone, "added.go"), []byte("package x\n\n// Quetzalify grooms the axolotl.\nfunc Quetzalify() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(clone, "related", "xcache.go")); err != nil {
		t.Fatal(err)
	}
	_, changed, err := history.HeadCommit(context.Background(), clone)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(changed, " ") != "added.go related/xcache.go store/tx.go" {
		t.Fatalf("changed: %q", changed)
	}
	indexRoot(t, clone)
	l.Overlay = changed
	if err := store.WriteLink(clone, l); err != nil {
		t.Fatal(err)
	}
	find := func(q search.Query) []string {
		t.Helper()
		q.K = 5
		res, err := search.NewEngine().SearchRoot(context.Background(), clone, q)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, r := range res.Results {
			paths = append(paths, r.Path+":"+r.Symbol)
		}
		return paths
	}
	if got := find(search.Query{Text: "zanzibarify quokka ledger", Mode: search.Text}); len(got) == 0 || got[0] != "store/tx.go:Zanzibarify" {
		t.Errorf("the edited file's new function: %v", got)
	}
	if got := find(search.Query{Text: "Quetzalify", Mode: search.Symbol}); len(got) == 0 || got[0] != "added.go:Quetzalify" {
		t.Errorf("the added file: %v", got)
	}
	for _, got := range [][]string{find(search.Query{Text: "xcacheKey", Mode: search.Symbol}), find(search.Query{Text: "xcache key names a file's facts", Mode: search.Hybrid})} {
		for _, p := range got {
			if strings.HasPrefix(p, "related/xcache.go") {
				t.Errorf("the deleted file answers: %v", got)
			}
		}
	}
	if got := find(search.Query{Text: "SnapshotSealed", Mode: search.Symbol}); len(got) == 0 || got[0] != "store/search.go:Tx.SnapshotSealed" {
		t.Errorf("an unchanged file, from the snapshot: %v", got)
	}
}

// secretChecker fails t when a value holds one of the fixture's secrets
// (values are compressed: callers give them in readable form), or the
// first characters of one as a preview shows them ("AKIA…").
func secretChecker(t *testing.T) func(what string, b []byte) {
	return func(what string, b []byte) {
		t.Helper()
		low := strings.ToLower(string(b))
		for _, s := range secrettest.All() {
			for _, line := range strings.Split(s, "\n") {
				if len(line) < 12 || strings.HasPrefix(line, "-----") {
					continue
				}
				if strings.Contains(low, strings.ToLower(line[:4])+"…") {
					t.Errorf("%s holds the first characters of the secret %.12q...", what, line)
				}
				if strings.Contains(low, strings.ToLower(line)) {
					t.Errorf("%s holds the secret %.12q...", what, line)
				}
				// As a search term: lower-cased, joined (no "_" or "-").
				if joined := alnum(strings.ToLower(line)); len(joined) >= 20 && strings.Contains(low, joined[4:20]) {
					t.Errorf("%s holds a piece of the secret %.12q...", what, line)
				}
			}
		}
	}
}

func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSharedSearchReadsAhead counts the round trips a new query of a
// shared snapshot takes: the postings of all its terms in one, the
// metadata of its candidates and the texts of its results in another
// (see store.Batch), not one for each term, candidate and file.
func TestSharedSearchReadsAhead(t *testing.T) {
	root := sharedRepo(t)
	m := sharedtest.New("mem://" + t.Name())
	clone := publishAndClone(t, root, m, "mem://"+t.Name())
	ctx := context.Background()
	// A first query fetches the snapshot's tables, which every query reads.
	if _, err := search.NewEngine().SearchRoot(ctx, clone, search.Query{Text: "warm up", K: 10, Mode: search.Text}); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Text: "bucket cursor checksum postings snapshot overlay remote value", K: 10, Mode: search.Text}
	before := m.RoundTrips()
	res, err := search.NewEngine().SearchRoot(ctx, clone, q)
	if err != nil {
		t.Fatal(err)
	}
	trips := m.RoundTrips() - before
	files := map[string]bool{}
	for _, r := range res.Results {
		files[r.Path] = true
	}
	if len(files) < 4 {
		t.Fatalf("%d results in %d files: the query proves nothing", len(res.Results), len(files))
	}
	if trips > 4 {
		t.Errorf("a new query of 8 terms, %d results in %d files, took %d round trips; want at most 4", len(res.Results), len(files), trips)
	}
	// A symbol query of four names: their lookups in one round trip.
	sq := search.Query{Text: "SnapshotSealed Postings RawBlob Cursor", K: 10, Mode: search.Symbol}
	before = m.RoundTrips()
	res, err = search.NewEngine().SearchRoot(ctx, clone, sq)
	if err != nil {
		t.Fatal(err)
	}
	if trips := m.RoundTrips() - before; len(res.Results) < 4 || trips > 4 {
		t.Errorf("a symbol query of 4 names: %d results, %d round trips; want at most 4", len(res.Results), trips)
	}
	compareAnswers(t, root, clone, []search.Query{q, sq})
}

// TestSharedRegexReadsOnlyCandidates: a regular expression search of a
// shared snapshot is sent only the texts that hold the trigrams of its
// required literals, and answers as the local index does; a pattern
// without a usable literal reads every text and answers the same.
func TestSharedRegexReadsOnlyCandidates(t *testing.T) {
	root := sharedRepo(t)
	// (?i) folds ſ onto s and the Kelvin sign onto k: no trigram of the
	// pattern is in this file, which matches.
	if err := os.WriteFile(filepath.Join(root, "fold.go"), []byte("package x\n\n// The \u017fnapshot of a \u212aey.\nfunc Fold() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fold")
	m := sharedtest.New("mem://" + t.Name())
	clone := publishAndClone(t, root, m, "mem://"+t.Name())
	files := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			files++
		}
		return nil
	})
	for _, c := range []struct {
		pattern  string
		atMost   int
		atLeast  int
		matching string
	}{
		{`func \(t \*Tx\) RawBlob\(`, 3, 1, "related.go"},
		{`(?i)DECODEBLOB`, files / 3, 1, "blob.go"},
		{`Overlay|Nearest\(`, files / 3, 3, "layered.go"},
		// case-insensitive with an s: ſ matches it too, which a trigram
		// cannot tell; and no literal at all: every text
		{`snapshot`, 2 * files, files / 2, "fold.go"},
		{`(?i)a key\.`, 2 * files, files / 2, "fold.go"},
		{`[A-Z]\w+\(\)`, 2 * files, files / 2, ""},
	} {
		q := search.Query{Text: c.pattern, Mode: search.Regex, K: 1000}
		// What an earlier query fetched would be read from the cache.
		if err := os.RemoveAll(filepath.Join(clone, store.DirName, "shared-cache")); err != nil {
			t.Fatal(err)
		}
		before := m.BlobsSent()
		res, err := search.NewEngine().SearchRoot(context.Background(), clone, q)
		if err != nil {
			t.Fatal(err)
		}
		sent := int(m.BlobsSent() - before)
		if sent > c.atMost || sent < c.atLeast {
			t.Errorf("regex %q: %d texts sent (of %d files), want %d-%d", c.pattern, sent, files, c.atLeast, c.atMost)
		}
		if c.matching != "" && !strings.Contains(resultsJSON(t, res), c.matching) {
			t.Errorf("regex %q: no result in %s: %s", c.pattern, c.matching, resultsJSON(t, res))
		}
		compareAnswers(t, root, clone, []search.Query{q})
	}
}
