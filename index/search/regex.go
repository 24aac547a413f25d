package search

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unicode"

	"github.com/dossierhq/dossier/store"
)

// maxMatchesPerFile bounds the work one file can cause.
const maxMatchesPerFile = 1000

// regex finds the chunks whose text matches pattern, in path and line
// order, one hit per chunk with its first matching line. Like ripgrep, the
// pattern is case-insensitive unless it has an upper-case letter.
func (v *view) regex(pattern string, f filter, limit int) ([]hit, error) {
	expr := pattern
	if !hasUpper(pattern) {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %v", pattern, err)
	}
	type file struct {
		path string
		raw  []byte
	}
	var files []file
	err = v.tx.RawBlobs(func(p string, raw []byte) error {
		if f.path(p) {
			files = append(files, file{p, raw})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	type match struct {
		offsets []int // byte offset of each match
		text    []byte
		err     error
	}
	found := make([]match, len(files))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(files); i += workers {
				text, err := store.DecodeBlob(files[i].raw)
				if err != nil {
					found[i].err = fmt.Errorf("text of %s: %w", files[i].path, err)
					continue
				}
				for _, loc := range re.FindAllIndex(text, maxMatchesPerFile) {
					found[i].offsets = append(found[i].offsets, loc[0])
				}
				if len(found[i].offsets) > 0 {
					found[i].text = text
				}
			}
		}(w)
	}
	wg.Wait()
	var hits []hit
	for i, m := range found {
		if m.err != nil {
			return nil, m.err
		}
		if len(m.offsets) == 0 {
			continue
		}
		metas, err := v.fileMetas(files[i].path)
		if err != nil {
			return nil, err
		}
		seen := map[int]bool{}
		for _, off := range m.offsets {
			ord := chunkAt(metas, off)
			if ord < 0 || seen[ord] || !f.kind(metas[ord].Kind, metas[ord].SrcType) {
				continue
			}
			seen[ord] = true
			hits = append(hits, hit{key: key{files[i].path, ord}, score: 1, line: lineAt(m.text, off)})
		}
		if len(hits) >= limit*4 {
			break // enough for any cut the caller makes, in path order
		}
	}
	return hits, nil
}

// chunkAt is the smallest chunk that is a span of the file holding offset
// (outlines only when nothing else does), or -1.
func chunkAt(chunks []*Meta, off int) int {
	best, bestOutline := -1, -1
	for i, c := range chunks {
		if off < c.StartByte || off >= c.EndByte {
			continue
		}
		if c.Outline {
			if bestOutline < 0 {
				bestOutline = i
			}
			continue
		}
		if best < 0 || c.EndByte-c.StartByte < chunks[best].EndByte-chunks[best].StartByte {
			best = i
		}
	}
	if best < 0 {
		return bestOutline
	}
	return best
}

func lineAt(text []byte, off int) string {
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	end := bytes.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	return clip(strings.TrimSpace(string(text[start:end])), 160)
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}
