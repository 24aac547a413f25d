package store

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
)

// TestEncodeHoldsItsBytes: an encoded file waits in its batch until the
// commit, so its compressed values must not keep the room compression
// needed (more than the input) beside them.
func TestEncodeHoldsItsBytes(t *testing.T) {
	blob := strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 500)
	u := update("a.go", blob, chunk("a.go", "c1", "h1", "main", 0, len(blob)))
	e, err := Encode(u)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string][]byte{"blob": e.blob, "chunks": e.chunks} {
		if cap(v) != len(v) {
			t.Errorf("%s: %d bytes held for a value of %d", name, cap(v), len(v))
		}
	}
	// And the values are the ones they always were: the chunk list
	// compressed and sealed, the text in blocks (see blob.go), sealed.
	chunks, err := decompress(e.chunks[:len(e.chunks)-sumSize])
	if err != nil || !bytes.Equal(sealed(s2.Encode(nil, chunks)), e.chunks) {
		t.Errorf("chunks value differs from s2.Encode + checksum: %v", err)
	}
	if want := encodeBlob([]byte(blob)); !bytes.Equal(e.blob, want) {
		t.Errorf("blob value differs from encodeBlob")
	}
	got, err := DecodeBlob(e.blob[:len(e.blob)-sumSize])
	if err != nil || string(got) != blob {
		t.Errorf("blob does not round-trip: %v", err)
	}
}
