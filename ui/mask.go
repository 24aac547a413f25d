package ui

import "github.com/dossierhq/dossier/index/secrets"

// maskCache masks the parts' code for the preview, remembering what it
// masked so a snapshot only scans the parts that changed since the last
// one. It belongs to the runner and is used under its lock, that is in the
// tea.Cmd that builds a snapshot, never in Update or View.
type maskCache struct {
	last map[maskKey]string
}

// maskKey is what a scan depends on: the rules' path allowlists and the text.
type maskKey struct{ path, text string }

// masks returns a function that masks one part's text; done then forgets
// the texts the snapshot did not ask for.
func (c *maskCache) masks() (mask func(path, text string) string, done func()) {
	next := make(map[maskKey]string, len(c.last))
	mask = func(path, text string) string {
		k := maskKey{path, text}
		m, ok := next[k]
		if !ok {
			if m, ok = c.last[k]; !ok {
				// Line by line: the preview numbers the lines from the
				// part's source line, and a masked private key must not
				// shift the lines after it.
				m = secrets.MaskLinesString(path, text)
			}
			next[k] = m
		}
		return m
	}
	return mask, func() { c.last = next }
}
