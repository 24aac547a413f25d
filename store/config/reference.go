package config

import _ "embed"

// Reference is the user reference of the settings, one per field of
// Config, and of workspace trust: `dossier help config`. A test checks
// that every setting of Config is in its TOML example.
//
//go:embed config.md
var Reference string
