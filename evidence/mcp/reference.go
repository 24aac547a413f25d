package mcp

import _ "embed"

// ServerReference is the user reference of `dossier mcp`, its tools,
// transports and client registration: `dossier help mcp-server`.
//
//go:embed mcp.md
var ServerReference string
