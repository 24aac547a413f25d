package search

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/store"
)

// maxMatchesPerFile bounds the work one file can cause.
const maxMatchesPerFile = 1000

// regex finds the chunks whose text matches pattern, in path and line
// order, one hit per chunk with its first matching line. Like ripgrep, the
// pattern is case-insensitive unless it has an upper-case letter. Files are
// searched in path order, a batch at a time across the cores, and the
// search stops once the batches done hold limit hits: the rest could only
// come after them.
func (v *view) regex(pattern string, f filter, limit int) ([]hit, error) {
	expr := pattern
	if !hasUpper(pattern) {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil, badQuery("bad regular expression %q: %v", pattern, err)
	}
	pf := newPrefilter(expr)
	type file struct {
		path string
		raw  []byte
	}
	var files []file
	// A shared store sends only the texts that may match (see
	// store.RawBlobsFor); the expression runs on them here.
	err = v.tx.RawBlobsFor(pf.byTrigram(), f.path, func(p string, raw []byte) error {
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
	workers := runtime.GOMAXPROCS(0)
	// Each worker's scratch: decoded text and its lower-cased copy.
	texts, lower := make([][]byte, workers), make([][]byte, workers)
	var hits []hit
	for start := 0; start < len(files) && len(hits) < limit; start += regexBatch {
		batch := files[start:min(start+regexBatch, len(files))]
		found := make([]match, len(batch))
		scan := func(i, w int) {
			text, err := store.DecodeBlobInto(texts[w], batch[i].raw)
			if err != nil {
				found[i].err = fmt.Errorf("text of %s: %w", batch[i].path, err)
				return
			}
			texts[w] = text
			if !pf.match(text, &lower[w]) {
				return
			}
			for _, loc := range re.FindAllIndex(text, maxMatchesPerFile) {
				found[i].offsets = append(found[i].offsets, loc[0])
			}
			if len(found[i].offsets) > 0 {
				found[i].text = slices.Clone(text) // the buffer is reused
			}
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				i := w
				// The raw texts point into the mapped file: a fault
				// there must not take the process down.
				if err := v.tx.Guard(func() error {
					for ; i < len(batch); i += workers {
						scan(i, w)
					}
					return nil
				}); err != nil && i < len(batch) {
					found[i].err = err
				}
			})
		}
		wg.Wait()
		for i, m := range found {
			if m.err != nil {
				return nil, m.err
			}
			if len(m.offsets) == 0 {
				continue
			}
			metas, err := v.fileMetas(batch[i].path)
			if err != nil {
				return nil, err
			}
			seen := map[int]bool{}
			lineNo, counted := 1, 0     // line numbers, counted up to the offsets in order
			var found []secrets.Finding // the file's, once a hit needs them
			scanned := false
			for _, off := range m.offsets {
				ord := chunkAt(metas, off)
				if ord < 0 || seen[ord] || !f.kind(metas[ord].Kind, metas[ord].SrcType) {
					continue
				}
				seen[ord] = true
				var line string
				if metas[ord].Secrets {
					if !scanned {
						found, scanned = secrets.Scan(batch[i].path, string(m.text)), true
					}
					line = maskedLineAt(found, m.text, off)
				} else {
					line = LineAt(m.text, off)
				}
				lineNo += bytes.Count(m.text[counted:off], newline)
				counted = off
				hits = append(hits, hit{key: key{batch[i].path, ord}, score: 1, raw: 1, line: line, lineNo: lineNo})
			}
		}
	}
	return hits, nil
}

var newline = []byte{'\n'}

// regexBatch is how many files a regex search takes at a time between
// checks for enough hits.
const regexBatch = 256

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

// LineAt is the line of text holding byte off, trimmed and clipped to 160
// bytes (on a rune boundary, marked with "…").
func LineAt(text []byte, off int) string {
	start, end := lineBounds(text, off)
	return clip(strings.TrimSpace(string(text[start:end])), 160)
}

// lineBounds are the start and end (before its newline) of the line holding
// byte off.
func lineBounds(text []byte, off int) (start, end int) {
	start = bytes.LastIndexByte(text[:off], '\n') + 1
	end = bytes.IndexByte(text[off:], '\n')
	if end < 0 {
		return start, len(text)
	}
	return start, end + off
}

// maskedLineAt is LineAt with the secrets of the line masked; found are the
// whole text's, since a secret may span lines or the clip.
func maskedLineAt(found []secrets.Finding, text []byte, off int) string {
	start, end := lineBounds(text, off)
	line := secrets.Mask(string(text[start:end]), secrets.Shift(found, start, end, 1))
	return clip(strings.TrimSpace(line), 160)
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}
