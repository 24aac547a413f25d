package index

import (
	"github.com/dossierhq/dossier/index/describe"
	"github.com/dossierhq/dossier/index/repomap"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/index/xref"
	"github.com/dossierhq/dossier/store"
)

// mapRecord is the file's repo map record (see index/repomap.File): its
// symbols as the map lists them, and the references index/xref reads from
// a parse of the file, where its language has an extractor and its tree
// was walked (parsed false: segmentation fell back to text windows, and
// the same parse would cost as much again). nil when it has neither. In a
// file that holds a secret the signatures are redacted first (a
// constant's signature holds its value): the record is published to a
// shared store as it is.
// Storing it per file is what lets a map rank without reading every text:
// the graph is joined from these records when a map is built.
func mapRecord(fc *describe.FileContext, parsed bool, syms []store.Symbol, hasSecrets bool) []byte {
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
	if parsed && xref.Supported(fc.Language) {
		if x, err := xref.Parse(fc.Language, fc.Contents); err == nil {
			f.Refs = repomap.RefsOf(x)
		}
	}
	if len(f.Defs) == 0 && len(f.Refs) == 0 {
		return nil
	}
	return f.Encode()
}
