// Package tokens counts LLM tokens exactly, offline, and knows the
// context windows of common models.
//
// The o200k_base and cl100k_base vocabularies are embedded (vocab.go,
// written from github.com/tiktoken-go/tokenizer's); nothing is downloaded
// at run time. The
// pre-tokenizer (tiktoken splits text with a regular expression before
// byte-pair encoding each piece) is our own, though: tiktoken-go's
// generated matcher mis-splits white space runs in which other white space
// separates line breaks, such as indented blank lines ("\n \n" becomes
// "\n", " \n"), so its counts drift from OpenAI's. Ours match the reference
// tiktoken on every test text (testdata/reference.json, written by
// testdata/gen-reference.mjs) and are several times faster.
//
// Text is counted as tiktoken's encode_ordinary counts it: special-token
// markers such as "<|endoftext|>" are plain text. Invalid UTF-8 is counted as
// if each maximal invalid subsequence were U+FFFD, which is what a reader
// decoding the bytes with replacement (Python's errors="replace", a
// browser's TextDecoder) would send to a model.
package tokens

import (
	"fmt"
	"strings"
	"sync"
)

// Encoding names accepted by ForEncoding.
const (
	// O200kBase is the encoding of GPT-4o, GPT-4.1, GPT-5 and the o-series.
	O200kBase = "o200k_base"
	// Cl100kBase is the encoding of GPT-4, GPT-3.5 and text-embedding-3.
	Cl100kBase = "cl100k_base"
	// Estimate is "1 token ≈ 4 bytes" (seed 003), for models whose
	// tokenizer is not public.
	Estimate = "estimate"
)

// Counter counts tokens of text in one encoding. Implementations are safe
// for concurrent use.
type Counter interface {
	// Count returns the number of tokens text encodes to. It accepts any
	// string, including invalid UTF-8.
	Count(text string) int
	// Encoding is "o200k_base", "cl100k_base" or "estimate".
	Encoding() string
	// Exact is false for the bytes/4 estimate.
	Exact() bool
}

// Counters are shared: each holds a vocabulary that costs ~100 ms and tens
// of MB to build, so it is built at most once per process, on first use.
var (
	o200k  = &bpeCounter{name: O200kBase, next: nextO200k, vocab: &o200kVocab}
	cl100k = &bpeCounter{name: Cl100kBase, next: nextCl100k, vocab: &cl100kVocab}
)

// ForEncoding returns the Counter for an encoding name ("o200k_base",
// "cl100k_base" or "estimate"). Vocabularies load lazily on the first Count.
func ForEncoding(name string) (Counter, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case O200kBase:
		return o200k, nil
	case Cl100kBase:
		return cl100k, nil
	case Estimate:
		return estimate{}, nil
	}
	return nil, fmt.Errorf("unknown token encoding %q: use one of %s", name, strings.Join(Encodings(), ", "))
}

// Encodings lists the names ForEncoding accepts.
func Encodings() []string { return []string{O200kBase, Cl100kBase, Estimate} }

// estimate is seed 003's rule of thumb, rounded up so that any non-empty
// text costs at least one token.
type estimate struct{}

func (estimate) Count(text string) int { return (len(text) + 3) / 4 }
func (estimate) Encoding() string      { return Estimate }
func (estimate) Exact() bool           { return false }

// bpeCounter is tiktoken's algorithm: split text into pieces with the
// encoding's pre-tokenizer, then byte-pair encode each piece on its own.
type bpeCounter struct {
	name  string
	next  func(s string, i int) int // end of the piece starting at i
	vocab *string                   // the embedded vocabulary file
	once  sync.Once
	ranks map[string]uint32 // token bytes -> rank (= token id)
}

func (b *bpeCounter) Encoding() string { return b.name }
func (b *bpeCounter) Exact() bool      { return true }

// load builds the rank map from the embedded vocabulary. A damaged file
// cannot be: TestVocabularyFiles reads both.
func (b *bpeCounter) load() {
	b.once.Do(func() {
		ranks, err := ranksOf(*b.vocab)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", b.name, err))
		}
		b.ranks = ranks
	})
}

// Count implements Counter.
func (b *bpeCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	b.load()
	text = sanitize(text)
	var m merger
	n := 0
	for i := 0; i < len(text); {
		j := b.next(text, i)
		piece := text[i:j]
		if _, ok := b.ranks[piece]; ok {
			n++
		} else {
			n += len(m.merge(b.ranks, piece)) - 1
		}
		i = j
	}
	return n
}

// encode returns the token ids of text; tests compare them with tiktoken's.
func (b *bpeCounter) encode(text string) []int {
	b.load()
	text = sanitize(text)
	var m merger
	var ids []int
	for i := 0; i < len(text); {
		j := b.next(text, i)
		piece := text[i:j]
		if r, ok := b.ranks[piece]; ok {
			ids = append(ids, int(r))
		} else {
			bounds := m.merge(b.ranks, piece)
			for k := 0; k+1 < len(bounds); k++ {
				ids = append(ids, int(b.ranks[piece[bounds[k]:bounds[k+1]]]))
			}
		}
		i = j
	}
	return ids
}

// pieces returns the pre-tokenizer's split of text; tests use it.
func (b *bpeCounter) pieces(text string) []string {
	text = sanitize(text)
	var out []string
	for i := 0; i < len(text); {
		j := b.next(text, i)
		out = append(out, text[i:j])
		i = j
	}
	return out
}
