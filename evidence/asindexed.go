package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/store"
)

// asIndexed maps a line selector whose numbers come from the index (a
// search hit, a caller, a route's controller) onto the file as it is now:
// when the file changed since it was indexed, the indexed lines' text is
// found again in it as a part's span is (see relocate), so an edit not
// yet indexed never shifts what is taken. A span that cannot be found is
// an error that says to index again. Other selectors come back as they
// are.
func (e *Engine) asIndexed(selector string) (string, error) {
	sel, err := ParseSelector(selector)
	if err != nil || sel.Symbol != "" || sel.Start == 0 || sel.Bytes || sel.Path == "" {
		return selector, nil
	}
	rel, abs, err := inRoot(e.Root, sel.Path)
	if err != nil {
		return selector, nil // resolve reports it
	}
	raw, err := ReadRegular(abs, resolveRoots(e.Root))
	if err != nil {
		return selector, nil
	}
	db, err := openIndex(e.Root)
	if err != nil {
		return selector, nil
	}
	defer db.Close()
	var old, anchor string
	err = db.View(func(tx *store.Tx) error {
		f, ok, err := tx.File(rel)
		if err != nil || !ok {
			return err
		}
		if sum := sha256.Sum256(raw); f.Hash == hex.EncodeToString(sum[:]) {
			return nil
		}
		blob, ok := tx.Blob(rel)
		if !ok {
			return nil
		}
		text := string(blob)
		if starts := lineStarts(text); sel.End >= sel.Start && sel.End <= len(starts) {
			old = sliceLines(text, starts, sel.Start, sel.End)
			anchor = anchorAt(text, starts, sel.Start, sel.End)
		}
		return nil
	})
	if err != nil || old == "" {
		return selector, err
	}
	src := assemble.Source{Path: rel, Span: fmt.Sprintf("lines=%d:%d", sel.Start, sel.End), StartLine: sel.Start, EndLine: sel.End,
		CID: CID([]byte(old)), Anchor: anchor}
	r := relocate(src, old, string(raw), nil)
	if r.state == Lost {
		return "", fmt.Errorf("%s changed since it was indexed, and the indexed lines %d-%d are not in it now (%s): run `dossier index` and try again",
			filepath.ToSlash(rel), sel.Start, sel.End, r.why)
	}
	sel.Start, sel.End = r.start, r.end
	return sel.String(), nil
}
