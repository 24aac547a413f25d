package store

import (
	"fmt"
	"strings"
)

// File is what the index knows about one file of the workspace.
type File struct {
	Path       string         `json:"path"`
	Size       int64          `json:"size"`
	ModTime    int64          `json:"mtime"` // Unix nanoseconds
	Hash       string         `json:"hash"`  // sha256 of the raw contents, hex
	Language   string         `json:"lang"`
	SourceType string         `json:"src"`
	Chunks     []string       `json:"chunks"`
	Kinds      map[string]int `json:"kinds,omitempty"` // chunks per kind
	ParseError bool           `json:"parse_error,omitempty"`
	// Secrets counts the credentials found in the file (see Chunk.Secrets).
	Secrets int `json:"secrets,omitempty"`
	// Problems are what the index could not read in the file it indexed
	// (a syntax error, a framework's facts or a describer's section left
	// out), kept so that `dossier stats --problems` lists them after the
	// run that found them.
	Problems []FileProblem `json:"problems,omitempty"`
}

// FileProblem is one thing the index could not read in a file: its reason
// (the indexer's note: parse_error, section_dropped, facts_dropped), the
// 1-based line where it is (0: not known) and what went wrong.
type FileProblem struct {
	Reason string `json:"reason"`
	Line   int    `json:"line,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Secret is one credential found in a file by the secret scanner: its rule,
// its line (1-based) and the byte range of the secret in the file's blob.
// The secret itself is not kept.
type Secret struct {
	Rule  string `json:"rule"`
	Line  int    `json:"line"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Chunk is one indexed section of a file: a function, a class header, a
// Markdown section, a config key or a text window.
type Chunk struct {
	ID         string   `json:"id"`
	SemanticID string   `json:"sid"`
	Path       string   `json:"path"`
	Language   string   `json:"lang"`
	Kind       string   `json:"kind"`
	SourceType string   `json:"src"`
	Describer  string   `json:"by"`
	Flavor     string   `json:"flavor,omitempty"`
	Symbol     string   `json:"sym,omitempty"`
	Parents    []string `json:"parents,omitempty"`
	Signature  string   `json:"sig,omitempty"`
	SectionKey string   `json:"section"`
	Part       int      `json:"part"`
	Parts      int      `json:"parts"`
	StartLine  int      `json:"start_line"`
	EndLine    int      `json:"end_line"`
	StartByte  int      `json:"start_byte"`
	EndByte    int      `json:"end_byte"`
	Hash       string   `json:"hash"`   // sha256 of the normalized text, hex
	Tokens     int      `json:"tokens"` // estimate: bytes/4
	// Finder is the header of the finder snippet (path, enclosing symbols,
	// signature, doc); the snippet that search indexes is Finder + "\n" + text.
	Finder string `json:"finder"`
	// Outline holds the synthesized text of an outline chunk (a type's
	// header and member signatures); empty for chunks that are source spans.
	Outline string `json:"outline,omitempty"`
	// Secrets are the credentials inside the chunk, with ranges in the
	// file's blob (in Outline for an outline chunk); previews mask them and
	// every exit redacts them.
	Secrets []Secret `json:"secrets,omitempty"`
}

// Title is seed 001's point title: "{Kind}: {Symbol} - {SectionKey} (Chunk {Part} of {Parts})".
func (c Chunk) Title() string {
	sym := c.Symbol
	if len(c.Parents) > 0 && sym != "" {
		sym = strings.Join(c.Parents, ".") + "." + sym
	}
	if sym == "" {
		sym = "(top level)"
	}
	return fmt.Sprintf("%s: %s - %s (Chunk %d of %d)", c.Kind, sym, c.SectionKey, c.Part, c.Parts)
}

// Symbol is one entry of the symbol map.
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"sig,omitempty"`
	Parent    string `json:"parent,omitempty"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	ChunkID   string `json:"chunk"`
	// Ordinal is the position of the symbol's chunk among its file's chunks.
	Ordinal int `json:"ordinal"`
	// EndLine, StartByte and EndByte are the symbol's own span when it is
	// smaller than its chunk (a constant in a block of top-level code, a
	// field or property function in a class outline); Line is its first
	// line. All three are zero for a symbol that is its chunk's unit.
	EndLine   int `json:"end_line,omitempty"`
	StartByte int `json:"start_byte,omitempty"`
	EndByte   int `json:"end_byte,omitempty"`
}

// HasSpan reports whether s has a span of its own inside its chunk.
func (s Symbol) HasSpan() bool { return s.EndByte > s.StartByte }

// Named reports whether the selector name sel names s: its name alone, its
// nearest parent and name ("Class.member") or its full dotted path
// ("ns.Class.member"). Case matters.
func (s Symbol) Named(sel string) bool {
	if sel == s.Name {
		return true
	}
	parent, ok := strings.CutSuffix(sel, "."+s.Name)
	if !ok || s.Parent == "" {
		return false
	}
	return parent == s.Parent || strings.HasSuffix(s.Parent, "."+parent)
}

// Repo describes the workspace root as git sees it.
type Repo struct {
	Root   string `json:"root"`
	Name   string `json:"name"`
	Remote string `json:"remote,omitempty"`
	Branch string `json:"branch,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// FileUpdate is everything derived from one file, written in one step so a
// reader never sees half of it.
type FileUpdate struct {
	File    File
	Chunks  []Chunk
	Blob    []byte // the text chunks index into
	Symbols []Symbol
	Imports []string
	// Search and Vectors are the file's search and vector records, encoded
	// by the search package (nil: none).
	Search  []byte
	Vectors []byte
	// Framework is what a framework describer read from the file (JSON),
	// nil when none applies.
	Framework []byte
}
