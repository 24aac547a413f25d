package related

import (
	"hash/maphash"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/dossierhq/dossier/index/xref"
)

// xcacheSize bounds the files whose xref facts outlive an expansion: the
// workbench, gather and ask expand several targets over the same files.
const xcacheSize = 1024

// xcacheKey names a file's facts by its path, its text and how much was
// read, so that an edited file is parsed again.
type xcacheKey struct {
	path string
	sum  uint64
	defs bool
}

var (
	xcacheSeed = maphash.MakeSeed()
	xcache, _  = lru.New[xcacheKey, *xref.File](xcacheSize)
)

// cachedParse returns the facts of text (defs: definitions alone), from
// the cache or parsed now. The facts are shared: never modified.
func cachedParse(p, language string, text []byte, defs bool) *xref.File {
	k := xcacheKey{p, maphash.Bytes(xcacheSeed, text), defs}
	if x, ok := xcache.Get(k); ok {
		return x
	}
	parse := xref.Parse
	if defs {
		parse = xref.ParseDefs
	}
	x, err := parse(language, text)
	if err != nil {
		return nil
	}
	xcache.Add(k, x)
	return x
}
