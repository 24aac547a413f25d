package tokens

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

// httpSource returns ~1.6 MB of real Go: whole files of the toolchain's
// net/http, in name order.
func httpSource(b *testing.B) string {
	b.Helper()
	root := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	paths, _ := filepath.Glob(filepath.Join(root, "src", "net", "http", "*.go"))
	sort.Strings(paths)
	var sb strings.Builder
	for _, p := range paths {
		if sb.Len() >= 1_600_000 {
			break
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sb.Write(data)
	}
	if sb.Len() < 1_000_000 {
		b.Skipf("only %d bytes of Go source under %s", sb.Len(), root)
	}
	return sb.String()
}

func BenchmarkCount(b *testing.B) {
	src := httpSource(b)
	for _, c := range exactCounters() {
		b.Run(c.name, func(b *testing.B) {
			c.load()
			b.SetBytes(int64(len(src)))
			n := 0
			for b.Loop() {
				n = c.Count(src)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(float64(n), "tokens")
		})
	}
}

// BenchmarkTiktokenGo is the same work through tiktoken-go's own Count,
// for comparison (its counts differ slightly; see
// TestUpstreamGeneratedMatcherDiffers).
func BenchmarkTiktokenGo(b *testing.B) {
	src := httpSource(b)
	for name, c := range map[string]*codec.Codec{O200kBase: codec.NewO200kBase(), Cl100kBase: codec.NewCl100kBase()} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := c.Count(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoad is the one-time cost of building a vocabulary.
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		b.Run(name, func(b *testing.B) {
			vocab := &o200kVocab
			if name == Cl100kBase {
				vocab = &cl100kVocab
			}
			for b.Loop() {
				c := &bpeCounter{name: name, next: nextO200k, vocab: vocab}
				c.load()
			}
		})
	}
}

// BenchmarkCacheHit is the cost of a count the cache already holds, for a
// 4 KB text: with hashing (Count) and with the caller's hash (CountKey).
func BenchmarkCacheHit(b *testing.B) {
	text := strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 120)[:4096]
	c := NewCache()
	c.Count(o200k, text)
	b.Run("Count", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			c.Count(o200k, text)
		}
	})
	key := sha256.Sum256([]byte(text))
	b.Run("CountKey", func(b *testing.B) {
		for b.Loop() {
			c.CountKey(o200k, key, text)
		}
	})
	b.Run("miss-o200k", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			o200k.Count(text)
		}
	})
}
