package describe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/store"
)

// Normalize is the text that content hashes cover: LF line ends, no
// trailing white space on any line, no trailing blank lines.
func Normalize(s string) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	if !needsTrim(s) {
		return s
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(ls, "\n"), "\n")
}

func needsTrim(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') && (i+1 == len(s) || s[i+1] == '\n') {
			return true
		}
	}
	return len(s) > 0 && s[len(s)-1] == '\n'
}

// Hash is the hex sha256 of s.
func Hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// validSIDChars reports whether sid is not empty and free of upper-case
// ASCII letters and white space (`^[^A-Z\s]+$`, where \s is RE2's
// [\t\n\f\r ]; every excluded byte is ASCII, so bytes of other runes, even
// invalid ones, pass as the expression lets them). It runs for every
// chunk of an index, where the expression cost a full index of Go's tree
// 0.3 s.
func validSIDChars(sid string) bool {
	for i := 0; i < len(sid); i++ {
		switch c := sid[i]; {
		case c >= 'A' && c <= 'Z', c == '\t', c == '\n', c == '\f', c == '\r', c == ' ':
			return false
		}
	}
	return sid != ""
}

// sidPart lower-cases s and turns runs of white space and colons into "_".
func sidPart(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "_"
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ':' || c <= ' ' || (c >= 'A' && c <= 'Z') || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(s) {
		if r == ':' || unicode.IsSpace(r) {
			if !gap {
				b.WriteByte('_')
			}
			gap = true
			continue
		}
		gap = false
		b.WriteRune(r)
	}
	return b.String()
}

// ValidateSemanticID checks seed 001's rules: lower case, no white space, no
// empty segment (no "::", no leading or trailing ":").
func ValidateSemanticID(sid string) error {
	switch {
	case !validSIDChars(sid):
		return fmt.Errorf("semantic id %q: must be lower case without white space", sid)
	case strings.Contains(sid, "::"), strings.HasPrefix(sid, ":"), strings.HasSuffix(sid, ":"):
		return fmt.Errorf("semantic id %q: has an empty segment", sid)
	}
	return nil
}

// Problem is a section Points left out: a describer's fault costs that
// describer's section, never the file's other chunks, and is reported
// with where it is.
type Problem struct {
	Line      int    // the section's first line
	Describer string // who emitted it
	Err       string // what was wrong
}

// Points builds the chunks of one file from its sections. It is pure: the
// same context and sections always give the same chunks and ids. A section
// whose id repeats another's, or is invalid, is a describer's bug: it is
// left out and returned as a Problem, and the rest of the file stands.
func Points(fc *FileContext, sections []Section) ([]store.Chunk, []Problem) {
	var problems []Problem
	drop := func(s Section, format string, args ...any) {
		problems = append(problems, Problem{Line: s.StartLine, Describer: s.Describer, Err: fmt.Sprintf(format, args...)})
	}
	chunks := make([]store.Chunk, 0, len(sections))
	seen := map[string]int{}
	spans := map[string]bool{}
	ids := map[string]bool{}
	sids := map[string]bool{}
	unnamed := 0
	for _, s := range sections {
		symbol := strings.Join(append(append([]string(nil), s.Parents...), s.Symbol), ".")
		if s.Symbol == "" {
			if s.Part <= 1 {
				unnamed++
			}
			symbol = "top-" + strconv.Itoa(unnamed)
			if len(s.Parents) > 0 {
				symbol = strings.Join(s.Parents, ".") + "." + symbol
			}
		}
		// Overloads, repeated init functions and duplicated keys get an
		// ordinal so ids stay unique and stable in source order.
		// Case-insensitive, because semantic ids are lower case (Go's
		// parseX and ParseX may share a file).
		base := strings.Join([]string{sidPart(s.Kind), sidPart(symbol), sidPart(s.Key), strconv.Itoa(s.Part), s.Describer}, "\x00")
		// The same unit twice is a describer bug, not an overload.
		span := base + "\x00" + strconv.Itoa(s.StartByte) + "-" + strconv.Itoa(s.EndByte)
		if spans[span] {
			drop(s, "duplicate chunk id for %s %q (lines %d-%d): describer %q emitted the same section twice",
				s.Kind, symbol, s.StartLine, s.EndLine, s.Describer)
			continue
		}
		spans[span] = true
		seen[base]++
		if n := seen[base]; n > 1 {
			symbol += "~" + strconv.Itoa(n)
		}
		id := chunkID(fc.Path, s.Kind, symbol, s.Key, s.Part, s.Describer)
		sid := strings.Join([]string{sidPart(fc.Repo.Name), sidPart(fc.Path), sidPart(s.Kind), sidPart(symbol),
			sidPart(s.Key), strconv.Itoa(s.Part)}, ":")
		if s.Describer != "code" && s.Describer != "markdown" && s.Describer != "config" && s.Describer != "text" {
			sid += ":" + sidPart(s.Describer)
		}
		if err := ValidateSemanticID(sid); err != nil {
			drop(s, "describer %q: %v", s.Describer, err)
			continue
		}
		if ids[id] || sids[sid] {
			drop(s, "duplicate chunk id %s (%s): describer %q emitted the same section twice", id, sid, s.Describer)
			continue
		}
		ids[id], sids[sid] = true, true
		hash := Hash(Normalize(s.Artifact))
		src := fc.SourceType
		if s.SourceType != "" {
			src = s.SourceType // a framework describer's type (route, model, ...)
		}
		c := store.Chunk{
			ID: id, SemanticID: sid, Path: fc.Path, Language: fc.Language, Kind: s.Kind, SourceType: src,
			Describer: s.Describer, Flavor: s.Flavor, Symbol: s.Symbol, Parents: s.Parents, Signature: s.Signature,
			SectionKey: s.Key, Part: s.Part, Parts: s.Parts, StartLine: s.StartLine, EndLine: s.EndLine,
			StartByte: s.StartByte, EndByte: s.EndByte, Hash: hash, Tokens: segment.EstimateTokens(len(s.Artifact)),
			Finder: s.Finder,
		}
		if s.Outline {
			c.Outline = s.Artifact
		}
		chunks = append(chunks, c)
	}
	return chunks, problems
}

// chunkID is stable across edits that keep the unit's identity: it hashes
// where the unit is and what it is, not its text. It starts with the
// file's path hash, so the store finds a chunk's file without an index
// entry per chunk.
func chunkID(path, kind, symbol, key string, part int, describer string) string {
	h := sha256.New()
	for _, p := range []string{kind, symbol, key, strconv.Itoa(part), describer} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return "c" + store.PathHash(path) + hex.EncodeToString(h.Sum(nil)[:4])
}

// Symbols lists the symbol-map entries of a file: one per named code unit,
// at its first part, and one per member symbol (a constant, field, enum
// member, property function) with its own span, in the smallest chunk
// that holds its start.
func Symbols(chunks []store.Chunk, members []segment.Symbol) []store.Symbol {
	var out []store.Symbol
	for i, c := range chunks {
		if c.Symbol == "" || c.Part > 1 || !segment.Kind(c.Kind).IsSymbol() {
			continue
		}
		parent := ""
		if len(c.Parents) > 0 {
			parent = strings.Join(c.Parents, ".")
		}
		out = append(out, store.Symbol{Name: c.Symbol, Kind: c.Kind, Signature: c.Signature, Parent: parent,
			Path: c.Path, Line: c.StartLine, ChunkID: c.ID, Ordinal: i})
	}
	for _, m := range members {
		i := holder(chunks, m.StartByte)
		if i < 0 {
			if i = holder(chunks, m.EndByte-1); i < 0 {
				continue
			}
		}
		c := chunks[i]
		out = append(out, store.Symbol{Name: m.Name, Kind: string(m.Kind), Signature: m.Signature,
			Parent: strings.Join(m.Parents, "."), Path: c.Path, Line: m.StartLine, ChunkID: c.ID, Ordinal: i,
			EndLine: m.EndLine, StartByte: m.StartByte, EndByte: m.EndByte})
	}
	return out
}

// holder is the index of the smallest chunk whose span holds byte off, or -1.
func holder(chunks []store.Chunk, off int) int {
	best := -1
	for i, c := range chunks {
		if c.StartByte <= off && off < c.EndByte && (best < 0 || c.EndByte-c.StartByte < chunks[best].EndByte-chunks[best].StartByte) {
			best = i
		}
	}
	return best
}
