package assemble

import _ "embed"

// FormatsReference is the user reference of `dossier assemble` and the
// prompt formats, tokens and budget: `dossier help formats`.
//
//go:embed formats.md
var FormatsReference string

// PrivacyReference says what leaves the machine and what reaches the
// terminal: `dossier help privacy`.
//
//go:embed privacy.md
var PrivacyReference string
