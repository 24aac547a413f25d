package store

import (
	"encoding/binary"
	"hash/crc32"
)

// The per-file values that drive results (chunk lists, texts, search and
// vector records) end in a CRC-32C of the rest, big endian: bbolt checks
// its meta pages only, so a damaged value would otherwise give different
// results without a word. Accessors check it and hand out the value
// without it.

// castagnoli is the CRC-32C table; hash/crc32 uses the CPU's instruction
// for it where there is one.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const sumSize = 4

// seal returns v followed by its checksum, in a new slice.
func seal(v []byte) []byte {
	out := make([]byte, len(v), len(v)+sumSize)
	copy(out, v)
	return sealed(out)
}

// sealed appends v's checksum to v itself, which the caller owns.
func sealed(v []byte) []byte {
	return binary.BigEndian.AppendUint32(v, crc32.Checksum(v, castagnoli))
}

// unseal checks the checksum of the value of k in bucket and returns the
// value without it (a subslice: it stays valid as long as v does).
func (t *Tx) unseal(bucket, k, v []byte) ([]byte, error) {
	if len(v) < sumSize {
		return nil, damaged(t.where(), "the %s value of %q is %d bytes, too short to hold its checksum", bucket, k, len(v))
	}
	body := v[:len(v)-sumSize]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(v[len(body):]) {
		return nil, damaged(t.where(), "the %s value of %q fails its checksum", bucket, k)
	}
	return body, nil
}

// mustUnseal is unseal for accessors without an error result: damage
// panics with the *DamageError, which View and Update return as their
// error (see guard).
func (t *Tx) mustUnseal(bucket, k, v []byte) []byte {
	if v == nil {
		return nil
	}
	body, err := t.unseal(bucket, k, v)
	if err != nil {
		panic(err)
	}
	return body
}
