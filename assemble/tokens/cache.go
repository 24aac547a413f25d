package tokens

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/dossierhq/dossier/store/fsafe"
)

// MaxCacheEntries bounds a Cache. 100k entries are ~4 MB on disk; beyond
// that the least recently used are dropped.
const MaxCacheEntries = 100_000

// Cache remembers token counts by content, so unchanged text is never
// counted twice, across runs when loaded from and saved to a file. Entries
// are keyed by (encoding, SHA-256 of the text). A Cache is safe for
// concurrent use. The zero value is an empty cache; so is a nil *Cache, which
// counts without caching and saves nothing.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	// gen counts saves over the cache's life (it is stored in the file).
	// An entry's used is the gen it was last counted or hit in, so entries
	// not used since an earlier Save are the first to go.
	gen   uint32
	limit int
}

type cacheKey struct {
	enc uint8 // index into cacheEncodings
	sum [32]byte
}

type cacheEntry struct {
	tokens uint32
	used   uint32
}

// cacheEncodings numbers the encodings in memory; the file stores names,
// so the numbering may change between versions.
var cacheEncodings = []string{O200kBase, Cl100kBase}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{entries: map[cacheKey]cacheEntry{}, gen: 1, limit: MaxCacheEntries}
}

// initLocked makes the zero value usable.
func (c *Cache) initLocked() {
	if c.entries == nil {
		c.entries = map[cacheKey]cacheEntry{}
	}
	if c.limit <= 0 {
		c.limit = MaxCacheEntries
	}
}

// Len is the number of counts held.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Count returns counter.Count(text), from the cache when it has seen text
// in counter's encoding before. counter must not be nil.
func (c *Cache) Count(counter Counter, text string) int {
	if c == nil || !cacheable(counter) {
		return counter.Count(text)
	}
	return c.CountKey(counter, hashText(text), text)
}

// hashText is sha256.Sum256([]byte(text)) without copying text: Sum256
// only reads its argument.
func hashText(text string) [32]byte {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text)))
}

// CountKey is Count for callers that already hold key = sha256.Sum256 of
// text, so the text is not hashed twice. A key that is not text's hash
// returns whatever was cached under it.
func (c *Cache) CountKey(counter Counter, key [32]byte, text string) int {
	enc, ok := encodingIndex(counter)
	if c == nil || !ok || !counter.Exact() {
		return counter.Count(text)
	}
	k := cacheKey{enc, key}
	c.mu.Lock()
	c.initLocked()
	if e, ok := c.entries[k]; ok {
		e.used = c.gen
		c.entries[k] = e
		c.mu.Unlock()
		return int(e.tokens)
	}
	c.mu.Unlock()

	// Count unlocked: a long text must not stall other goroutines' hits.
	// Two goroutines may count the same text; both store the same value.
	n := counter.Count(text)
	c.mu.Lock()
	c.entries[k] = cacheEntry{tokens: uint32(min(uint64(n), math.MaxUint32)), used: c.gen}
	if len(c.entries) > 2*c.limit {
		c.trimLocked(c.limit)
	}
	c.mu.Unlock()
	return n
}

// cacheable reports whether counting through the cache pays: the estimate
// is cheaper than hashing.
func cacheable(counter Counter) bool {
	_, ok := encodingIndex(counter)
	return ok && counter.Exact()
}

func encodingIndex(counter Counter) (uint8, bool) {
	if counter == nil {
		return 0, false
	}
	i := slices.Index(cacheEncodings, counter.Encoding())
	return uint8(i), i >= 0
}

// trimLocked keeps the limit most recently used entries. Ties (same
// generation) are broken by key so that what survives is deterministic.
func (c *Cache) trimLocked(limit int) {
	if len(c.entries) <= limit {
		return
	}
	type kv struct {
		k cacheKey
		e cacheEntry
	}
	all := make([]kv, 0, len(c.entries))
	for k, e := range c.entries {
		all = append(all, kv{k, e})
	}
	slices.SortFunc(all, func(a, b kv) int {
		if a.e.used != b.e.used {
			return cmp.Compare(b.e.used, a.e.used) // newest first
		}
		if a.k.enc != b.k.enc {
			return int(a.k.enc) - int(b.k.enc)
		}
		return bytes.Compare(a.k.sum[:], b.k.sum[:])
	})
	for _, x := range all[limit:] {
		delete(c.entries, x.k)
	}
}

// The file is little-endian:
//
//	magic "DTKC", version u8 = 1, gen u32,
//	encodings u8, then per encoding: name length u8, name,
//	entries u32, then per entry: encoding u8, sha256 [32]byte, tokens u32, used u32,
//	crc32 (IEEE) of everything before it.
const (
	cacheMagic   = "DTKC"
	cacheVersion = 1
	entrySize    = 1 + 32 + 4 + 4
	// maxCacheFile refuses absurd files before reading them whole.
	maxCacheFile = 64 << 20
)

// Load reads a cache written by Save. It always returns a usable cache: a
// missing file gives an empty one and a nil error, since the first run has
// none. A file that cannot be read, is truncated, corrupt, or from another
// version also gives an empty cache, together with an error saying so: the
// error is a warning for the caller to print, never a reason to stop, as
// counts are only recomputed. The next Save replaces the bad file.
func Load(path string) (*Cache, error) {
	c := NewCache()
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("token cache: %w; counting afresh", err)
	}
	if info.Size() > maxCacheFile {
		return c, fmt.Errorf("token cache %s: %d bytes is too large for a cache; ignoring it, delete it to stop this warning", path, info.Size())
	}
	data, err := fsafe.ReadFile(path, maxCacheFile)
	if err != nil {
		return c, fmt.Errorf("token cache: %w; counting afresh", err)
	}
	if err := c.decode(data); err != nil {
		c.entries = map[cacheKey]cacheEntry{}
		c.gen = 1
		return c, fmt.Errorf("token cache %s: %w; ignoring it, it will be rewritten", path, err)
	}
	return c, nil
}

func (c *Cache) decode(data []byte) error {
	if len(data) < len(cacheMagic)+1+4+1+4+4 || string(data[:len(cacheMagic)]) != cacheMagic {
		return errors.New("not a token cache file")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if v := data[len(cacheMagic)]; v != cacheVersion {
		return fmt.Errorf("unsupported version %d (want %d)", v, cacheVersion)
	}
	if crc32.ChecksumIEEE(body) != sum {
		return errors.New("checksum mismatch (truncated or damaged)")
	}
	p := body[len(cacheMagic)+1:]
	gen := binary.LittleEndian.Uint32(p)
	nenc := int(p[4])
	p = p[5:]
	// encs maps the file's encoding numbers to ours; -1 for encodings this
	// version does not know, whose entries are skipped.
	encs := make([]int, nenc)
	for i := range encs {
		if len(p) < 1 || len(p) < 1+int(p[0]) {
			return errors.New("truncated encoding table")
		}
		encs[i] = slices.Index(cacheEncodings, string(p[1:1+int(p[0])]))
		p = p[1+int(p[0]):]
	}
	if len(p) < 4 {
		return errors.New("truncated entry count")
	}
	n := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(len(p)) != uint64(n)*entrySize {
		return fmt.Errorf("%d bytes of entries for %d entries", len(p), n)
	}
	entries := make(map[cacheKey]cacheEntry, n)
	for ; len(p) > 0; p = p[entrySize:] {
		if int(p[0]) >= nenc {
			return fmt.Errorf("entry names encoding %d of %d", p[0], nenc)
		}
		enc := encs[p[0]]
		if enc < 0 {
			continue
		}
		var k cacheKey
		k.enc = uint8(enc)
		copy(k.sum[:], p[1:33])
		entries[k] = cacheEntry{
			tokens: binary.LittleEndian.Uint32(p[33:]),
			used:   binary.LittleEndian.Uint32(p[37:]),
		}
	}
	c.entries = entries
	// Counts used from now on are newer than everything loaded.
	c.gen = gen + 1
	return nil
}

// Save writes the cache to path atomically (a temporary file in the same
// directory, then rename), creating the directory if needed. Over
// MaxCacheEntries, the entries used least recently are dropped first:
// those not used since the previous Save. Counts used after this Save are
// recorded as newer than everything in it.
func (c *Cache) Save(path string) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	c.initLocked()
	c.trimLocked(c.limit)
	data := c.encodeLocked()
	c.gen++
	c.mu.Unlock()

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save token cache: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tokens-cache-*.tmp")
	if err != nil {
		return fmt.Errorf("save token cache: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save token cache: %w", err)
	}
	return nil
}

func (c *Cache) encodeLocked() []byte {
	size := len(cacheMagic) + 1 + 4 + 1 + 4 + len(c.entries)*entrySize + 4
	for _, e := range cacheEncodings {
		size += 1 + len(e)
	}
	b := make([]byte, 0, size)
	b = append(b, cacheMagic...)
	b = append(b, cacheVersion)
	b = binary.LittleEndian.AppendUint32(b, c.gen)
	b = append(b, uint8(len(cacheEncodings)))
	for _, e := range cacheEncodings {
		b = append(b, uint8(len(e)))
		b = append(b, e...)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(c.entries)))
	keys := make([]cacheKey, 0, len(c.entries))
	for k := range c.entries {
		keys = append(keys, k)
	}
	// Sorted, so the same cache always writes the same bytes.
	slices.SortFunc(keys, func(a, b cacheKey) int {
		if a.enc != b.enc {
			return int(a.enc) - int(b.enc)
		}
		return bytes.Compare(a.sum[:], b.sum[:])
	})
	for _, k := range keys {
		e := c.entries[k]
		b = append(b, k.enc)
		b = append(b, k.sum[:]...)
		b = binary.LittleEndian.AppendUint32(b, e.tokens)
		b = binary.LittleEndian.AppendUint32(b, e.used)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}
