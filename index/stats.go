package index

import "github.com/dossierhq/dossier/index/summary"

// Stats returns the summary recorded by the last completed run; ctx ends a
// wait for a writer early (see store.OpenContext).
var Stats = summary.Read

// SecretAt is one secret the index found: where, and by which rule.
type SecretAt = summary.SecretAt

// Secrets lists the secrets the index found, by path and line.
var Secrets = summary.Secrets
