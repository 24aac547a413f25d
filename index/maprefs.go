package index

import (
	"github.com/dossierhq/dossier/index/repomap"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/index/xref"
	"github.com/dossierhq/dossier/store"
)

// mapRecord is the file's repo map record (see index/repomap.File): its
// symbols as the map lists them, and x, the references index/xref read
// from the chunker's parse of the file (nil where its language has no
// extractor or segmentation fell back to text windows). nil when it has
// neither. In a file that holds a secret the signatures are redacted
// first (a constant's signature holds its value): the record is published
// to a shared store as it is.
// Storing it per file is what lets a map rank without reading every text:
// the graph is joined from these records when a map is built.
func mapRecord(x *xref.File, syms []store.Symbol, hasSecrets bool) []byte {
	var f repomap.File
	for _, s := range syms {
		sig := s.Signature
		if hasSecrets {
			sig, _ = secrets.RedactString("", sig)
		}
		if d, ok := repomap.DefOf(s.Name, s.Kind, sig, s.Line); ok {
			f.Defs = append(f.Defs, d)
		}
	}
	if x != nil {
		f.Refs = repomap.RefsOf(x)
	}
	if len(f.Defs) == 0 && len(f.Refs) == 0 {
		return nil
	}
	return f.Encode()
}
