package search_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

var files = map[string]string{
	"shop/cart.go": `package shop

// Cart holds the items a customer picked.
type Cart struct{ Items []Item }

// AddItem puts an item in the cart.
func (c *Cart) AddItem(it Item) { c.Items = append(c.Items, it) }

// TotalPrice sums the prices of every item in the cart.
func (c *Cart) TotalPrice() int {
	sum := 0
	for _, it := range c.Items {
		sum += it.Price
	}
	return sum
}
`,
	"shop/item.go": `package shop

// Item is something for sale.
type Item struct {
	Name  string
	Price int
}

// ParseItem reads "name:price" into an Item. TODO: accept decimals.
func ParseItem(s string) (Item, error) {
	name, price, _ := strings.Cut(s, ":")
	n, err := strconv.Atoi(price)
	return Item{Name: name, Price: n}, err
}
`,
	"shop/cart_test.go": `package shop

func TestTotalPrice(t *testing.T) {
	c := &Cart{}
	c.AddItem(Item{Price: 2})
	if c.TotalPrice() != 2 {
		t.Fatal("total")
	}
}
`,
	"net/conn.go": `package net

// dialTimeout opens a connection to the address, giving up after the timeout.
func dialTimeout(address string, timeout int) (*Conn, error) {
	return nil, nil
}

// Close shuts the connection down.
func (c *Conn) Close() error { return nil }
`,
	"docs/guide.md": "# Guide\n\n## Checkout\n\nThe checkout flow sums the cart and charges the card.\n",
	"tools/pricing.py": `import math


def round_price(x):
    """Round a price up to a whole unit."""
    return math.ceil(x)
`,
}

func workspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		write(t, root, p, c)
	}
	reindex(t, root)
	return root
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func reindex(t *testing.T, root string, paths ...string) {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if len(paths) > 0 {
		_, err = ix.Update(context.Background(), paths)
	} else {
		_, err = ix.Run(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
}

func query(t *testing.T, root string, q search.Query) search.Response {
	t.Helper()
	resp, err := search.NewEngine().SearchRoot(context.Background(), root, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return resp
}

func first(t *testing.T, resp search.Response) search.Result {
	t.Helper()
	if len(resp.Results) == 0 {
		t.Fatalf("no results for %q (%s)", resp.Query, resp.Debug.Strategy)
	}
	return resp.Results[0]
}

func TestModesFindTheRightChunk(t *testing.T) {
	root := workspace(t)
	cases := []struct {
		mode      search.Mode
		q         string
		path, sym string
	}{
		{search.Text, "sum the prices of the items", "shop/cart.go", "Cart.TotalPrice"},
		{search.Hybrid, "open a connection with a timeout", "net/conn.go", "dialTimeout"},
		{search.Hybrid, "round price up", "tools/pricing.py", "round_price"},
		{search.Vector, "connections timeouts", "net/conn.go", "dialTimeout"},
		{search.Symbol, "ParseItem", "shop/item.go", "ParseItem"},
		{search.Symbol, "TotalPr", "shop/cart.go", "Cart.TotalPrice"},
		{search.Symbol, "prsitm", "shop/item.go", "ParseItem"},
		{search.Hybrid, "checkout flow", "docs/guide.md", "Guide.Checkout"},
	}
	for _, c := range cases {
		r := first(t, query(t, root, search.Query{Text: c.q, Mode: c.mode}))
		if r.Path != c.path || r.Symbol != c.sym {
			t.Errorf("%s %q: first is %s %s, want %s %s", c.mode, c.q, r.Path, r.Symbol, c.path, c.sym)
		}
		if r.Score <= 0 || r.Score > 1 {
			t.Errorf("%s %q: score %v outside (0, 1]", c.mode, c.q, r.Score)
		}
		if r.ID == "" || r.Language == "" || r.StartLine <= 0 || r.EndLine < r.StartLine || len(r.Sources) == 0 {
			t.Errorf("%s %q: incomplete result %+v", c.mode, c.q, r)
		}
	}
}

func TestRegexIsSmartCase(t *testing.T) {
	root := workspace(t)
	r := first(t, query(t, root, search.Query{Text: `todo: accept`, Mode: search.Regex}))
	if r.Path != "shop/item.go" || r.Symbol != "ParseItem" || !strings.Contains(r.Line, "TODO: accept decimals") {
		t.Errorf("regex: %+v", r)
	}
	if resp := query(t, root, search.Query{Text: `Todo: accept`, Mode: search.Regex}); len(resp.Results) != 0 {
		t.Errorf("an upper-case pattern must match case: %+v", resp.Results)
	}
	if _, err := search.NewEngine().SearchRoot(context.Background(), root, search.Query{Text: `(unclosed`, Mode: search.Regex}); err == nil || !strings.Contains(err.Error(), "bad regular expression") {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestFiltersAndTests(t *testing.T) {
	root := workspace(t)
	resp := query(t, root, search.Query{Text: "total price", Mode: search.Text})
	for i, r := range resp.Results {
		if r.Path == "shop/cart_test.go" && i == 0 {
			t.Errorf("a test ranks first although the query does not ask for tests")
		}
	}
	resp = query(t, root, search.Query{Text: "total price", Types: []string{"test"}})
	if len(resp.Results) == 0 {
		t.Fatal("no test results")
	}
	for _, r := range resp.Results {
		if r.Path != "shop/cart_test.go" {
			t.Errorf("--type test kept %s", r.Path)
		}
	}
	resp = query(t, root, search.Query{Text: "price", PathPrefix: "tools/"})
	for _, r := range resp.Results {
		if !strings.HasPrefix(r.Path, "tools/") {
			t.Errorf("--path-prefix tools/ kept %s", r.Path)
		}
	}
	resp = query(t, root, search.Query{Text: "price", K: 2, MinScore: 0})
	if len(resp.Results) != 2 {
		t.Errorf("K=2 gave %d results", len(resp.Results))
	}
}

// TestChangedFilesAreCurrent proves that files changed since the snapshot
// are searched from their own records: new words are found, old ones gone.
func TestChangedFilesAreCurrent(t *testing.T) {
	root := workspace(t)
	write(t, root, "net/conn.go", "package net\n\n// resolveHostname looks a hostname up in the zone file.\nfunc resolveHostname(h string) string { return h }\n")
	reindex(t, root, "net/conn.go")
	resp := query(t, root, search.Query{Text: "look up a hostname in the zone file"})
	if r := first(t, resp); r.Symbol != "resolveHostname" {
		t.Errorf("first = %+v", r)
	}
	if resp.Debug.Dirty != 1 {
		t.Errorf("dirty files = %d, want 1", resp.Debug.Dirty)
	}
	for _, mode := range []search.Mode{search.Text, search.Vector, search.Hybrid} {
		for _, r := range query(t, root, search.Query{Text: "dial timeout connection", Mode: mode}).Results {
			if r.Symbol == "dialTimeout" {
				t.Errorf("%s: removed function still found", mode)
			}
		}
	}
	// Deleting a file removes it from results too.
	if err := os.Remove(filepath.Join(root, "tools/pricing.py")); err != nil {
		t.Fatal(err)
	}
	reindex(t, root, "tools/pricing.py")
	for _, r := range query(t, root, search.Query{Text: "round price up"}).Results {
		if r.Path == "tools/pricing.py" {
			t.Errorf("deleted file still found")
		}
	}
	// Once the snapshot is rebuilt from the records, nothing is read from
	// the records any more, and the answers are the same.
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = search.Rebuild(context.Background(), db.View, db.Update)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp = query(t, root, search.Query{Text: "look up a hostname in the zone file"})
	if r := first(t, resp); r.Symbol != "resolveHostname" || resp.Debug.Dirty != 0 {
		t.Errorf("after the rebuild: first = %+v, %d files read from records", r, resp.Debug.Dirty)
	}
	for _, r := range query(t, root, search.Query{Text: "round price up"}).Results {
		if r.Path == "tools/pricing.py" {
			t.Errorf("deleted file found in the rebuilt snapshot")
		}
	}
}

func TestSnapshotRebuildMatchesRecords(t *testing.T) {
	root := workspace(t)
	q := search.Query{Text: "sum prices items in the cart", Mode: search.Text, MinScore: 0}
	before := query(t, root, q)
	// Make every file dirty without changing content: the answers must
	// not change when they are read from the per-file records instead.
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error {
		for _, p := range tx.Paths() {
			f, _, _ := tx.File(p)
			chunks, _ := tx.FileChunks(p)
			blob, _ := tx.Blob(p)
			u := store.FileUpdate{File: f, Chunks: chunks, Blob: blob, Search: tx.SearchRecord(p), Vectors: tx.VectorRecord(p)}
			u.Search, u.Vectors = append([]byte(nil), u.Search...), append([]byte(nil), u.Vectors...)
			if err := tx.ReplaceFile(u); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	after := query(t, root, q)
	if after.Debug.Dirty == 0 {
		t.Fatal("nothing dirty")
	}
	if len(before.Results) != len(after.Results) {
		t.Fatalf("%d results from the snapshot, %d from records", len(before.Results), len(after.Results))
	}
	for i := range before.Results {
		b, a := before.Results[i], after.Results[i]
		if b.ID != a.ID || abs(b.Score-a.Score) > 1e-9 {
			t.Errorf("result %d: snapshot %s %.4f, records %s %.4f", i, b.ID, b.Score, a.ID, a.Score)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestBadQueries(t *testing.T) {
	root := workspace(t)
	e := search.NewEngine()
	if _, err := e.SearchRoot(context.Background(), root, search.Query{Text: "  "}); err == nil {
		t.Error("empty query accepted")
	}
	if _, err := e.SearchRoot(context.Background(), root, search.Query{Text: "x", Mode: "fuzzy"}); err == nil || !strings.Contains(err.Error(), "hybrid") {
		t.Errorf("unknown mode: %v", err)
	}
	if _, err := e.SearchRoot(context.Background(), t.TempDir(), search.Query{Text: "x"}); err == nil {
		t.Error("search without an index succeeded")
	}
	// Words that match nothing give an empty list, not an error.
	if resp := query(t, root, search.Query{Text: "zzqx wvvy"}); len(resp.Results) != 0 {
		t.Errorf("nonsense matched %+v", resp.Results)
	}
}

// TestResultCache proves the recent-results cache answers a repeated query
// and is retired by any change to the index.
func TestResultCache(t *testing.T) {
	root := workspace(t)
	e := search.NewEngine()
	q := search.Query{Text: "look up a hostname in the zone file"}
	before, err := e.SearchRoot(context.Background(), root, q)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.SearchRoot(context.Background(), root, q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(again.Debug.Notes, "answered from the result cache") || len(again.Results) != len(before.Results) {
		t.Fatalf("repeat not answered from the cache: %+v", again.Debug)
	}
	write(t, root, "net/conn.go", "package net\n\n// resolveHostname looks a hostname up in the zone file.\nfunc resolveHostname(h string) string { return h }\n")
	reindex(t, root, "net/conn.go")
	after, err := e.SearchRoot(context.Background(), root, q)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(after.Debug.Notes, "answered from the result cache") {
		t.Fatal("a cached answer survived a change to the index")
	}
	if r := first(t, after); r.Symbol != "resolveHostname" {
		t.Errorf("after the change, first = %+v", r)
	}
}

// TestHybridJoinsWordsIntoNames checks that plain words find the
// snake_case and camelCase names they spell through the symbol leg.
func TestHybridJoinsWordsIntoNames(t *testing.T) {
	root := workspace(t)
	for _, c := range []struct{ q, sym string }{
		{"round price", "round_price"},
		{"dial timeout", "dialTimeout"},
	} {
		resp := query(t, root, search.Query{Text: c.q, MinScore: 0})
		found := false
		for _, r := range resp.Results {
			if r.Symbol == c.sym && slices.Contains(r.Sources, "symbol") {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: the symbol leg did not find %s: %+v", c.q, c.sym, resp.Results)
		}
	}
}

// TestMixedVectorsAreReported proves a file whose vectors come from
// another model (an interrupted re-embedding) is left out of vector search
// and said so, not silently.
func TestMixedVectorsAreReported(t *testing.T) {
	root := workspace(t)
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error {
		p := "net/conn.go"
		f, _, _ := tx.File(p)
		chunks, _ := tx.FileChunks(p)
		blob, _ := tx.Blob(p)
		stored := make([][]byte, len(chunks))
		for i := range stored {
			stored[i] = make([]byte, vecindex.EntrySize(256)+256)
		}
		vrec, err := search.EncodeStoredVectors("another-model", 256, stored)
		if err != nil {
			return err
		}
		u := store.FileUpdate{File: f, Chunks: chunks, Blob: blob, Search: append([]byte(nil), tx.SearchRecord(p)...), Vectors: vrec}
		return tx.ReplaceFile(u)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp := query(t, root, search.Query{Text: "connections timeouts", Mode: search.Vector, MinScore: 0})
	noted := false
	for _, n := range resp.Debug.Notes {
		noted = noted || strings.Contains(n, "1 files have vectors from \"another-model\"")
	}
	if !noted {
		t.Errorf("no note about the file of another model: %v", resp.Debug.Notes)
	}
	for _, r := range resp.Results {
		if r.Path == "net/conn.go" {
			t.Errorf("a file of another model was compared: %+v", r)
		}
	}
}

// TestBestLineAcrossBlocks checks the line a result shows in a large file,
// whose text is stored in blocks of 16 KB decoded one by one: a chunk deep
// in the file, and one whose best line runs across two blocks.
func TestBestLineAcrossBlocks(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; b.Len() < 16300; i++ {
		fmt.Fprintf(&b, "var filler%d = %d\n", i, i)
	}
	b.WriteString("\n// Quokka hops.\nfunc Quokka() int {\n")
	// The line with the query's words starts before byte 16384 and ends
	// after it.
	b.WriteString("\treturn 1 // " + strings.Repeat("x", 16384-b.Len()) + " zebra marsupial hop\n}\n\n")
	for i := 0; b.Len() < 40000; i++ {
		fmt.Fprintf(&b, "var more%d = %d\n", i, i)
	}
	b.WriteString("\n// Wombat digs.\nfunc Wombat() int {\n\tx := 2\n\treturn x // wombat burrow dig\n}\n")
	write(t, root, "big/big.go", b.String())
	reindex(t, root)
	for _, c := range []struct{ q, sym, line string }{
		{"zebra marsupial hop", "Quokka", "zebra marsupial hop"},
		{"wombat burrow dig", "Wombat", "return x // wombat burrow dig"},
	} {
		r := first(t, query(t, root, search.Query{Text: c.q, Mode: search.Text}))
		if r.Symbol != c.sym || !strings.Contains(r.Line, c.line) {
			t.Errorf("%q: first result %s line %q, want %s showing %q", c.q, r.Symbol, r.Line, c.sym, c.line)
		}
	}
}

// A fuzzy symbol search reads the snapshot's table of names and the names
// of the files changed since: a name added since is found, and the names
// of a file deleted since neither come back nor crowd out the live ones.
func TestFuzzySymbolsFollowChanges(t *testing.T) {
	root := workspace(t)
	var b strings.Builder
	b.WriteString("package gone\n")
	for i := range 25 {
		fmt.Fprintf(&b, "\nfunc Qzxw%02d() {}\n", i)
	}
	write(t, root, "gone/gone.go", b.String())
	reindex(t, root)
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = search.Rebuild(context.Background(), db.View, db.Update)
	if err == nil {
		err = db.View(func(tx *store.Tx) error {
			table, err := search.SymbolNameTable(tx)
			if want := tx.AppendSymbolNames(nil); err == nil && (len(want) == 0 || !slices.Equal(table, want)) {
				t.Errorf("the snapshot's names are %q, the symbol map's %q", table, want)
			}
			return err
		})
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	// "qzw" is no name and no name's prefix: only a fuzzy match finds it.
	resp := query(t, root, search.Query{Text: "qzw", Mode: search.Symbol})
	if r := first(t, resp); r.Path != "gone/gone.go" || resp.Debug.Dirty != 0 {
		t.Fatalf("before the change: first is %s %s, %d files read from records", r.Path, r.Symbol, resp.Debug.Dirty)
	}

	if err := os.Remove(filepath.Join(root, "gone/gone.go")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "net/late.go", "package net\n\n// QuizWorker asks.\nfunc QuizWorker() {}\n")
	reindex(t, root, "gone/gone.go", "net/late.go")
	resp = query(t, root, search.Query{Text: "qzw", Mode: search.Symbol})
	if r := first(t, resp); r.Path != "net/late.go" || r.Symbol != "QuizWorker" || resp.Debug.Dirty != 2 {
		t.Errorf("after the change: first is %s %s, %d files read from records", r.Path, r.Symbol, resp.Debug.Dirty)
	}
	for _, r := range resp.Results {
		if r.Path == "gone/gone.go" {
			t.Errorf("a symbol of the deleted file is found: %s", r.Symbol)
		}
	}

	// A long-lived Engine keeps the changed files' names only as long as
	// the index is unchanged.
	e := search.NewEngine()
	fuzzy := func() search.Result {
		t.Helper()
		resp, err := e.SearchRoot(context.Background(), root, search.Query{Text: "qzw", Mode: search.Symbol})
		if err != nil {
			t.Fatal(err)
		}
		return first(t, resp)
	}
	if r := fuzzy(); r.Symbol != "QuizWorker" {
		t.Fatalf("long-lived Engine: first is %s", r.Symbol)
	}
	write(t, root, "net/late.go", "package net\n\n// QuartzWheel turns.\nfunc QuartzWheel() {}\n")
	reindex(t, root, "net/late.go")
	if r := fuzzy(); r.Symbol != "QuartzWheel" {
		t.Errorf("long-lived Engine after a change: first is %s, want QuartzWheel", r.Symbol)
	}
}

// An Engine that holds the index between queries keeps writers out only
// until its next query, and not at all once released.
func TestHeldIndexLetsWritersIn(t *testing.T) {
	root := workspace(t)
	e := search.NewEngine()
	e.Hold()
	want, err := e.SearchRoot(context.Background(), root, search.Query{Text: "ParseItem", Mode: search.Symbol})
	if err != nil || len(want.Results) == 0 {
		t.Fatalf("first query: %v %+v", err, want)
	}
	// Held: a writer cannot get in...
	if w, err := store.Open(store.Path(root), store.Options{Timeout: 100 * time.Millisecond}); !errors.Is(err, store.ErrInUse) {
		if err == nil {
			w.Close()
		}
		t.Fatalf("a writer opened a held index: %v", err)
	}
	// ...but one waiting gets in at the next query, which reads after it.
	// Another reader, open first (a reader opening after the writer came
	// would queue behind it), sees when the writer waits at the turnstile.
	r, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		w, err := store.Open(store.Path(root), store.Options{Timeout: 10 * time.Second})
		if err == nil {
			err = w.Close()
		}
		opened <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); r.Current() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	r.Close()
	got, err := e.SearchRoot(context.Background(), root, search.Query{Text: "TotalPrice", Mode: search.Symbol})
	if err != nil || len(got.Results) == 0 {
		t.Fatalf("query after the writer: %v %+v", err, got)
	}
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("the waiting writer: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the writer still waits after the query: the Engine kept the index")
	}
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	w, err := store.Open(store.Path(root), store.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("a writer after Release: %v", err)
	}
	w.Close()
}

// A rebuild cancelled at any of its reads returns the context's error and
// leaves the earlier snapshot in force; the next rebuild completes.
func TestRebuildStopsWhenCancelled(t *testing.T) {
	root := workspace(t)
	write(t, root, "net/conn.go", "package net\n\n// resolveHostname looks a hostname up.\nfunc resolveHostname(h string) string { return h }\n")
	reindex(t, root, "net/conn.go")
	// rebuild cancels at its at-th transaction (reads first, then writes).
	rebuild := func(ctx context.Context, at int, cancel func()) error {
		db, err := store.Open(store.Path(root), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		n := 0
		count := func(run func(func(*store.Tx) error) error) func(func(*store.Tx) error) error {
			return func(fn func(*store.Tx) error) error {
				if n++; n == at {
					cancel()
				}
				return run(fn)
			}
		}
		return search.Rebuild(ctx, count(db.View), count(db.Update))
	}
	// The records' read, the names', the vectors', staging the tables,
	// staging the postings: the switch is the next.
	for at := 1; at <= 5; at++ {
		ctx, cancel := context.WithCancel(context.Background())
		if err := rebuild(ctx, at, cancel); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at transaction %d: err = %v", at, err)
		}
		cancel()
		if resp := query(t, root, search.Query{Text: "resolveHostname", Mode: search.Symbol}); resp.Debug.Dirty != 1 {
			t.Fatalf("cancelled at transaction %d: %d files read from records, want the earlier snapshot and 1", at, resp.Debug.Dirty)
		}
	}
	if err := rebuild(context.Background(), 0, nil); err != nil {
		t.Fatal(err)
	}
	if resp := query(t, root, search.Query{Text: "resolveHostname", Mode: search.Symbol}); resp.Debug.Dirty != 0 || len(resp.Results) == 0 {
		t.Fatalf("after the rebuild: %d files from records, %d results", resp.Debug.Dirty, len(resp.Results))
	}
}
