package store

import (
	"context"
	"fmt"
	"sync"
)

// lazyRemote opens a link's snapshot at its first read: a search whose
// reads the workspace's cache answers (see remotecache.go) never connects
// to the server, which costs a one-shot process more than its search. A
// query that will read the server starts the connection ahead (start),
// while it reads the cached tables.
type lazyRemote struct {
	ctx  context.Context
	link Link
	mu   sync.Mutex
	done chan struct{} // closed when the open finished; nil before start
	// closed: Close came first; an open still under way closes what it
	// opened.
	closed bool
	r      Remote
	err    error
	// cache is the workspace's cache of the snapshot (set by openShared).
	cache *remoteCache
}

// start opens the snapshot in the background, once.
func (z *lazyRemote) start() chan struct{} {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.done == nil {
		z.done = make(chan struct{})
		go func() {
			r, err := OpenRemote(z.ctx, z.link)
			z.mu.Lock()
			closed := z.closed
			if !closed {
				z.r, z.err = r, err
			}
			z.mu.Unlock()
			close(z.done)
			if closed && r != nil {
				r.Close()
			}
		}()
	}
	return z.done
}

func (z *lazyRemote) open() (Remote, error) {
	z.mu.Lock()
	closed := z.closed
	z.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("read %s: closed", z.link.URL)
	}
	<-z.start()
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.closed {
		return nil, fmt.Errorf("read %s: closed", z.link.URL)
	}
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

func (z *lazyRemote) Fetch(ctx context.Context, reads []Read) ([][]byte, error) {
	r, err := z.open()
	if err != nil {
		return nil, err
	}
	return r.Fetch(ctx, reads)
}

func (z *lazyRemote) Grep(ctx context.Context, clauses [][][]int64) ([]string, bool, error) {
	r, err := z.open()
	if err != nil {
		return nil, false, err
	}
	return r.Grep(ctx, clauses)
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
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.r != nil {
		return z.r.Describe()
	}
	return z.link.URL + " " + z.link.SnapshotKey.String()
}

// Close closes the snapshot if it is open; an open under way closes it
// when it ends, and is not waited for (a dead server would hold the
// process for its connect timeout).
func (z *lazyRemote) Close() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.closed = true
	if z.r != nil {
		r := z.r
		z.r = nil
		return r.Close()
	}
	return nil
}
