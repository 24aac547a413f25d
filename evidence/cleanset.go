package evidence

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/secrets"

	"github.com/dossierhq/dossier/store/fsafe"
)

// cleanFile keeps the cids of part versions the secret rules found nothing
// in, beside the token cache, so a one-shot `dossier assemble` scans only
// what changed. Its first line names the rule set; another rule set starts
// it afresh.
const cleanFile = "secrets.clean"

// maxClean bounds the file (~75 bytes a line).
const maxClean = 100_000

func (e *Engine) cleanPath() string {
	if p := e.cachePath(); p != "" {
		return filepath.Join(filepath.Dir(p), cleanFile)
	}
	return ""
}

// loadClean reads the clean set; a missing, damaged or outdated file is an
// empty set.
func (e *Engine) loadClean() *assemble.CleanSet {
	path := e.cleanPath()
	if path == "" {
		return assemble.NewCleanSet(nil)
	}
	data, err := fsafe.ReadFile(path, 2*maxClean*80)
	if err != nil {
		return assemble.NewCleanSet(nil)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != cleanHeader() {
		return assemble.NewCleanSet(nil)
	}
	var cids []string
	for sc.Scan() {
		if cid := sc.Text(); strings.HasPrefix(cid, "sha256:") && len(cid) == len("sha256:")+64 {
			cids = append(cids, cid)
		}
	}
	set := assemble.NewCleanSet(cids)
	e.cleanSaved = set.Len()
	return set
}

func cleanHeader() string { return "dossier secrets.clean 1 " + secrets.Ruleset() }

// saveClean writes the clean set; failures only cost a scan.
func (e *Engine) saveClean() {
	path := e.cleanPath()
	if e.clean == nil || path == "" {
		return
	}
	if e.clean.Len() == e.cleanSaved {
		return // the set only grows: the same size is the same set
	}
	cids := e.clean.CIDs()
	if len(cids) > maxClean {
		cids = cids[len(cids)-maxClean:] // arbitrary but bounded: a rescan is cheap
	}
	var b strings.Builder
	b.WriteString(cleanHeader() + "\n")
	for _, cid := range cids {
		b.WriteString(cid + "\n")
	}
	if WriteFileAtomic(path, []byte(b.String())) == nil {
		e.cleanSaved = len(cids)
	}
}
