package evidence

import (
	"encoding/binary"
	"errors"

	"github.com/dossierhq/dossier/index/repomap"
)

// The rows file holds, after its CRC-32, rowsMagic, then as uvarints and
// strings (repomap.AppendString): the version, the schema, the words, and
// per file its path, hash, definitions (name, line, text) and word pairs.
// Its own encoding, not gob: a change of a few files reads and writes
// the whole file (35 MB for Go's source tree), in a fraction of gob's time.

const rowsMagic = "dossier-repomap-rows\x00"

// encodeMapCache is rows as the rows file holds them.
func encodeMapCache(rows *mapRows) ([]byte, error) {
	b := []byte(rowsMagic)
	u := func(v int) { b = binary.AppendUvarint(b, uint64(v)) }
	u(rows.Version)
	u(rows.Schema)
	u(len(rows.Words))
	for _, w := range rows.Words {
		b = repomap.AppendString(b, w)
	}
	u(len(rows.Files))
	for _, r := range rows.Files {
		b = repomap.AppendString(repomap.AppendString(b, r.Path), r.Hash)
		u(len(r.Defs))
		for _, d := range r.Defs {
			b = repomap.AppendString(b, d.Name)
			u(d.Line)
			b = repomap.AppendString(b, d.Text)
		}
		u(len(r.Words))
		for _, w := range r.Words {
			u(int(w))
		}
	}
	return sealMapFile(b), nil
}

// readMapCache decodes the rows file at path into rows; any error means
// the rows are read from the index again.
func readMapCache(path string, rows *mapRows) error {
	raw, err := readMapFile(path)
	if err != nil {
		return err
	}
	s := string(raw)
	if len(s) < len(rowsMagic) || s[:len(rowsMagic)] != rowsMagic {
		return errors.New("not a rows file")
	}
	r := repomap.NewReader(s[len(rowsMagic):])
	out := mapRows{Version: r.U(), Schema: r.U()}
	out.Words = make([]string, r.Count())
	for i := range out.Words {
		out.Words[i] = r.Str()
	}
	out.Files = make([]mapRow, r.Count())
	for i := range out.Files {
		f := &out.Files[i]
		f.Path, f.Hash = r.Str(), r.Str()
		if n := r.Count(); n > 0 {
			f.Defs = make([]repomap.Def, n)
		}
		for j := range f.Defs {
			f.Defs[j] = repomap.Def{Path: f.Path, Name: r.Str(), Line: r.U(), Text: r.Str()}
		}
		f.Words = make([]uint32, r.Count())
		for j := range f.Words {
			f.Words[j] = uint32(r.U())
		}
		for j := 0; j < len(f.Words); j += 2 {
			if int(f.Words[j]) >= len(out.Words) || j+1 >= len(f.Words) {
				return errors.New("a row names a word the file lacks")
			}
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	*rows = out
	return nil
}
