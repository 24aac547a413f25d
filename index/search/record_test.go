package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"

	"github.com/dossierhq/dossier/index/terms"
	"github.com/dossierhq/dossier/store"
)

// TestRecordHoldsItsBytes: a search record waits in its batch until the
// commit, so it must not keep the room compression needed beside it; and
// a writer reused from file to file writes each record as a fresh one does.
func TestRecordHoldsItsBytes(t *testing.T) {
	tok := terms.New()
	// Many distinct terms sharing a prefix: a record that compresses.
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "handler%c%c%c ", 'A'+i%26, 'a'+i/26%26, 'a'+i/3%26)
	}
	texts := []string{b.String(), strings.Repeat("package a\n", 50)}
	var reused RecordWriter
	for _, text := range texts {
		c := store.Chunk{ID: "c1", Path: "a.go", Kind: "function", Symbol: "readFile", EndByte: len(text), Finder: "symbol: readFile"}
		var fresh RecordWriter
		for _, w := range []*RecordWriter{&reused, &fresh} {
			w.Begin(7, 1)
			w.Add(tok, &c, text)
		}
		rec, want := reused.Record(), fresh.Record()
		if !bytes.Equal(rec, want) || !bytes.Equal(rec, s2.Encode(nil, fresh.buf)) {
			t.Fatalf("record of %.20q differs between a reused writer, a fresh one and s2.Encode", text)
		}
		if cap(rec) > len(rec)+len(rec)/8+16 {
			t.Errorf("a record of %d bytes holds %d (the room to compress into)", len(rec), cap(rec))
		}
		if _, err := DecodeRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
}
