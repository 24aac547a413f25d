package pg

import _ "embed"

// TeamReference is the user reference of a team index on Postgres
// (`index --store`, `dossier store`): `dossier help team-store`.
//
//go:embed team.md
var TeamReference string
