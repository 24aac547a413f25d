package evidence

import _ "embed"

// FlowsReference is the user reference of flows, the evidence commands,
// the flow directory and its turns: `dossier help flows`.
//
//go:embed flows.md
var FlowsReference string

// SelectorsReference is the user reference of selectors, what `evidence
// add` and the other commands take to name code: `dossier help selectors`.
//
//go:embed selectors.md
var SelectorsReference string
