package store

import (
	"context"
	"sync"
)

// lazyRemote opens a link's snapshot at its first read: a search whose
// reads the workspace's cache answers (see remotecache.go) never connects
// to the server, which costs a one-shot process more than its search.
type lazyRemote struct {
	ctx  context.Context
	link Link
	once sync.Once
	r    Remote
	err  error
	// cache is the workspace's cache of the snapshot (set by openShared).
	cache *remoteCache
}

func (z *lazyRemote) open() (Remote, error) {
	z.once.Do(func() { z.r, z.err = OpenRemote(z.ctx, z.link) })
	return z.r, z.err
}

func (z *lazyRemote) Get(ctx context.Context, bucket string, key []byte) ([]byte, error) {
	r, err := z.open()
	if err != nil {
		return nil, err
	}
	return r.Get(ctx, bucket, key)
}

func (z *lazyRemote) Size(ctx context.Context, bucket string, key []byte) (int, error) {
	r, err := z.open()
	if err != nil {
		return 0, err
	}
	return r.Size(ctx, bucket, key)
}

func (z *lazyRemote) GetRange(ctx context.Context, bucket string, key []byte, off, n int) ([]byte, error) {
	r, err := z.open()
	if err != nil {
		return nil, err
	}
	return r.GetRange(ctx, bucket, key, off, n)
}

func (z *lazyRemote) Scan(ctx context.Context, bucket string, from []byte, want int, fn func(k, v []byte) bool) error {
	r, err := z.open()
	if err != nil {
		return err
	}
	return r.Scan(ctx, bucket, from, want, fn)
}

func (z *lazyRemote) Count(ctx context.Context, bucket string) (int, error) {
	r, err := z.open()
	if err != nil {
		return 0, err
	}
	return r.Count(ctx, bucket)
}

// Nearest asks the server, unless it said once that it has no vectors
// (kept in the workspace's cache with the snapshot's other answers).
func (z *lazyRemote) Nearest(ctx context.Context, model string, q []float32, k int, prefix string) ([]VectorHit, bool, error) {
	if z.cache != nil {
		if _, none := z.cache.get("novectors\x00" + model); none {
			return nil, false, nil
		}
	}
	r, err := z.open()
	if err != nil {
		return nil, false, err
	}
	hits, ok, err := r.Nearest(ctx, model, q, k, prefix)
	if err == nil && !ok && z.cache != nil {
		z.cache.put("novectors\x00"+model, []byte{})
	}
	return hits, ok, err
}

// Generation is the snapshot's id, which the link records.
func (z *lazyRemote) Generation() uint64 { return uint64(z.link.Snapshot) }

func (z *lazyRemote) Describe() string {
	if z.r != nil {
		return z.r.Describe()
	}
	return z.link.URL + " " + z.link.SnapshotKey.String()
}

func (z *lazyRemote) Close() error {
	if z.r != nil {
		return z.r.Close()
	}
	return nil
}
