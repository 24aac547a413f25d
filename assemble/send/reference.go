package send

import _ "embed"

// LLMReference is the user reference of `dossier send`, `ask` and the
// `[llm]` endpoints they reach: `dossier help llm`.
//
//go:embed llm.md
var LLMReference string
