package embed

import (
	"context"
	"math"
	"sync"

	"github.com/dossierhq/dossier/index/terms"
)

// BuiltinModel names the builtin embedder's model; bump the suffix whenever
// its features change, so indexes re-embed.
const BuiltinModel = "dossier-builtin-v3"

// BuiltinDims is the builtin vectors' length.
const BuiltinDims = 256

// Builtin embeds by the hashing trick: every term sets two signed
// components, and its character trigrams one each at a lower weight, so
// "addr" lands near "address" and "conn" near "connection" where exact
// terms never meet. Weights are sub-linear in the term's count and low for
// words every file has; the query side adds corpus IDF (see search).
//
// A chunk is embedded by fields (see Chunk): its name and signature keep a
// fixed share of the vector however long the body is. That is where it
// differs from BM25, whose saturating term counts let a long body that
// mentions many query words outrank the short function whose name says
// what the query asks, and it is why fusing the two beats either alone.
type Builtin struct {
	acc Vec
}

// Vec accumulates features exactly: its components are fixed-point
// integers, so a vector comes out the same whatever order its terms are
// added in (float sums would differ in their last bits from run to run,
// as Go's maps are iterated in random order).
type Vec []int64

// fixedOne is 1.0 in Vec's fixed point.
const fixedOne = 1 << 20

func fixed(w float32) int64 { return int64(math.Round(float64(w) * fixedOne)) }

// Float writes v, normalized, to dst (of the same length) and clears v.
func (v Vec) Float(dst []float32) {
	for i, x := range v {
		dst[i] = float32(float64(x) / fixedOne)
		v[i] = 0
	}
	Normalize(dst)
}

// NewBuiltin returns the builtin embedder. It keeps scratch space: use one
// per goroutine.
func NewBuiltin() *Builtin { return &Builtin{acc: make(Vec, BuiltinDims)} }

func (*Builtin) Model() string { return BuiltinModel }
func (*Builtin) Dims() int     { return BuiltinDims }

// Embed tokenizes each text and embeds its terms.
func (b *Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	tok := terms.New()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w := map[string]float32{}
		tok.Each(t, func(s string) { w[s]++ })
		acc := make(Vec, BuiltinDims)
		for term, n := range w {
			b.Add(acc, term, TermWeight(term, n))
		}
		v := make([]float32, BuiltinDims)
		acc.Float(v)
		out[i] = v
	}
	return out, nil
}

// Shares of a chunk vector's length given to its name and its signature;
// the body (every term of the chunk's finder snippet) has the rest. A
// field that is empty gives its share to the others.
const (
	nameShare      = 0.3
	signatureShare = 0.2
)

// Chunk embeds a chunk into v (of length BuiltinDims) from the weighted
// term counts of its name, signature and whole snippet. scratch must have
// the same length; it is overwritten.
func (b *Builtin) Chunk(v, scratch []float32, name, signature, body map[string]int) {
	b.bag(b.acc, body)
	b.acc.Float(v)
	scale(v, 1-nameShare-signatureShare)
	for _, f := range []struct {
		terms map[string]int
		share float32
	}{{name, nameShare}, {signature, signatureShare}} {
		if len(f.terms) == 0 {
			continue
		}
		b.bag(b.acc, f.terms)
		b.acc.Float(scratch)
		for i, x := range scratch {
			v[i] += f.share * x
		}
	}
	Normalize(v)
}

func (b *Builtin) bag(v Vec, terms map[string]int) {
	for t, n := range terms {
		b.Add(v, t, TermWeight(t, float32(n)))
	}
}

func scale(v []float32, f float32) {
	for i := range v {
		v[i] *= f
	}
}

// TermWeight is the weight of a term seen n (weighted) times in a chunk.
func TermWeight(term string, n float32) float32 {
	w := 1 + float32(math.Log(float64(max(n, 1))))
	if common()[term] {
		w *= 0.2
	}
	return w
}

// trigramWeight is a trigram's weight relative to its whole term.
const trigramWeight = 0.3

// Add adds term's features, scaled by w, to v (of length BuiltinDims): two
// signed components for the term itself, and one for each character
// trigram of ^term$ (with the boundary marks) when it is long enough to
// have sub-words. Hashing is cheaper than looking the features up in a
// cache (measured).
func (*Builtin) Add(v Vec, term string, w float32) {
	h := fnv(term, 0)
	fw := fixed(w)
	v[h%BuiltinDims] += sign(h>>20) * fw
	v[(h>>32)%BuiltinDims] += sign(h>>52) * fw
	if len(term) < 4 {
		return
	}
	var buf [3]byte
	n := len(term) + 2
	tw := fixed(w * trigramWeight)
	for i := 0; i+3 <= n; i++ {
		for j := 0; j < 3; j++ {
			switch k := i + j; {
			case k == 0:
				buf[j] = '^'
			case k == n-1:
				buf[j] = '$'
			default:
				buf[j] = term[k-1]
			}
		}
		g := fnvBytes(buf[:], 0x9e37)
		v[g%BuiltinDims] += sign(g>>20) * tw
	}
}

func sign(h uint64) int64 {
	if h&1 == 0 {
		return 1
	}
	return -1
}

// fnv is 64-bit FNV-1a of s, seeded; stable across runs and machines.
func fnv(s string, seed uint64) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func fnvBytes(b []byte, seed uint64) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// common are terms nearly every chunk of code has, in some language (built
// on first use, not in every process's init).
var common = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"func", "return", "if", "else", "err", "nil", "var", "const", "def", "self",
		"int", "string", "bool", "true", "fals", "null", "none", "new", "let", "public", "privat", "static",
		"void", "class", "import", "packag", "end", "case", "break", "for", "range", "len", "type", "struct",
		"go", "py", "js", "ts"} {
		m[w] = true
	}
	return m
})
