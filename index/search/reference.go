package search

import _ "embed"

// SearchingReference is the user reference of `dossier search`, its
// modes, flags and scores: `dossier help searching`. How search works and
// why is the package comment.
//
//go:embed searching.md
var SearchingReference string
