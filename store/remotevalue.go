package store

import (
	"fmt"
	"strconv"
	"sync"
)

// remoteValue is a search table of a shared snapshot, read by blocks: a
// query reads the offsets and entries of a few hundred chunks' metadata
// out of a table of tens of megabytes. Blocks go into the snapshot's
// cache, so a long-lived reader fetches each once.
type remoteValue struct {
	v           *sharedView
	bucket, key string
	size        int
	mu          sync.Mutex // ReadAt may be called from several goroutines
	// headN: a Batch read the value's first headN bytes whole (see
	// Batch.Head); head holds them once looked up.
	headN int
	head  []byte
}

func (r *remoteValue) headKey() string {
	return "head\x00" + r.bucket + "\x00" + r.key + "\x00" + strconv.Itoa(r.headN)
}

func (r *remoteValue) spanKey(off, n int) string {
	return "span\x00" + r.bucket + "\x00" + r.key + "\x00" + strconv.Itoa(off) + "\x00" + strconv.Itoa(n)
}

// fromBatch copies [off, off+len(p)) from what a Batch read of the value
// (its head, or that very span); false when it read none of it.
func (r *remoteValue) fromBatch(p []byte, off int) bool {
	if r.head == nil && r.headN > 0 {
		r.head, _ = r.v.cache.get(r.headKey())
	}
	if off >= 0 && off+len(p) <= len(r.head) {
		copy(p, r.head[off:])
		return true
	}
	if v, ok := r.v.cache.lookup(r.spanKey(off, len(p)), false); ok && len(v) == len(p) {
		copy(p, v)
		return true
	}
	return false
}

// remoteBlock is the unit of a ranged read.
const remoteBlock = 16 << 10

func (v *sharedView) sealed(t *Tx, bucket string, key []byte) SealedValue {
	sv := SealedValue{t: t, db: v.remote.Describe(), key: key}
	ck := "size\x00" + bucket + "\x00" + string(key)
	size := -1
	if b, ok := v.cache.get(ck); ok {
		size, _ = strconv.Atoi(string(b))
	} else {
		n, err := v.remote.Size(v.ctx, bucket, key)
		if err != nil {
			v.fail(err)
			return sv
		}
		size = n
		v.cache.put(ck, []byte(strconv.Itoa(n)))
	}
	if size < 0 {
		return sv
	}
	sv.remote = &remoteValue{v: v, bucket: bucket, key: string(key), size: size}
	return sv
}

// whole is the value with its checksum (nil when the read failed; the
// transaction then ends with the error).
func (r *remoteValue) whole() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return remoteReader{v: r.v, name: r.bucket}.Get([]byte(r.key))
}

func (r *remoteValue) readAt(p []byte, off int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fromBatch(p, off) {
		return nil
	}
	for len(p) > 0 {
		b := off / remoteBlock
		block, err := r.block(b)
		if err != nil {
			return err
		}
		in := off - b*remoteBlock
		if in >= len(block) {
			return fmt.Errorf("read %s: %d bytes at %d of %s %q, past its end", r.v.remote.Describe(), len(p), off, r.bucket, r.key)
		}
		n := copy(p, block[in:])
		p, off = p[n:], off+n
	}
	return nil
}

func (r *remoteValue) block(b int) ([]byte, error) {
	if r.v.failed() {
		// A batch before it failed: the transaction ends with its error,
		// and a dead server is not waited for twice.
		return nil, fmt.Errorf("read %s: an earlier read failed", r.v.remote.Describe())
	}
	ck := blockKey(r.bucket, r.key, b)
	if v, ok := r.v.cache.get(ck); ok {
		return v, nil
	}
	v, err := r.v.remote.GetRange(r.v.ctx, r.bucket, []byte(r.key), b*remoteBlock, remoteBlock)
	if err != nil {
		r.v.fail(err)
		return nil, err
	}
	r.v.cache.put(ck, v)
	return v, nil
}
