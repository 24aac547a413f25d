package repomap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/dossierhq/dossier/index/xref"
)

// A File is what one file gives the map, derived at index time and kept
// in the index per file (store's maprefs bucket), so that a changed file
// changes its own record only: the definitions the map may list and the
// references the file makes, as index/xref reads them from a real parse
// (comments, strings and the definitions themselves are no references).
// Which file a reference reaches is decided when the graph is built from
// every file's record (NewGraph), so a definition that moves to another
// file moves every edge to it without touching the files that refer to it.
type File struct {
	// Defs are the file's definitions; their Path is the record's key
	// and is left empty here.
	Defs []Def
	// Refs are the names the file refers to, each once per scope, in
	// name and scope order.
	Refs []Ref
}

// Ref is a name one file refers to, N times.
type Ref struct {
	Name string
	// Scope is the import spec as written for a name reached through an
	// import binding (url.Parse: "net/url"), Unknown for a member reached
	// through a value whose type the syntax does not show, "" for a bare
	// name or a member of a known type (the file's own package first).
	Scope string
	N     int
}

// Unknown is the Scope of a member reached through a value of unknown
// type: any definition of the name may be meant.
const Unknown = "?"

// memberKinds are the symbols a map leaves out: a struct's fields are
// read with their type, and their names (to, be, func in C) are words
// every text mentions.
var memberKinds = map[string]bool{"field": true, "property": true, "member": true, "attribute": true, "key": true}

// DefOf is the map's entry for a symbol of the index (name, kind, first
// line of its signature), ok false for symbols a map leaves out (fields,
// nameless ones).
func DefOf(name, kind, signature string, line int) (Def, bool) {
	if name == "" || memberKinds[kind] {
		return Def{}, false
	}
	text, _, _ := strings.Cut(strings.TrimSpace(signature), "\n")
	if text = strings.TrimSpace(text); text == "" {
		text = strings.TrimSpace(kind + " " + name)
	}
	if len(text) > 160 {
		text = text[:157] + "..."
	}
	return Def{Name: name, Line: line, Text: text}, true
}

// RefsOf counts the references of a parsed file by name and scope.
func RefsOf(x *xref.File) []Ref {
	specs := map[string]string{}
	for _, imp := range x.Imports {
		if imp.Local != "" && imp.Local != "." && imp.Local != "*" {
			specs[imp.Local] = imp.Spec
		}
	}
	type key struct{ name, scope string }
	counts := map[key]int{}
	for _, r := range x.Refs {
		k := key{name: r.Name}
		switch r.Via {
		case xref.Package:
			spec, ok := specs[r.Qual]
			if !ok {
				continue // a binding the file does not import: a local's member
			}
			k.scope = spec
		case xref.Unknown:
			k.scope = Unknown
		}
		if k.name != "" {
			counts[k]++
		}
	}
	refs := make([]Ref, 0, len(counts))
	for k, n := range counts {
		refs = append(refs, Ref{Name: k.name, Scope: k.scope, N: n})
	}
	slices.SortFunc(refs, func(a, b Ref) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Scope, b.Scope)
	})
	return refs
}

// recordVersion starts an encoded File; a record of another version is
// refused (the index's schema version changes with it).
const recordVersion = 1

// Encode writes f as the index keeps it: a version byte, then counted
// definitions (name, line, text) and references (name, scope, count),
// strings as their length and bytes, numbers as uvarints.
func (f *File) Encode() []byte {
	b := []byte{recordVersion}
	b = binary.AppendUvarint(b, uint64(len(f.Defs)))
	for _, d := range f.Defs {
		b = appendString(b, d.Name)
		b = binary.AppendUvarint(b, uint64(max(d.Line, 0)))
		b = appendString(b, d.Text)
	}
	b = binary.AppendUvarint(b, uint64(len(f.Refs)))
	for _, r := range f.Refs {
		b = appendString(b, r.Name)
		b = appendString(b, r.Scope)
		b = binary.AppendUvarint(b, uint64(max(r.N, 0)))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// errRecord is a record that does not decode.
var errRecord = errors.New("malformed repo map record")

// Decode reads a record Encode wrote; path fills in the definitions'
// Path. b is copied once, and the strings share that copy (a graph of a
// large tree reads hundreds of thousands of them).
func Decode(path string, b []byte) (*File, error) {
	if len(b) == 0 || b[0] != recordVersion {
		return nil, fmt.Errorf("%s: %w (version %v): run `dossier index` again", path, errRecord, b[:min(len(b), 1)])
	}
	r := reader{b: bytes.Clone(b[1:])}
	f := &File{}
	n := r.count()
	for i := 0; i < n && r.err == nil; i++ {
		d := Def{Path: path, Name: r.string()}
		d.Line = int(r.uvarint())
		d.Text = r.string()
		f.Defs = append(f.Defs, d)
	}
	n = r.count()
	for i := 0; i < n && r.err == nil; i++ {
		ref := Ref{Name: r.string(), Scope: r.string()}
		ref.N = int(r.uvarint())
		f.Refs = append(f.Refs, ref)
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errRecord
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w: run `dossier index` again", path, r.err)
	}
	return f, nil
}

// reader decodes a record, keeping the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length that must fit in what is left (a record's items
// take a byte at least each).
func (r *reader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)) {
		r.err = errRecord
		return 0
	}
	return int(v)
}

func (r *reader) string() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	if n == 0 {
		return ""
	}
	// r.b is Decode's own copy, never written again.
	s := unsafe.String(&r.b[0], n)
	r.b = r.b[n:]
	return s
}
