package store

import (
	"testing"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkScanValues reads every text, search and vector record of an
// index as a regex or vector scan does: checked (the accessors) against
// bbolt's raw values (the cost of the checksums is the difference).
//
//	go test -run '^$' -bench ScanValues -count 5 ./store/
func BenchmarkScanValues(b *testing.B) {
	path := filledB(b, 400)
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	size := 0
	db.View(func(tx *Tx) error {
		for _, name := range [][]byte{bucketBlobs, bucketSearch, bucketVectors} {
			tx.b(name).ForEach(func(_, v []byte) error { size += len(v); return nil })
		}
		return nil
	})
	b.Run("checked", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			db.View(func(tx *Tx) error {
				fn := func(string, []byte) error { return nil }
				tx.RawBlobs(fn)
				tx.SearchRecords(fn)
				return tx.VectorRecords(fn)
			})
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			db.bolt.View(func(tx *bolt.Tx) error {
				for _, name := range [][]byte{bucketBlobs, bucketSearch, bucketVectors} {
					tx.Bucket(name).ForEach(func(_, v []byte) error { return nil })
				}
				return nil
			})
		}
	})
}
