package related

import _ "embed"

// RelatedReference is the user reference of `dossier related`, for paths
// and for the framework graph's routes, tables, models and controllers:
// `dossier help related-code`.
//
//go:embed related.md
var RelatedReference string
