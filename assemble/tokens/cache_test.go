package tokens

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeCounter counts its calls, so tests can tell hits from misses.
type fakeCounter struct {
	enc   string
	exact bool
	calls atomic.Int64
}

func (f *fakeCounter) Count(text string) int { f.calls.Add(1); return len(text) }
func (f *fakeCounter) Encoding() string      { return f.enc }
func (f *fakeCounter) Exact() bool           { return f.exact }

func TestCacheHitsAndKeys(t *testing.T) {
	c := NewCache()
	o := &fakeCounter{enc: O200kBase, exact: true}
	cl := &fakeCounter{enc: Cl100kBase, exact: true}
	for range 3 {
		if n := c.Count(o, "hello"); n != 5 {
			t.Fatalf("Count = %d", n)
		}
	}
	if o.calls.Load() != 1 {
		t.Errorf("counter called %d times for one text", o.calls.Load())
	}
	c.Count(cl, "hello")
	if cl.calls.Load() != 1 || c.Len() != 2 {
		t.Errorf("encodings share entries: calls %d, len %d", cl.calls.Load(), c.Len())
	}
	if n := c.CountKey(o, sha256.Sum256([]byte("hello")), "hello"); n != 5 || o.calls.Load() != 1 {
		t.Errorf("CountKey with the text's hash missed: %d, calls %d", n, o.calls.Load())
	}
	c.Count(o, "world")
	if o.calls.Load() != 2 {
		t.Errorf("new text not counted")
	}
	est := &fakeCounter{enc: Estimate}
	c.Count(est, "hello")
	c.Count(est, "hello")
	if est.calls.Load() != 2 || c.Len() != 3 {
		t.Errorf("estimate went through the cache: calls %d, len %d", est.calls.Load(), c.Len())
	}
}

func TestCacheZeroAndNil(t *testing.T) {
	o := &fakeCounter{enc: O200kBase, exact: true}
	var zero Cache
	if zero.Count(o, "abc") != 3 || zero.Count(o, "abc") != 3 || o.calls.Load() != 1 {
		t.Errorf("zero Cache does not cache: calls %d", o.calls.Load())
	}
	var nilCache *Cache
	if nilCache.Count(o, "abcd") != 4 || nilCache.Len() != 0 || nilCache.Save(filepath.Join(t.TempDir(), "x")) != nil {
		t.Error("nil Cache misbehaves")
	}
}

func TestCacheSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "tokens.cache")
	c := NewCache()
	texts := []string{"", "a", "package main\n", strings.Repeat("x", 1000)}
	for _, s := range texts {
		c.Count(o200k, s)
		c.Count(cl100k, s)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(path); err != nil { // overwriting works too
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != c.Len() || got.gen <= 2 {
		t.Fatalf("loaded %d entries gen %d, saved %d", got.Len(), got.gen, c.Len())
	}
	o := &fakeCounter{enc: O200kBase, exact: true}
	for _, s := range texts {
		if n := got.Count(o, s); n != o200k.Count(s) {
			t.Errorf("%q: loaded count %d, want %d", s, n, o200k.Count(s))
		}
	}
	if o.calls.Load() != 0 {
		t.Errorf("loaded cache missed %d times", o.calls.Load())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("save left %d files behind: %v", len(entries), entries)
	}
}

func TestLoadMissing(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "none"))
	if err != nil || c == nil || c.Len() != 0 {
		t.Errorf("Load(missing) = %v, %v", c, err)
	}
}

func TestLoadDamaged(t *testing.T) {
	dir := t.TempDir()
	good := NewCache()
	for i := range 50 {
		good.Count(cl100k, fmt.Sprint(i))
	}
	path := filepath.Join(dir, "good")
	if err := good.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	oldVersion := append([]byte(nil), data...)
	oldVersion[4] = 0
	cases := map[string][]byte{
		"empty":     {},
		"magic":     []byte("hello, world, this is not a cache file"),
		"truncated": data[:len(data)-10],
		"header":    data[:12],
		"flipped":   flipped,
		"version":   oldVersion,
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
		if c == nil || c.Len() != 0 {
			t.Errorf("%s: cache not empty", name)
			continue
		}
		if c.Count(o200k, "still works") != o200k.Count("still works") {
			t.Errorf("%s: cache unusable", name)
		}
	}
	if _, err := Load(dir); err == nil { // a directory is not a cache
		t.Error("Load(dir) gave no error")
	}
}

func FuzzLoad(f *testing.F) {
	c := NewCache()
	c.Count(o200k, "x")
	path := filepath.Join(f.TempDir(), "seed")
	if err := c.Save(path); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add([]byte("DTKC\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "c")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if c == nil || (err != nil && c.Len() != 0) {
			t.Fatalf("Load = %v, %v", c, err)
		}
	})
}

func TestCacheBound(t *testing.T) {
	o := &fakeCounter{enc: O200kBase, exact: true}
	c := NewCache()
	c.limit = 10
	path := filepath.Join(t.TempDir(), "c")
	for i := range 10 {
		c.Count(o, fmt.Sprint("a", i))
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	// Next session: three old entries are used again, five are new.
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c.limit = 10
	used := []string{"a0", "a1", "a2", "b0", "b1", "b2", "b3", "b4"}
	for _, s := range used {
		c.Count(o, s)
	}
	if c.Len() != 15 {
		t.Fatalf("len %d before save", c.Len())
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c.limit = 10
	if c.Len() != 10 {
		t.Errorf("saved %d entries, limit 10", c.Len())
	}
	before := o.calls.Load()
	for _, s := range used {
		c.Count(o, s)
	}
	if missed := o.calls.Load() - before; missed != 0 {
		t.Errorf("%d recently used entries were dropped", missed)
	}

	// In memory the cache never grows past twice its limit.
	for i := range 100 {
		c.Count(o, fmt.Sprint("c", i))
		if c.Len() > 20 {
			t.Fatalf("%d entries in memory, limit 10", c.Len())
		}
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := NewCache()
	path := filepath.Join(t.TempDir(), "c")
	files := corpus(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for name, text := range files {
				if got, want := c.Count(o200k, text), o200k.Count(text); got != want {
					t.Errorf("%s: %d, want %d", name, got, want)
				}
				if g == 0 {
					if err := c.Save(path); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if c.Len() != len(files) {
		t.Errorf("%d entries for %d texts", c.Len(), len(files))
	}
}

func TestHashText(t *testing.T) {
	for _, s := range []string{"", "a", strings.Repeat("xyz", 1000)} {
		if hashText(s) != sha256.Sum256([]byte(s)) {
			t.Errorf("hashText(%d bytes) differs from sha256", len(s))
		}
	}
}
