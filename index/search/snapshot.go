package search

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dossierhq/dossier/store"
)

// snapMeta is the snapshot's header.
type snapMeta struct {
	Version  int       `json:"version"`
	Docs     int       `json:"docs"`
	TotalLen int64     `json:"total_len"`
	Kinds    []string  `json:"kinds"`
	SrcTypes []string  `json:"src_types"`
	Built    time.Time `json:"built"`
}

// docSize is the size of one document entry: path number, ordinal and
// length (uint32 each), kind and source type codes (uint8 each), padding.
const docSize = 16

type doc struct {
	path, ordinal, length uint32
	kind, src             uint8
}

func putDoc(b []byte, d doc) {
	binary.LittleEndian.PutUint32(b, d.path)
	binary.LittleEndian.PutUint32(b[4:], d.ordinal)
	binary.LittleEndian.PutUint32(b[8:], d.length)
	b[12], b[13] = d.kind, d.src
}

func getDoc(docs []byte, i int) doc {
	b := docs[i*docSize : (i+1)*docSize]
	return doc{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:]), b[12], b[13]}
}

// Builder accumulates files' search records into a snapshot.
type Builder struct {
	postings map[string]*plist
	docs     []byte
	paths    []string
	totalLen int64
	kinds    codes
	srcs     codes
}

// plist is one term's postings being built: (doc delta, tf) uvarint pairs.
type plist struct {
	buf  []byte
	last uint32
	df   uint32
}

// codes numbers a small set of strings (kinds, source types).
type codes struct {
	names []string
	num   map[string]uint8
}

func (c *codes) code(s string) uint8 {
	if n, ok := c.num[s]; ok {
		return n
	}
	if c.num == nil {
		c.num = map[string]uint8{}
	}
	if len(c.names) == 255 {
		return 255 // "other"; never more than a few dozen in practice
	}
	n := uint8(len(c.names))
	c.names = append(c.names, s)
	c.num[s] = n
	return n
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{postings: make(map[string]*plist, 1<<16)} }

// AddFile adds one file's search record. Files may come in any order.
func (b *Builder) AddFile(path string, rec []byte) error {
	pathNum := uint32(len(b.paths))
	b.paths = append(b.paths, path)
	first := uint32(len(b.docs) / docSize)
	err := DecodeTerms(rec, func(ordinal, length int, kind, src string) {
		var e [docSize]byte
		putDoc(e[:], doc{path: pathNum, ordinal: uint32(ordinal), length: uint32(length), kind: b.kinds.code(kind), src: b.srcs.code(src)})
		b.docs = append(b.docs, e[:]...)
		b.totalLen += int64(length)
	}, func(ordinal int, term []byte, tf int) {
		d := first + uint32(ordinal)
		p := b.postings[string(term)]
		if p == nil {
			p = &plist{}
			b.postings[string(term)] = p
		}
		p.buf = binary.AppendUvarint(p.buf, uint64(d-p.last))
		p.buf = binary.AppendUvarint(p.buf, uint64(tf))
		p.last = d
		p.df++
	})
	if err != nil {
		return fmt.Errorf("search record of %s: %w", path, err)
	}
	return nil
}

// Docs is the number of documents added so far.
func (b *Builder) Docs() int { return len(b.docs) / docSize }

// Write replaces the snapshot in tx with what b holds.
func (b *Builder) Write(tx *store.Tx) error {
	meta, err := json.Marshal(snapMeta{Version: version, Docs: b.Docs(), TotalLen: b.totalLen,
		Kinds: b.kinds.names, SrcTypes: b.srcs.names, Built: time.Now().UTC()})
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(b.postings))
	for k := range b.postings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := store.Snapshot{Meta: meta, Docs: b.docs, Paths: []byte(strings.Join(b.paths, "\n"))}
	if len(s.Docs) == 0 {
		s.Docs = []byte{}
	}
	return tx.ReplaceSnapshot(s, func(put func(string, []byte) error) error {
		for _, k := range keys {
			p := b.postings[k]
			// bbolt keeps the value until commit: a fresh slice each.
			v := binary.AppendUvarint(make([]byte, 0, len(p.buf)+5), uint64(p.df))
			v = append(v, p.buf...)
			if err := put(k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rebuild builds the snapshot from every file's search record in tx.
func Rebuild(tx *store.Tx) error {
	b := NewBuilder()
	if err := tx.SearchRecords(b.AddFile); err != nil {
		return err
	}
	return b.Write(tx)
}

// RebuildThreshold is the number of files changed since the snapshot past
// which an index run rebuilds it; below it, queries read those files'
// records directly, which costs a little per file.
func RebuildThreshold(files int) int { return max(64, files/50) }
