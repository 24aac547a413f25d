package store

// EachFramework calls fn with every file's framework facts (see
// FileUpdate.Framework), in path order. data is valid only during the
// call; fn copies what it keeps.
func (t *Tx) EachFramework(fn func(path string, data []byte) error) error {
	b := t.r(bucketFramework)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error { return fn(string(k), v) })
}
