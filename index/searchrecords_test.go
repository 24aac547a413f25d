package index

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// searchRecords reads each chunk's text where it lies in the file, not
// from a copy: over a file of large chunks, what it allocates (the
// records, the terms) stays well under the file itself.
func TestSearchRecordsViewsTheFile(t *testing.T) {
	ix, err := Open(Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w := ix.newWorker()
	defer w.parsers.Close()
	// One word repeated: its terms and records are small, its text is not.
	body := strings.Repeat("alpha ", 40_000)
	var blob strings.Builder
	var chunks []store.Chunk
	for i := range 8 {
		start := blob.Len()
		fmt.Fprintf(&blob, "func f%d() {\n%s\n}\n", i, body)
		chunks = append(chunks, store.Chunk{ID: fmt.Sprint("c", i), Kind: "function", StartByte: start, EndByte: blob.Len(),
			StartLine: i*3 + 1, EndLine: i*3 + 3})
	}
	data := []byte(blob.String())
	if _, _, _, err := w.searchRecords(1, chunks, data); err != nil { // warms the worker's buffers
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, _, err := w.searchRecords(1, chunks, data); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(data)/4) {
		t.Errorf("searchRecords allocated %d bytes for a file of %d: it copies the chunks' text", got, len(data))
	}
}
