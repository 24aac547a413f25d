package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/klauspost/compress/s2"
)

// A file's text (bucketBlobs) is stored in blocks of blobBlock bytes, each
// compressed on its own, so a reader that needs one chunk's lines decodes
// the block or two that hold them, not the whole file: a search's best
// lines decoded each result's whole file, up to 250 KB, into fresh memory.
//
// The value, before its checksum (see sealed):
//
//	uvarint  length of the text
//	uvarint  compressed length of each block, ceil(length/blobBlock) of them
//	the blocks, each an s2 block of blobBlock bytes of text (the last shorter)
const blobBlock = 16 << 10

// maxBlobText bounds the length a blob's header may claim (a damaged one
// could claim any): no bbolt value is longer, and an int holds it on
// every platform.
const maxBlobText = math.MaxInt32

// encodeBlob returns text in the layout above, sealed (see sealed), in a
// slice of its own length.
func encodeBlob(text []byte) []byte {
	n := (len(text) + blobBlock - 1) / blobBlock
	need := 0
	for i := range n {
		need += s2.MaxEncodedLen(min(blobBlock, len(text)-i*blobBlock))
	}
	buf := scratch.Get().(*[]byte)
	defer scratch.Put(buf)
	if cap(*buf) < need {
		*buf = make([]byte, need)
	}
	data := (*buf)[:0]
	var head []byte
	head = binary.AppendUvarint(head, uint64(len(text)))
	for i := range n {
		block := text[i*blobBlock : min((i+1)*blobBlock, len(text))]
		enc := s2.Encode(data[len(data):cap(data)], block)
		data = data[:len(data)+len(enc)]
		head = binary.AppendUvarint(head, uint64(len(enc)))
	}
	out := make([]byte, 0, len(head)+len(data)+sumSize)
	return sealed(append(append(out, head...), data...))
}

// blobLayout is where the blocks of a stored text lie.
type blobLayout struct {
	size int   // length of the text
	head int   // end of the header: where block 0 starts
	ends []int // end of each compressed block in the value
}

// parseBlob reads the header of raw (a value RawBlob handed out).
func parseBlob(raw []byte) (blobLayout, error) {
	size, k := binary.Uvarint(raw)
	if k <= 0 || size > maxBlobText {
		return blobLayout{}, blobDamaged("its length is unreadable")
	}
	n := (int(size) + blobBlock - 1) / blobBlock
	if 2*n > len(raw) { // a block takes a byte of header and two at least
		return blobLayout{}, blobDamaged("it is too short for its blocks")
	}
	l := blobLayout{size: int(size), ends: make([]int, n)}
	at := k
	for i := range n {
		v, k := binary.Uvarint(raw[at:])
		if k <= 0 || v > uint64(len(raw)) {
			return blobLayout{}, blobDamaged(fmt.Sprintf("the length of block %d is unreadable", i))
		}
		l.ends[i], at = int(v), at+k
	}
	l.head = at
	for i := range n {
		at += l.ends[i]
		l.ends[i] = at
	}
	if at != len(raw) {
		return blobLayout{}, blobDamaged("its blocks do not fill it")
	}
	return l, nil
}

// blobDamage is a stored text that does not decode. It wraps ErrDamaged;
// View and Update, which know the index file, make it a DamageError.
type blobDamage struct{ what string }

func (e *blobDamage) Error() string { return "stored text unreadable: " + e.what }
func (e *blobDamage) Unwrap() error { return ErrDamaged }

func blobDamaged(what string) error { return &blobDamage{what} }

// decode decompresses blocks [from, to) of raw into dst, which holds
// exactly their text.
func (l blobLayout) decode(dst, raw []byte, from, to int) error {
	for i := from; i < to; i++ {
		begin := l.head
		if i > 0 {
			begin = l.ends[i-1]
		}
		block := raw[begin:l.ends[i]]
		want := min(blobBlock, l.size-i*blobBlock)
		if n, err := s2.DecodedLen(block); err != nil || n != want {
			return blobDamaged(fmt.Sprintf("block %d does not hold %d bytes", i, want))
		}
		if _, err := s2.Decode(dst[(i-from)*blobBlock:][:want], block); err != nil {
			return blobDamaged(fmt.Sprintf("block %d: %v", i, err))
		}
	}
	return nil
}

// BlobLen returns the length of the text in raw (a value RawBlob handed
// out) without decoding it.
func BlobLen(raw []byte) (int, error) {
	size, k := binary.Uvarint(raw)
	if k <= 0 || size > maxBlobText {
		return 0, blobDamaged("its length is unreadable")
	}
	return int(size), nil
}

// DecodeBlob decompresses a value RawBlob or RawBlobs handed out.
func DecodeBlob(raw []byte) ([]byte, error) { return DecodeBlobInto(nil, raw) }

// DecodeBlobInto decompresses a value RawBlob or RawBlobs handed out into
// buf when it is large enough (a scan over many files reuses one buffer).
func DecodeBlobInto(buf, raw []byte) ([]byte, error) {
	l, err := parseBlob(raw)
	if err != nil {
		return nil, err
	}
	if cap(buf) >= l.size {
		buf = buf[:l.size]
		if err := l.decode(buf, raw, 0, len(l.ends)); err != nil {
			return nil, err
		}
		return buf, nil
	}
	// Grown as the blocks decode, not to the length the header claims: a
	// damaged header (one the checksum missed) may claim thousands of
	// times what its blocks hold.
	buf = buf[:0]
	for i := range l.ends {
		want := min(blobBlock, l.size-i*blobBlock)
		buf = slices.Grow(buf, want)
		if err := l.decode(buf[len(buf):len(buf)+want], raw, i, i+1); err != nil {
			return nil, err
		}
		buf = buf[:len(buf)+want]
	}
	return buf, nil
}

// DecodeBlobRange decompresses the blocks of raw (a value RawBlob handed
// out) that hold bytes [start, end) of its text into buf when it is large
// enough. It returns their text and where that text starts in the file's;
// start and end are clipped to the text.
func DecodeBlobRange(buf, raw []byte, start, end int) ([]byte, int, error) {
	l, err := parseBlob(raw)
	if err != nil {
		return nil, 0, err
	}
	start, end = max(0, min(start, l.size)), max(0, min(end, l.size))
	if start >= end {
		return buf[:0], start, nil
	}
	from, to := start/blobBlock, (end+blobBlock-1)/blobBlock
	size := BlobRangeLen(l.size, start, end)
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if err := l.decode(buf, raw, from, to); err != nil {
		return nil, 0, err
	}
	return buf, from * blobBlock, nil
}

// BlobRangeLen is the length of the text DecodeBlobRange returns for bytes
// [start, end) of a text of size bytes (0 <= start < end <= size): that of
// the blocks that hold them.
func BlobRangeLen(size, start, end int) int {
	return min((end+blobBlock-1)/blobBlock*blobBlock, size) - start/blobBlock*blobBlock
}
