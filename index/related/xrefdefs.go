package related

import (
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

// xrefSpans selects, by "Container.Name" or a bare name, the definitions
// that the file's reference extractor reads but no chunk of the symbol
// map holds: a class property function (`fetch = (req) => ...`), a
// #private method, an object literal's method, a field, a constant, an
// enum member. Nil when the language has no extractor or none matches.
func (e *expander) xrefSpans(symbol string) []span {
	language := lang.Detect(e.path, e.text)
	if !xref.Supported(language) {
		return nil
	}
	x, err := xref.Parse(language, e.text)
	if err != nil {
		return nil
	}
	var exact, byName []span
	for _, d := range x.Defs {
		switch {
		case d.Container != "" && d.Container+"."+d.Name == symbol, d.Container == "" && d.Name == symbol:
			exact = append(exact, span{d.Start, d.End})
		case d.Name == symbol:
			byName = append(byName, span{d.Start, d.End})
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return byName
}
