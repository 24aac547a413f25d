package search_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// vocabulary for generated files: a few words common, most rare, so
// document frequencies and lengths differ from file to file.
var vocabulary = strings.Fields(`parse config cache retry socket buffer token stream header
	render layout widget cursor pixel matrix vector tensor shard replica ledger invoice
	customer order payment refund coupon discount tariff shipment parcel courier`)

func generated(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package gen\n\n")
	for f := range 1 + r.IntN(4) {
		words := make([]string, 3+r.IntN(12))
		for j := range words {
			// Squared: the first words are much more common.
			k := r.IntN(len(vocabulary))
			words[j] = vocabulary[k*k/len(vocabulary)]
		}
		fmt.Fprintf(&b, "// %s handles %s.\nfunc %s%d_%d() {\n\t// %s\n}\n\n",
			strings.Title(words[0]), strings.Join(words[1:], " "), strings.Title(words[0]), i, f, strings.Join(words, " "))
	}
	return b.String()
}

// TestScoresDoNotDependOnHistory proves an index brought up to date
// incrementally (the snapshot left stale, changed files read from their
// records) ranks and scores exactly as a fresh index of the same tree.
func TestScoresDoNotDependOnHistory(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	root := t.TempDir()
	for i := range 120 {
		write(t, root, fmt.Sprintf("gen/f%03d.go", i), generated(r, i))
	}
	reindex(t, root)

	// A full run over a few changes: below the rebuild threshold.
	for i := 0; i < 20; i++ {
		write(t, root, fmt.Sprintf("gen/f%03d.go", i*5), generated(r, 1000+i))
	}
	for i := range 10 {
		write(t, root, fmt.Sprintf("new/n%03d.go", i), generated(r, 2000+i))
	}
	for i := range 8 {
		if err := os.Remove(filepath.Join(root, fmt.Sprintf("gen/f%03d.go", 3+i*7))); err != nil {
			t.Fatal(err)
		}
	}
	reindex(t, root)
	// And the watcher's way: Update with the paths it saw.
	var changed []string
	for i := range 6 {
		p := fmt.Sprintf("gen/f%03d.go", 1+i*11)
		write(t, root, p, generated(r, 3000+i))
		changed = append(changed, p)
	}
	write(t, root, "new/watched.go", generated(r, 4000))
	if err := os.Remove(filepath.Join(root, "gen/f002.go")); err != nil {
		t.Fatal(err)
	}
	reindex(t, root, append(changed, "new/watched.go", "gen/f002.go")...)
	view(t, root, func(tx *store.Tx) {
		if tx.DirtyCount() == 0 {
			t.Fatal("the snapshot was rebuilt: the test needs a stale one")
		}
	})

	fresh := t.TempDir()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == store.DirName {
				return filepath.SkipDir
			}
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		write(t, fresh, filepath.ToSlash(rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reindex(t, fresh)

	for _, q := range []string{"parse config", "payment refund coupon", "socket", "tariff courier parcel shipment", "Cache retry"} {
		for _, mode := range []search.Mode{search.Text, search.Hybrid, search.Vector, search.Symbol} {
			a := query(t, root, search.Query{Text: q, Mode: mode, K: 50})
			b := query(t, fresh, search.Query{Text: q, Mode: mode, K: 50})
			if len(a.Results) != len(b.Results) {
				t.Errorf("%s %q: %d results incrementally, %d fresh", mode, q, len(a.Results), len(b.Results))
				continue
			}
			for i := range a.Results {
				x, y := a.Results[i], b.Results[i]
				if x.Path != y.Path || x.StartLine != y.StartLine || x.Score != y.Score {
					t.Errorf("%s %q result %d: incrementally %s:%d %v, fresh %s:%d %v", mode, q, i, x.Path, x.StartLine, x.Score, y.Path, y.StartLine, y.Score)
					break
				}
			}
		}
	}
}
