package store

import (
	"encoding/json"
)

// What dependency expansion (index/related) reads: every file's imports, to
// build the reverse import map per query, and single texts still encoded, so
// a caller scan can decode many files in parallel after one sequential read.

// EachImports calls fn with the import specs of every file that has any and
// that keep accepts, in path order. keep sees only the path, so files of
// other languages cost no decoding; a nil keep accepts every file.
func (t *Tx) EachImports(keep func(path string) bool, fn func(path string, imports []string) error) error {
	return t.r(bucketImports).ForEach(func(k, v []byte) error {
		path := string(k)
		if keep != nil && !keep(path) {
			return nil
		}
		var imps []string
		if err := json.Unmarshal(v, &imps); err != nil {
			return undecodable(t.r(bucketImports), k, err)
		}
		return fn(path, imps)
	})
}

// RawBlob returns path's text still compressed (see DecodeBlob), or nil. It
// is valid until the transaction ends; decoding may run in other goroutines,
// reading the bucket may not.
// A damaged value ends the transaction with an error wrapping ErrDamaged.
func (t *Tx) RawBlob(path string) []byte {
	k := []byte(path)
	return t.mustUnseal(bucketBlobs, k, t.r(bucketBlobs).Get(k))
}
