package secrets

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// occurrence is one word found at a position.
type occurrence struct {
	pos  int
	word string
}

// trieOccurrences is what the Aho-Corasick trie Scan used before keywords
// found in text: every word, in the ASCII-lower-cased text.
func trieOccurrences(trie *ahocorasick.Trie, text string) []occurrence {
	var out []occurrence
	for _, m := range trie.MatchString(asciiLower(text)) {
		out = append(out, occurrence{int(m.Pos()), m.MatchString()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pos != out[j].pos {
			return out[i].pos < out[j].pos
		}
		return out[i].word < out[j].word
	})
	return out
}

// ourOccurrences is what keywords finds, in the order it finds them.
func ourOccurrences(k *keywords, words []string, text string) []occurrence {
	var out []occurrence
	k.each(text, func(pos, w int) bool {
		out = append(out, occurrence{pos, words[w]})
		return true
	})
	return out
}

// keywordTexts are real texts: this module's files and GOROOT/src/net's,
// with odd bytes and mixed case besides.
func keywordTexts(t *testing.T) map[string]string {
	texts := map[string]string{
		"empty": "", "one byte": "k", "upper": "API_KEY=1 Token PASSWORD x-Api-Key",
		"odd bytes": "\xff\xfeKEY\u212aey\x00tokEN\xc0", "word at end": "aws_secret_access_key",
	}
	text, _ := Fixture()
	texts["fixture"] = text
	for _, root := range []string{"../..", filepath.Join(runtime.GOROOT(), "src", "net")} {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() && (e.Name() == ".git" || e.Name() == ".dossier") {
				return filepath.SkipDir
			}
			if ext := filepath.Ext(p); e.Type().IsRegular() && (ext == ".go" || ext == ".md" || ext == ".toml") {
				if b, err := os.ReadFile(p); err == nil {
					texts[p] = string(b)
				}
			}
			return nil
		})
	}
	if len(texts) < 500 {
		t.Fatalf("%d texts: the comparison tests little", len(texts))
	}
	return texts
}

// TestKeywordsAreTheTrie checks keywords against the Aho-Corasick trie
// Scan used before: the same (position, word) pairs on real texts, for the
// default rules' keywords, the stop words of the generic rule and words of
// one byte.
func TestKeywordsAreTheTrie(t *testing.T) {
	s := rules()
	var stop []string
	for _, r := range s.rules {
		for _, a := range r.src.Allowlists {
			for _, w := range a.StopWords {
				stop = append(stop, strings.ToLower(w))
			}
		}
	}
	sort.Strings(stop)
	stop = dedup(stop)
	if len(stop) < 1000 {
		t.Fatalf("%d stop words", len(stop))
	}
	sets := map[string][]string{
		"keywords":   s.kw,
		"stop words": stop,
		"short":      {"k", "e", "ke", "key", "y", "\xff", "tok"},
	}
	texts := keywordTexts(t)
	found := 0
	for name, words := range sets {
		k := newKeywords(words)
		trie := ahocorasick.NewTrieBuilder().AddStrings(words).Build()
		for path, text := range texts {
			want := trieOccurrences(trie, text)
			got := ourOccurrences(k, words, text)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s in %s: keywords find %d, the trie %d:\n%v\n%v", name, path, len(got), len(want), got, want)
			}
			if k.any(text) != (len(want) > 0) {
				t.Fatalf("%s in %s: any is %v, the trie finds %d", name, path, k.any(text), len(want))
			}
			found += len(got)
		}
	}
	t.Logf("%d texts, %d occurrences agreed", len(texts), found)
	if found < 100000 {
		t.Fatalf("%d occurrences: the comparison tests little", found)
	}
}

func dedup(sorted []string) []string {
	out := sorted[:0]
	for i, w := range sorted {
		if i == 0 || w != sorted[i-1] {
			out = append(out, w)
		}
	}
	return out
}

// BenchmarkNewKeywords builds the matcher of the default rules' keywords,
// as the first scan of a process does.
func BenchmarkNewKeywords(b *testing.B) {
	words := rules().kw
	for i := 0; i < b.N; i++ {
		newKeywords(words)
	}
}

// BenchmarkKeywords finds the default keywords in GOROOT/src/net's Go
// files.
func BenchmarkKeywords(b *testing.B) {
	_, texts, size := gorootTexts(b, "net")
	k := newKeywords(rules().kw)
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range texts {
			k.each(t, func(int, int) bool { return true })
		}
	}
}

// BenchmarkKeywordsTrie is BenchmarkKeywords with the Aho-Corasick trie
// Scan used before keywords (the text lower-cased first, as Scan did).
func BenchmarkKeywordsTrie(b *testing.B) {
	_, texts, size := gorootTexts(b, "net")
	trie := ahocorasick.NewTrieBuilder().AddStrings(rules().kw).Build()
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range texts {
			trie.MatchString(asciiLower(t))
		}
	}
}

// BenchmarkNewKeywordsTrie builds that trie.
func BenchmarkNewKeywordsTrie(b *testing.B) {
	words := rules().kw
	for i := 0; i < b.N; i++ {
		ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	}
}

// asciiLower lower-cases ASCII letters only, byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FuzzKeywordsAreTheTrie compares keywords with the trie on any text, for
// the default keywords and a set with words of one byte.
func FuzzKeywordsAreTheTrie(f *testing.F) {
	text, _ := Fixture()
	for _, seed := range []string{"", "k", "API_KEY=x", "\xffKeY\u212a", text} {
		f.Add(seed)
	}
	sets := [][]string{rules().kw, {"k", "e", "ke", "key", "y", "\xff", "tok"}}
	type pair struct {
		k    *keywords
		trie *ahocorasick.Trie
	}
	var pairs []pair
	for _, words := range sets {
		pairs = append(pairs, pair{newKeywords(words), ahocorasick.NewTrieBuilder().AddStrings(words).Build()})
	}
	f.Fuzz(func(t *testing.T, text string) {
		for i, p := range pairs {
			got, want := ourOccurrences(p.k, sets[i], text), trieOccurrences(p.trie, text)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("in %q: keywords find %v, the trie %v", text, got, want)
			}
		}
	})
}
