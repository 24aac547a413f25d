package store

import "errors"

// ErrInUse means another dossier process holds the index for writing (an
// indexer, a watcher or the workbench). Wait for it to finish or stop it.
var ErrInUse = errors.New("index in use by another dossier process")

// ErrNoIndex means the workspace has no index yet; `dossier index` builds one.
var ErrNoIndex = errors.New("no index in this workspace")

// ErrNewerSchema means the index was written by a newer dossier whose schema
// this binary does not understand. Upgrade dossier or delete the index.
var ErrNewerSchema = errors.New("index was written by a newer dossier")

// ErrOlderSchema is returned by read-only opens of an index written by an
// older schema; a writer rebuilds such an index instead.
var ErrOlderSchema = errors.New("index was written by an older dossier")

// ErrNotFound means the requested record does not exist.
var ErrNotFound = errors.New("not found")

// ErrDamaged means the index file is damaged: shorter than its own header
// says, with a bad meta page, a page bbolt cannot read or a value whose
// checksum does not match. Everything in the index is derived from the
// workspace, so `dossier index` sets the file aside (as index.db.damaged)
// and rebuilds it; readers only report it. Errors wrapping it are
// *DamageError values naming the file and the problem.
var ErrDamaged = errors.New("index is damaged")
