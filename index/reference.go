package index

import _ "embed"

// IndexingReference is the user reference of `dossier index`, `stats`,
// `doctor`, ignore files and what the index holds: `dossier help indexing`.
//
//go:embed indexing.md
var IndexingReference string
