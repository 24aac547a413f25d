package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/sahilm/fuzzy"

	"github.com/dossierhq/dossier/store"
)

// Symbol scores: an exact name, a prefix of one, an abbreviation (a fuzzy
// match; typos score as in typo.go). scoreFuzzy stands to DefaultMinScore
// as 0.5 stood to the old 0.25: random letters are an abbreviation of some
// name as often as before (2 of 300 random strings on the Python set, 0 on
// five other indexes, symbol mode), where 0.5 would show 0-8 of them.
const (
	scoreExact  = 1.0
	scoreFold   = 0.9
	scorePrefix = 0.7
	scoreFuzzy  = 0.2
	// ambiguous is how many definitions of one name make it noise in
	// hybrid mode (String, Error, New ...).
	ambiguous = 40
	// memberWeight scales the score of a symbol smaller than its chunk.
	memberWeight = 0.95
)

// symbols looks names up in the symbol map. In hybrid mode only words that
// look like identifiers, and two or three adjacent words run together
// ("is loopback" -> isloopback, is_loopback), are tried, exactly; symbol
// mode adds prefixes and fuzzy matches. typos adds fuzzy matches of a
// one-word query that names nothing exactly in hybrid mode too: hybrid
// asks for them when the text found nothing, as for a typo of a name.
func (v *view) symbols(q string, f filter, full, typos bool) ([]hit, error) {
	words := identifiers(q)
	var cands []string
	if full {
		cands = words
	} else {
		for _, w := range words {
			if looksLikeIdentifier(w) || len(words) == 1 {
				cands = append(cands, w)
			}
		}
		plain := strings.Fields(strings.ToLower(q))
		for i := 0; i+1 < len(plain); i++ {
			cands = append(cands, plain[i]+plain[i+1], plain[i]+"_"+plain[i+1])
			if i+2 < len(plain) {
				cands = append(cands, plain[i]+plain[i+1]+plain[i+2], plain[i]+"_"+plain[i+1]+"_"+plain[i+2])
			}
		}
	}
	best := map[key]float64{}
	var order []key
	add := func(s store.Symbol, score float64) {
		if !f.path(s.Path) || s.Ordinal < 0 {
			return
		}
		if s.HasSpan() {
			// A constant, field or property function ranks below a
			// function or type that matches as well.
			score *= memberWeight
		}
		// The symbol map and the search records are written in one
		// transaction with the file, so the ordinal names the same chunk
		// (finish drops a position the file does not have).
		k := key{s.Path, s.Ordinal}
		if _, seen := best[k]; !seen {
			order = append(order, k)
		}
		best[k] = max(best[k], score)
	}
	// A shared store's lookups, all in one round trip (see store.Batch),
	// with the postings of the query's words, which bestLines weighs the
	// results' lines by.
	b := v.tx.Batch()
	b.Postings(v.e.terms(q))
	for _, w := range cands {
		b.SymbolSeeks([]string{w + "\x00"})
		if full && len(w) >= 2 {
			b.SymbolSeeks([]string{w + "\x01"})
		}
	}
	b.Fetch()
	for _, w := range cands {
		var exact []store.Symbol
		err := v.tx.SymbolsWithPrefix(strings.ToLower(w)+"\x00", func(s store.Symbol) bool {
			exact = append(exact, s)
			return len(exact) <= ambiguous*4
		})
		if err != nil {
			return nil, err
		}
		if !full && len(exact) > ambiguous {
			continue
		}
		for _, s := range exact {
			score := scoreFold
			if s.Name == w {
				score = scoreExact
			}
			add(s, score)
		}
		if !full || len(w) < 2 {
			continue
		}
		n := 0
		err = v.tx.SymbolsLongerThan(w, func(s store.Symbol) bool {
			add(s, scorePrefix*float64(len(w))/float64(len(s.Name)))
			n++
			return n < 200
		})
		if err != nil {
			return nil, err
		}
	}
	if len(best) == 0 && (full && len(words) > 0 || typos && len(words) == 1) {
		if err := v.fuzzySymbols(words[len(words)-1], full, add); err != nil {
			return nil, err
		}
	}
	hits := make([]hit, 0, len(order))
	for _, k := range order {
		hits = append(hits, hit{key: k, score: best[k], raw: best[k]})
	}
	return top(hits, 200), nil
}

// fuzzyNames is how many names a fuzzy search looks up.
const fuzzyNames = 20

// fuzzySymbols adds the names closest to w, when nothing matched exactly
// or by prefix: as a typo of the name (see typo.go) or, with abbrev, by
// fzf-style subsequence matching (an abbreviation), whichever scores
// higher. Hybrid mode asks for typos only: four random letters are an
// abbreviation of some long name (dwet of Deterministic scored 0.125), but
// a typo of none.
func (v *view) fuzzySymbols(w string, abbrev bool, add func(store.Symbol, float64)) error {
	w = strings.ToLower(w)
	names, err := v.namesHolding(w)
	if err != nil {
		return err
	}
	scores := make(map[string]float64, len(names))
	// Absolute: against the score of a name that is w itself, so a few
	// scattered letters in common score near 0 however good they are
	// among what there is.
	if perfect := fuzzy.Find(w, []string{w}); abbrev && len(perfect) > 0 && perfect[0].Score > 0 {
		for _, m := range fuzzy.FindNoSort(w, names) {
			scores[m.Str] = scoreFuzzy * min(max(float64(m.Score)/float64(perfect[0].Score), 0), 1)
		}
	}
	for _, n := range names {
		scores[n] = max(scores[n], typoScore(w, n))
	}
	found := 0
	for _, n := range byScore(scores) {
		if found == fuzzyNames {
			break
		}
		// A name from the snapshot whose files changed since may have no
		// symbol left: it does not count.
		live := false
		err := v.tx.SymbolsWithPrefix(n+"\x00", func(s store.Symbol) bool {
			live = true
			add(s, scores[n])
			return true
		})
		if err != nil {
			return err
		}
		if live {
			found++
		}
	}
	return nil
}

// namesHolding returns the distinct lower-cased symbol names that hold w's
// bytes in order or may be a typo of it (only those can match it; finding
// them is a byte loop, much cheaper than scoring every name, see
// nearName): those of the snapshot's name
// table and of the files changed since, or, without a table, those of the
// symbol map itself.
func (v *view) namesHolding(w string) ([]string, error) {
	table, ok := v.e.snap.names, v.e.snap.hasNames
	if v.hasSnap && !ok {
		t, err := v.tx.SnapshotValue(keyNames)
		if err != nil {
			return nil, err
		}
		// One string: the names found are slices of it, not copies.
		if table, ok = string(t), t != nil; ok && !v.e.oneShot {
			v.e.snap.names, v.e.snap.hasNames = table, true
		}
	}
	var changed []string
	if !ok {
		table = v.allNames()
	} else {
		for p := range v.dirty {
			names, err := v.fileNames(p)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if nearName(w, n) {
					changed = append(changed, n)
				}
			}
		}
	}
	// The table is in order, each name once.
	var out []string
	for len(table) > 0 {
		name, rest, ok := strings.Cut(table, "\x00")
		if !ok {
			return nil, v.tx.SnapshotSealed(keyNames).Damaged("the symbol name table does not end with a NUL byte")
		}
		if nearName(w, name) {
			out = append(out, name)
		}
		table = rest
	}
	if len(changed) > 0 {
		out = append(out, changed...)
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out, nil
}

// nameCache is what a long-lived Engine keeps of the symbol names outside
// the snapshot's table, for one generation of the index: the names of
// files changed since the snapshot, and all names when there is no table.
type nameCache struct {
	gen    uint64
	files  map[string][]string
	all    string
	hasAll bool
}

// names returns e's name cache for the generation of tx, emptied when the
// index changed; nil for a one-shot Engine, which keeps nothing.
func (v *view) names() *nameCache {
	if v.e.oneShot {
		return nil
	}
	c := &v.e.names
	if gen := v.tx.Generation(); c.files == nil || c.gen != gen {
		*c = nameCache{gen: gen, files: map[string][]string{}}
	}
	return c
}

// fileNames returns the names of p's symbols (see store's FileSymbolNames).
func (v *view) fileNames(p string) ([]string, error) {
	c := v.names()
	if c != nil {
		if names, ok := c.files[p]; ok {
			return names, nil
		}
	}
	names, err := v.tx.FileSymbolNames(p)
	if err == nil && c != nil {
		c.files[p] = names
	}
	return names, err
}

// allNames returns every distinct symbol name, NUL-terminated, from the
// symbol map itself.
func (v *view) allNames() string {
	c := v.names()
	if c != nil && c.hasAll {
		return c.all
	}
	all := string(v.tx.AppendSymbolNames(nil))
	if c != nil {
		c.all, c.hasAll = all, true
	}
	return all
}

// identifiers splits a query into identifier-like words; a dotted name
// also yields its last part (Addr.IsLoopback -> IsLoopback).
func identifiers(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(q, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '$')
	}) {
		w = strings.Trim(w, ".")
		if w == "" {
			continue
		}
		out = append(out, w)
		if i := strings.LastIndexByte(w, '.'); i >= 0 {
			out = append(out, w[i+1:])
		}
	}
	return out
}

// looksLikeIdentifier is true for camelCase, snake_case and dotted words.
func looksLikeIdentifier(w string) bool {
	if strings.ContainsAny(w, "_.$") {
		return true
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// byScore returns the names of scores, highest score first, then shorter
// names (closer to what was typed), then by name; names scoring 0 are left
// out.
func byScore(scores map[string]float64) []string {
	names := make([]string, 0, len(scores))
	for n, sc := range scores {
		if sc > 0 {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return names
}

// nearName reports whether name may match w: w's bytes are in it in
// order, or it may be a typo of w (see typoCandidate).
func nearName(w, name string) bool { return subsequence(w, name) || typoCandidate(w, name) }

// subsequence reports whether the bytes of p occur in s in order.
func subsequence(p, s string) bool {
	i := 0
	for j := 0; i < len(p) && j < len(s); j++ {
		if s[j] == p[i] {
			i++
		}
	}
	return i == len(p)
}
