package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// A shared store never receives a secret: the text it keeps has each one
// replaced in place by a stored mask of the same length (so that every
// byte offset and line number of the chunks holds): the substitute byte
// SUB (0x1A), the rule's id, SUB again, then SUB up to the secret's end,
// its line breaks kept. Scan finds stored masks as it finds secrets, with
// their rules, so every exit (assemble, MCP, previews, best lines) redacts
// a text read from a shared store exactly as the local one: the same
// "[REDACTED:rule]"; only Mask's hint of a secret's first characters is
// gone, as the store never had them.

// sub is the byte a stored mask is made of.
const sub = '\x1a'

// MaskStored replaces each finding's secret in text (in place) by its
// stored mask.
func MaskStored(text []byte, fs []Finding) {
	for _, f := range fs {
		if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
			continue
		}
		span := text[f.Start:f.End]
		label := string(sub) + f.Rule + string(sub)
		if len(label) > len(span) || strings.ContainsAny(string(span[:len(label)]), "\r\n") {
			label = ""
		}
		for i := range span {
			switch {
			case i < len(label):
				span[i] = label[i]
			case span[i] != '\n' && span[i] != '\r':
				span[i] = sub
			}
		}
	}
}

// storedMasks finds the stored masks in text.
func storedMasks(text string) []Finding {
	var out []Finding
	for i := strings.IndexByte(text, sub); i >= 0; {
		start, rule := i, "secret"
		j := i + 1
		if k := strings.IndexByte(text[j:], sub); k >= 0 && k <= 64 && isRuleID(text[j:j+k]) && k > 0 {
			rule, j = text[j:j+k], j+k+1
		}
		for j < len(text) && (text[j] == sub || ((text[j] == '\n' || text[j] == '\r') && j+1 < len(text) && (text[j+1] == sub || text[j+1] == '\n'))) {
			j++
		}
		out = append(out, Finding{Rule: rule, Line: strings.Count(text[:start], "\n") + 1, Start: start, End: j})
		next := strings.IndexByte(text[j:], sub)
		if next < 0 {
			break
		}
		i = j + next
	}
	return out
}

func isRuleID(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Term is the one search term a secret is indexed by: a hash of it,
// never its text, so that a search for a leaked key finds where it is
// while no index (nor a shared store) holds a character of it. The query
// side adds the same term for a secret a query holds (see QueryTerms).
func Term(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return string(sub) + hex.EncodeToString(h[:12])
}

// QueryTerms returns a query as the index tokenizes the text it holds
// (each secret redacted) and the Term of each secret in it.
func QueryTerms(q string) (string, []string) {
	if !mayHoldSecret(q) {
		return q, nil
	}
	found := Scan("", q)
	var terms []string
	for _, f := range found {
		terms = append(terms, Term(q[f.Start:f.End]))
	}
	return Redact(q, found), terms
}

// mayHoldSecret is a cheap test before a query is scanned: a secret is at
// least this long and has no space.
func mayHoldSecret(q string) bool {
	for _, w := range strings.Fields(q) {
		if len(w) >= 16 {
			return true
		}
	}
	return false
}
