package store

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gofrs/flock"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// DirName is the per-workspace directory that holds the index and flows.
const DirName = ".dossier"

// DefaultTimeout is how long AcquireWriter waits for another indexer.
const DefaultTimeout = 2 * time.Second

// DefaultWait is how long an open waits for the file while another process
// writes to it. Writers hold it one short transaction at a time, so a wait
// this long means a writer is stuck, not busy.
const DefaultWait = 60 * time.Second

// noticeAfter is how long an open waits before it says so (see
// WithWaitNotice).
const noticeAfter = time.Second

// Dir returns the .dossier directory of a workspace root.
func Dir(root string) string { return filepath.Join(root, DirName) }

// Path returns the index file of a workspace root.
func Path(root string) string { return filepath.Join(Dir(root), "index.db") }

// Options control Open.
type Options struct {
	ReadOnly bool
	// Local opens the workspace's own index file read-only even when the
	// workspace is linked to a shared store (see Link): what its indexer
	// reads, as it writes only that file.
	Local bool
	// Timeout bounds the wait for another process's hold on the file;
	// DefaultWait when zero.
	Timeout time.Duration
}

// DB is an open index.
type DB struct {
	bolt *bolt.DB
	path string
	// file is the file bbolt opened and maps, for reading values by copy
	// (see readat.go); bbolt closes it.
	file *os.File
	// Rebuilt is set when a writer found an index of an older schema
	// (OldSchema) and emptied it; the caller re-indexes everything and
	// should say so.
	Rebuilt   bool
	OldSchema int
	// gen is the generation the index had when opened (see noteDamage).
	gen uint64
	// turn is the turnstile, open once Current has looked at it.
	turn *os.File
	// writer: opened for writing, it leaves its stamp (see writeStamp).
	writer bool
	// shared: the workspace is linked to a shared store's snapshot (see
	// shared.go); bolt is then the overlay, nil without a local index.
	shared *sharedDB
}

// Open opens the index at path. A writer creates it when missing; a reader
// gets ErrNoIndex. Lock contention past the timeout gives ErrInUse.
func Open(path string, opts Options) (*DB, error) {
	return OpenContext(context.Background(), path, opts)
}

// OpenContext is Open whose wait for the file ends early when ctx does. A
// process that waits longer than a second says so once, through the
// callback WithWaitNotice put in ctx.
//
// Fairness: bbolt lets any number of readers or one writer hold the file,
// and polls for it every 50 ms, so a writer that closes and reopens the file
// between its transactions would keep a waiting reader out indefinitely.
// Every open therefore first takes the turnstile (.dossier/index.turn), and
// holds it until it has the file: a reader waiting for a writer holds it,
// and the writer's next open queues behind that reader.
func OpenContext(ctx context.Context, path string, opts Options) (*DB, error) {
	if opts.ReadOnly && !opts.Local {
		if l, ok, err := ReadLink(filepath.Dir(filepath.Dir(path))); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return openShared(ctx, path, l, opts)
		}
	}
	return openLocal(ctx, path, opts)
}

func openLocal(ctx context.Context, path string, opts Options) (*DB, error) {
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultWait
	}
	if err := checkLink(path); err != nil {
		return nil, err
	}
	if !opts.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create index directory: %w (make %s writable or choose another --root)", err, filepath.Dir(path))
		}
	}
	w := &waiter{ctx: ctx, path: path, start: time.Now(), deadline: time.Now().Add(timeout), notice: waitNotice(ctx)}
	turn := flock.New(filepath.Join(filepath.Dir(path), "index.turn"))
	b, file, err := w.open(turn, opts.ReadOnly)
	if turn.Locked() {
		turn.Unlock()
	}
	if err != nil {
		switch {
		case errors.Is(err, ErrDamaged), errors.Is(err, ErrNoIndex):
			return nil, err // they name the path already
		case errors.Is(err, berrors.ErrTimeout):
			return nil, fmt.Errorf("%w: %s is locked (waited %s)", ErrInUse, path, timeout)
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return nil, fmt.Errorf("open index %s: %w", path, err)
		case errors.Is(err, os.ErrPermission):
			return nil, permissionError(path, opts.ReadOnly, err)
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
			return nil, damaged(path, "bbolt: %v", err)
		}
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path, file: file}
	err = guard(path, func() error { return db.checkSchema(opts.ReadOnly) })
	if err == nil && !opts.ReadOnly {
		// What a reader found, then what changed behind dossier's back;
		// a writer acts on the damage itself (it rebuilds).
		if err = db.checkNote(); err == nil {
			err = db.checkOutside()
		}
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	db.writer = !opts.ReadOnly
	return db, nil
}

// permissionError says which keeps this process out of the index at
// path, the file or its directory, and what to do.
func permissionError(path string, readOnly bool, err error) error {
	cause := "permission denied"
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		cause = pe.Err.Error()
	}
	if _, serr := os.Stat(path); serr != nil {
		// No file yet: the directory must let this process create it.
		return fmt.Errorf("open index %s: %s: make %s writable or choose another --root", path, cause, filepath.Dir(path))
	}
	if readOnly {
		return fmt.Errorf("open index %s: the file cannot be read (%s): make it readable (`chmod u+r %s`) or choose another --root", path, cause, path)
	}
	return fmt.Errorf("open index %s: the file cannot be opened for writing (%s): make it writable (`chmod u+rw %s`) or choose another --root", path, cause, path)
}

// Close releases the file.
func (db *DB) Close() error {
	if db.shared != nil {
		err := db.shared.remote.Close()
		if db.bolt != nil {
			err = errors.Join(err, db.bolt.Close())
		}
		return err
	}
	if db.turn != nil {
		db.turn.Close()
	}
	if db.writer {
		db.writeStamp()
	}
	return db.bolt.Close()
}

// Current reports whether db, open read-only and kept open between reads,
// may serve another: no one waits at the turnstile to open the index (a
// writer waiting for the readers to let go holds it, see OpenContext), and
// the file at its path is still the one db maps (not set aside and
// replaced). When it is not, the reader closes db and opens the index
// again, after the writer.
func (db *DB) Current() bool {
	if db.shared != nil {
		return db.shared.current()
	}
	if db.turn == nil {
		f, err := os.OpenFile(filepath.Join(filepath.Dir(db.path), "index.turn"), os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return false
		}
		db.turn = f
	}
	// flock(2), as gofrs/flock locks it, on a descriptor kept open: the
	// check runs before every query of a stream.
	fd := int(db.turn.Fd())
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	_ = unix.Flock(fd, unix.LOCK_UN)
	at, err := os.Stat(db.path)
	if err != nil {
		return false
	}
	held, err := db.file.Stat()
	return err == nil && os.SameFile(at, held)
}

// waiter is one open's wait for the index file.
type waiter struct {
	ctx      context.Context
	path     string
	start    time.Time
	deadline time.Time
	notice   func(holder int)
	noticed  bool
}

// poll is how often a waiting open tries again.
const poll = 5 * time.Millisecond

// open takes the turnstile, then opens the file with bbolt, trying both
// again until the deadline, and returns the database and the file bbolt
// opened. A turnstile that cannot be created (a read-only directory) is
// skipped: no writer can be working there either.
func (w *waiter) open(turn *flock.Flock, readOnly bool) (*bolt.DB, *os.File, error) {
	for {
		ok, err := turn.TryLock()
		if err != nil || ok {
			break
		}
		if err := w.wait(); err != nil {
			return nil, nil, err
		}
	}
	for {
		// bbolt trusts the file it maps: a shrunk file would fault on the
		// first page past its end, so the layout is checked first.
		err := checkFile(w.path, readOnly)
		var b *bolt.DB
		var file *os.File
		if err == nil {
			err = guard(w.path, func() error {
				var err error
				b, err = bolt.Open(w.path, 0o600, &bolt.Options{
					OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
						f, err := os.OpenFile(name, flag, perm)
						file = f
						return f, err
					},
					// One try: the loop here sleeps, notices and watches ctx.
					Timeout:      time.Nanosecond,
					ReadOnly:     readOnly,
					FreelistType: bolt.FreelistMapType,
					// Reserve address space up front so a growing index is not
					// remapped batch after batch; only touched pages cost memory.
					InitialMmapSize: 1 << 30,
				})
				return err
			})
		}
		if !errors.Is(err, berrors.ErrTimeout) && !errors.Is(err, errLocked) {
			if err != nil {
				return nil, nil, err
			}
			return b, file, nil
		}
		if err := w.wait(); err != nil {
			return nil, nil, err
		}
	}
}

// wait sleeps one poll interval; it fails once the deadline passed or ctx
// ended, and calls the notice once after noticeAfter.
func (w *waiter) wait() error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if time.Now().After(w.deadline) {
		return berrors.ErrTimeout
	}
	if !w.noticed && w.notice != nil && time.Since(w.start) >= noticeAfter {
		w.noticed = true
		w.notice(writerPID(filepath.Dir(w.path)))
	}
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
		return w.ctx.Err()
	case <-t.C:
		return nil
	}
}

type noticeKey struct{}

// WithWaitNotice returns ctx with a callback that OpenContext calls once
// when it has waited a second for the index file: holder is the process id
// of the workspace's indexer when known, else 0.
func WithWaitNotice(ctx context.Context, notice func(holder int)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

func waitNotice(ctx context.Context) func(int) {
	f, _ := ctx.Value(noticeKey{}).(func(int))
	return f
}

// FilePath is the path of the index file.
func (db *DB) FilePath() string { return db.path }

func (db *DB) checkSchema(readOnly bool) error {
	found := -1 // no meta bucket: a new, empty file
	err := db.bolt.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m == nil {
			return nil
		}
		v, err := strconv.Atoi(string(m.Get(metaSchema)))
		if err != nil || v < 0 {
			return fmt.Errorf("index %s has an unreadable schema version %q: delete it and run `dossier index`", db.path, m.Get(metaSchema))
		}
		found = v
		db.gen = (&Tx{tx: tx}).Generation()
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case found > SchemaVersion:
		return fmt.Errorf("%w (schema %d, this dossier reads %d): upgrade dossier or delete %s", ErrNewerSchema, found, SchemaVersion, db.path)
	case found == SchemaVersion:
		return nil
	case readOnly && found < 0:
		return fmt.Errorf("%w at %s: the index is empty; run `dossier index` first", ErrNoIndex, db.path)
	case readOnly:
		return fmt.Errorf("%w (schema %d, this dossier writes %d): run `dossier index` to rebuild it", ErrOlderSchema, found, SchemaVersion)
	}
	return db.bolt.Update(func(tx *bolt.Tx) error {
		if found >= 0 {
			// Older layouts are rebuilt rather than migrated: everything in
			// the index is derived from the workspace and can be recomputed.
			for _, name := range slices.Concat(allBuckets, retiredBuckets) {
				if tx.Bucket(name) != nil {
					if err := tx.DeleteBucket(name); err != nil {
						return err
					}
				}
			}
			db.Rebuilt, db.OldSchema = true, found
		}
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		// A new (or rebuilt) index starts its generation at a random
		// number, so a reader that derived something from an earlier index
		// at this path never mistakes the new one for it.
		var start [8]byte
		if _, err := rand.Read(start[:]); err != nil {
			return err
		}
		if err := tx.Bucket(bucketMeta).Put(metaGeneration, start[:]); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(metaSchema, []byte(strconv.Itoa(SchemaVersion)))
	})
}

// View runs fn in a read-only transaction.
// A damaged page or value ends it with an error wrapping ErrDamaged (see
// guard), which is also noted for the next writer.
func (db *DB) View(fn func(*Tx) error) error {
	if db.shared != nil {
		return db.shared.view(db, fn)
	}
	err := guard(db.path, func() error {
		return db.bolt.View(func(tx *bolt.Tx) error {
			return fn(&Tx{tx: tx, f: db.file})
		})
	})
	err = db.asDamage(err)
	db.noteDamage(err)
	return err
}

// Update runs fn in a read-write transaction; nothing fn wrote is kept when
// it returns an error. Every committed update bumps the index's generation.
// A damaged page or value ends it as it does View.
func (db *DB) Update(fn func(*Tx) error) error {
	if db.shared != nil {
		return fmt.Errorf("%s is a shared store's snapshot, read-only here: it is written by `dossier index --store`", db.shared.remote.Describe())
	}
	err := guard(db.path, func() error {
		return db.bolt.Update(func(tx *bolt.Tx) error {
			t := &Tx{tx: tx, f: db.file}
			if err := fn(t); err != nil {
				return err
			}
			return tx.Bucket(bucketMeta).Put(metaGeneration, binary.BigEndian.AppendUint64(nil, t.Generation()+1))
		})
	})
	if structural(err) {
		// dossier keeps no nested buckets: bbolt finding one where a
		// value was written means a damaged page flag.
		err = damaged(db.path, "a page holds an entry of the wrong type (%v)", err)
	}
	err = db.asDamage(err)
	db.noteDamage(err)
	return err
}

// asDamage makes a stored text that does not decode, found by code that
// does not know the index file, a DamageError of db's.
func (db *DB) asDamage(err error) error {
	var bd *blobDamage
	var de *DamageError
	if errors.As(err, &bd) && !errors.As(err, &de) {
		return damaged(db.path, "%v", err)
	}
	return err
}

// structural reports whether err is bbolt finding the tree not as dossier
// built it (a value where a bucket should be, or the reverse).
func structural(err error) bool {
	return errors.Is(err, berrors.ErrIncompatibleValue) || errors.Is(err, berrors.ErrBucketNotFound) ||
		errors.Is(err, berrors.ErrBucketExists)
}

// Generation identifies the state of the index: it changes with every
// committed update, so anything derived from the index and keyed by it is
// current exactly while the generation is unchanged.
func (t *Tx) Generation() uint64 {
	v := t.r(bucketMeta).Get(metaGeneration)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// Check runs bbolt's consistency check and returns the first problem found.
func (db *DB) Check() error {
	return db.View(func(t *Tx) error {
		// bbolt's check runs on a goroutine of its own, where a damaged
		// page cannot be recovered: the pages are walked here first.
		d := &doctor{path: db.path, counts: map[string]int{}}
		if !d.walk(t) {
			return damaged(db.path, "%s", d.problems[0].Detail)
		}
		for err := range t.tx.Check() {
			return err
		}
		return nil
	})
}

// getJSON decodes the record of k in b into v; false when there is none.
// Every record was written by putJSON, so one that does not decode is
// damage, which a writer repairs by rebuilding.
func getJSON(b reader, k []byte, v any) (bool, error) {
	data := b.Get(k)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, undecodable(b, k, err)
	}
	return true, nil
}

// undecodable is the damage error for a record of b that does not decode.
func undecodable(b reader, k []byte, err error) error {
	return damaged(b.Where(), "a record (%q) does not decode: %v", k, err)
}

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(k, data)
}
