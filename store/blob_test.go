package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// blobText is n bytes of source-like text, different line by line.
func blobText(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\tx%d := compute(%d) // line %d\n", i, i*7, i)
	}
	return b.Bytes()[:n]
}

// TestBlobRoundTrip checks that a text stored in blocks decodes whole, and
// that a range decodes from the blocks that hold it only.
func TestBlobRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 100, blobBlock - 1, blobBlock, blobBlock + 1, 3*blobBlock + 17, 250 << 10} {
		text := blobText(n)
		raw := unsealedBlob(t, text)
		if got, err := DecodeBlob(raw); err != nil || !bytes.Equal(got, text) {
			t.Fatalf("%d bytes: DecodeBlob = %d bytes, %v", n, len(got), err)
		}
		if got, err := BlobLen(raw); err != nil || got != n {
			t.Fatalf("%d bytes: BlobLen = %d, %v", n, got, err)
		}
		r := rand.New(rand.NewPCG(1, uint64(n)))
		var buf []byte
		for range 50 {
			start := r.IntN(n + 1)
			end := start + r.IntN(4000)
			got, base, err := DecodeBlobRange(buf, raw, start, end)
			if err != nil {
				t.Fatalf("%d bytes: range [%d, %d): %v", n, start, end, err)
			}
			buf = got
			end = min(end, n)
			if start < end && (base > start || base+len(got) < end) {
				t.Fatalf("%d bytes: range [%d, %d) decoded [%d, %d)", n, start, end, base, base+len(got))
			}
			if !bytes.Equal(got, text[base:base+len(got)]) {
				t.Fatalf("%d bytes: range [%d, %d): the text at %d differs", n, start, end, base)
			}
			if len(got) > 2*blobBlock && end-start <= blobBlock {
				t.Fatalf("%d bytes: range [%d, %d) decoded %d bytes, want two blocks at most", n, start, end, len(got))
			}
		}
	}
}

// TestBlobDamage checks that a blob whose header or blocks are damaged
// (past its checksum: a bug, or a checksum that happens to match) gives an
// error that says so, or text of the right length, never a panic. (A
// flipped byte among a block's literals decodes to other text of the same
// length: only the value's checksum, see sealed, tells it from the real.)
func TestBlobDamage(t *testing.T) {
	text := blobText(3*blobBlock + 100)
	raw := unsealedBlob(t, text)
	for i := 0; i < len(raw); i += 1 + i/64 { // every header byte, some of the blocks'
		for _, bit := range []byte{1, 0x80} {
			bad := bytes.Clone(raw)
			bad[i] ^= bit
			got, err := DecodeBlob(bad)
			if err != nil {
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "stored text unreadable") {
					t.Fatalf("byte %d: error %q is not damage", i, err)
				}
				continue
			}
			if len(got) != len(text) {
				t.Fatalf("byte %d: decoded %d bytes without an error, want %d", i, len(got), len(text))
			}
			if _, _, err := DecodeBlobRange(nil, bad, 2*blobBlock, 2*blobBlock+10); err != nil && !errors.Is(err, ErrDamaged) {
				t.Fatalf("byte %d: range error %q", i, err)
			}
		}
	}
	for _, bad := range [][]byte{nil, {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, raw[:10], raw[:len(raw)-1]} {
		if _, err := DecodeBlob(bad); err == nil {
			t.Errorf("DecodeBlob(%d bytes cut) = no error", len(bad))
		}
	}
}

// unsealedBlob is text as stored, less its checksum, which it checks.
func unsealedBlob(t *testing.T, text []byte) []byte {
	t.Helper()
	v := encodeBlob(text)
	if cap(v) != len(v) {
		t.Fatalf("an encoded blob of %d bytes keeps %d bytes of room", len(v), cap(v)-len(v))
	}
	body := v[:len(v)-sumSize]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(v[len(body):]) {
		t.Fatalf("an encoded blob of %d bytes fails its checksum", len(v))
	}
	return body
}

// A header that claims far more text than its blocks hold (each block's
// own header claiming a full block, with nothing after it) costs no more
// memory than the blocks that decode.
func TestForgedBlobHeader(t *testing.T) {
	const n = 1 << 16 // blocks: 1 GiB claimed in 256 KB
	raw := binary.AppendUvarint(nil, n*blobBlock)
	for range n {
		raw = binary.AppendUvarint(raw, 3)
	}
	for range n {
		raw = binary.AppendUvarint(raw, blobBlock) // an s2 block's decoded length, and no data
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeBlob(raw)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("err = %v, want damage", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("decoding a forged header allocated %d bytes", got)
	}
}

// Read through View, a stored text that does not decode is damage to the
// index file: named, with what to do, and noted for the next writer.
func TestBlobDamageThroughView(t *testing.T) {
	db, path := openTest(t)
	err := db.View(func(*Tx) error {
		_, err := DecodeBlob([]byte{0x80})
		return fmt.Errorf("chunk x of a.go: %w", err)
	})
	var de *DamageError
	if !errors.As(err, &de) || de.Path != path || !strings.Contains(err.Error(), "chunk x of a.go: stored text unreadable") ||
		!strings.Contains(err.Error(), "run `dossier index`") {
		t.Fatalf("err = %v", err)
	}
	if !DamageNoted(path) {
		t.Error("the damage is not noted for the next writer")
	}
}

// A chunk's text that does not decode is damage, not "missing": re-indexing
// would not rewrite the unchanged file, a writer that finds the note does.
func TestArtifactOfDamagedText(t *testing.T) {
	db, path := openTest(t)
	c := chunk("a.go", "c"+PathHash("a.go")+"00000001", "h", "X", 0, 1)
	if err := db.Update(func(tx *Tx) error { return tx.ReplaceFile(update("a.go", "x", c)) }); err != nil {
		t.Fatal(err)
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBlobs).Put([]byte("a.go"), sealed([]byte{0x80})) // its checksum holds
	}); err != nil {
		t.Fatal(err)
	}
	err := db.View(func(tx *Tx) error { _, err := tx.Artifact(c); return err })
	var de *DamageError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "text of a.go: stored text unreadable") {
		t.Fatalf("err = %v, want the index's damage", err)
	}
	if !DamageNoted(path) {
		t.Error("the damage is not noted for the next writer")
	}
	// The consistency check of openTest's cleanup would find it too.
	if err := db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketBlobs).Put([]byte("a.go"), encodeBlob([]byte("x"))) }); err != nil {
		t.Fatal(err)
	}
}
