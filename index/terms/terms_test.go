package terms

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func all(text string) []string {
	var out []string
	New().Each(text, func(s string) { out = append(out, s) })
	return out
}

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"ReadFile", []string{"read", "file", "readfile"}},
		{"parseHTTPRequest", []string{"pars", "http", "request", "parsehttprequest"}},
		{"snake_case_name", []string{"snake", "case", "name", "snakecasename"}},
		{"utf8Valid", []string{"utf8", "valid", "utf8valid"}},
		{"base64 sha256", []string{"base64", "sha256"}},
		{"the address is a loopback address", []string{"address", "loopback", "address"}},
		{"net/http/server.go", []string{"net", "http", "server", "go"}},
		{"x := 1; y = 123456", []string{"1"}},
		{"Parsing parses parsed", []string{"pars", "pars", "pars"}},
		{"__init__", []string{"init"}},
		{"héllo wörld", []string{"héllo", "wörld"}},
		{strings.Repeat("ab", 40), nil},
	}
	for _, c := range cases {
		if got := all(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestQueryMatchesIdentifier is the point of the package: plain words and
// the identifier they name share terms.
func TestQueryMatchesIdentifier(t *testing.T) {
	tok := New()
	code := tok.Terms("func (ip Addr) IsLoopback() bool")
	for _, q := range []string{"loopback", "is loopback", "IsLoopback", "isloopback"} {
		for term := range tok.Terms(q) {
			if term == "is" {
				continue
			}
			if code[term] == 0 {
				t.Errorf("query %q: term %q not in the code's terms %v", q, term, code)
			}
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	if got := all("ok \xff\xfebad good"); !reflect.DeepEqual(got, []string{"ok", "good"}) {
		t.Errorf("got %q", got)
	}
}

func FuzzEach(f *testing.F) {
	f.Add("HTTPServer_v2 x\xff")
	f.Fuzz(func(t *testing.T, s string) {
		New().Each(s, func(term string) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		})
	})
}

// cached returns a Tokenizer whose word cache is made already.
func cached() *Tokenizer {
	t := New()
	t.words = make([]wordTerms, cacheSize)
	return t
}

// goSources reads some of Go's own source files, a corpus of real code.
func goSources(tb testing.TB) []string {
	var texts []string
	for _, dir := range []string{"net/http", "go/types", "runtime"} {
		paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			texts = append(texts, string(b))
		}
	}
	if len(texts) == 0 {
		tb.Skip("no Go sources under GOROOT")
	}
	return texts
}

// TestWordCacheSameTerms: the word cache changes no term, on real code
// and on words that collide in it; a tokenizer told to CacheWords makes it
// on its own, and no other does.
func TestWordCacheSameTerms(t *testing.T) {
	texts := goSources(t)
	plain, fast, auto := New(), cached(), New()
	auto.CacheWords()
	for _, text := range texts {
		var want, got, gotAuto []string
		plain.eachUncached(text, func(s string) { want = append(want, s) })
		fast.Each(text, func(s string) { got = append(got, s) })
		auto.Each(text, func(s string) { gotAuto = append(gotAuto, s) })
		if !slices.Equal(got, want) || !slices.Equal(gotAuto, want) {
			t.Fatalf("cached terms differ from uncached ones (%d, %d vs %d terms)", len(got), len(gotAuto), len(want))
		}
	}
	if auto.words == nil {
		t.Errorf("the tokenizer made no word cache after %d words", auto.seen)
	}
	if plain.words != nil {
		t.Errorf("a tokenizer not told to cache words made the cache")
	}
}

func FuzzWordCache(f *testing.F) {
	f.Add("HTTPServer_v2 x\xff ReadFile readFile READFILE")
	f.Fuzz(func(t *testing.T, s string) {
		var want, got []string
		New().Each(s, func(term string) { want = append(want, term) })
		tok := cached()
		for range 2 { // a miss, then a hit
			got = got[:0]
			tok.Each(s, func(term string) { got = append(got, term) })
			if !slices.Equal(got, want) {
				t.Fatalf("cached %q, want %q", got, want)
			}
		}
	})
}

// BenchmarkCountGoSource tokenizes Go source as the indexer does (counts
// into a map, chunk by chunk), on a warm tokenizer.
func BenchmarkCountGoSource(b *testing.B) {
	texts := goSources(b)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	tok, m := New(), map[string]int{}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			tok.Count(m, t)
		}
	}
}
