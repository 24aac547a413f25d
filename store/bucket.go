package store

import (
	bolt "go.etcd.io/bbolt"
)

// reader is what a read of a bucket needs: bbolt's bucket for the local
// file, a remote or layered one for a workspace linked to a shared store
// (see layered.go). Writers use the bbolt bucket itself (Tx.b).
type reader interface {
	Get(k []byte) []byte
	ForEach(fn func(k, v []byte) error) error
	Cursor() cursor
	KeyN() int
	// Where names the index for messages: the file's path or the server.
	Where() string
}

// cursor walks a bucket's keys in byte order.
type cursor interface {
	First() (k, v []byte)
	Next() (k, v []byte)
	Seek(seek []byte) (k, v []byte)
}

// boltReader reads a bucket of the local file.
type boltReader struct{ *bolt.Bucket }

func (b boltReader) Cursor() cursor { return b.Bucket.Cursor() }
func (b boltReader) KeyN() int      { return b.Stats().KeyN }
func (b boltReader) Where() string  { return b.Tx().DB().Path() }

// r returns bucket name for reading: the local file's, or the shared
// store's layered under the local overlay.
func (t *Tx) r(name []byte) reader {
	if t.shared != nil {
		return t.shared.bucket(string(name))
	}
	return boltReader{t.tx.Bucket(name)}
}

// where names the index t reads, for messages.
func (t *Tx) where() string {
	if t.shared != nil {
		return t.shared.remote.Describe()
	}
	return t.tx.DB().Path()
}
