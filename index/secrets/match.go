package secrets

import (
	"math"
	"strings"
)

// This file runs one gitleaks rule over a text the way gitleaks' detector
// (detect.Detector.Detect, v8.30) runs it over a fragment with a file path
// and no commit, with no decoding passes (MaxDecodeDepth 0, the library's
// default), one rule per detector, so that its cross-rule filter never
// applies, and allowlists without path conditions (see allowlist), so that
// only the findings' own checks remain. Importing detect itself would link
// its file, archive, git and report sources (h2non/filetype, sprig, semver,
// decimal, xz, bzip2...), whose package init every dossier process paid at
// start-up, ~4 ms.
// TestMatchIsGitleaksDetect compares the two on real texts.

// hit is one finding of a rule: the 0-based line of the window its match
// begins on, the match (trimmed of line breaks) and the secret in it.
type hit struct {
	line          int
	match, secret string
}

// allowSignature on a match's line lets it through, as in gitleaks.
const allowSignature = "gitleaks:allow"

// find returns the rule's findings in raw (detect's detectRule). The rule
// must be compiled.
func (r *rule) find(raw string) []hit {
	if r.bare.skipReport || r.bare.regex == nil {
		return nil // a rule that only reports for another (none in the default config)
	}
	if r.lead != nil && !r.lead.may(raw) {
		return nil
	}
	matches := r.bare.regex.FindAllStringIndex(raw, -1)
	if len(matches) == 0 {
		return nil
	}
	var newlines []int
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\n' {
			newlines = append(newlines, i)
		}
	}
	var out []hit
	for _, m := range matches {
		secret := strings.Trim(raw[m[0]:m[1]], "\n")
		start, end := m[0], m[0]+len(secret)
		startLine, lineStart, lineEnd := location(newlines, raw, start, end)
		lineEnd = max(lineEnd, end)
		line := raw[lineStart:lineEnd]
		if strings.Contains(line, allowSignature) {
			continue
		}
		h := hit{line: startLine, match: secret, secret: secret}
		if groups := r.bare.regex.FindStringSubmatch(secret); len(groups) >= 2 {
			if r.bare.secretGroup > 0 {
				if len(groups) <= r.bare.secretGroup {
					continue
				}
				h.secret = groups[r.bare.secretGroup]
			} else {
				for _, g := range groups[1:] {
					if g != "" {
						h.secret = g
						break
					}
				}
			}
		}
		if r.bare.entropy != 0 && shannonEntropy(h.secret) <= r.bare.entropy {
			continue
		}
		base, err := r.base()
		if err != nil || allowed(base, h, line) {
			continue
		}
		own, err := r.allowlists()
		if err != nil || allowed(own, h, line) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// location is gitleaks' location for a match from start to end: the line it
// starts on and the span detect reports as its line. newlines are the
// offsets of raw's line breaks. The quirks are gitleaks' own (a line's span
// starts at the line break before it; a match after the last line break
// takes the whole text before it), kept so that "gitleaks:allow" and the
// allowlists that read a line see what gitleaks shows them.
func location(newlines []int, raw string, start, end int) (line, from, to int) {
	if len(newlines) == 0 {
		newlines = []int{len(raw)}
	}
	prev, set, last := 0, false, 0
	for n, nl := range newlines {
		last = n
		if prev <= start && start < nl {
			set, line, from, to = true, n, prev, nl
		}
		if prev < end && end <= nl {
			to = nl
		}
		prev = nl
	}
	if set {
		return line, from, to
	}
	i := 0
	for end+i < len(raw) && raw[end+i] != '\n' && raw[end+i] != '\r' {
		i++
	}
	return last + 1, 0, end + i
}

// allowed reports whether one of the allowlists lets the finding go
// (detect's checkFindingAllowed, without a commit or path conditions).
func allowed(lists []*allowlist, h hit, line string) bool {
	for _, a := range lists {
		target := h.secret
		switch a.target {
		case "match":
			target = h.match
		case "line":
			target = line
		}
		regex, stop := a.regexAllowed(target), a.stopWord(h.secret)
		if !a.and {
			if regex || stop {
				return true
			}
			continue
		}
		// Every condition the list has must hold; a commit never does.
		if !a.commits && (a.regex == nil || regex) && (a.stop == nil || stop) {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' entropy of a secret, in bits per character
// (the sum runs over runes, divided by the length in bytes, as gitleaks'
// does).
func shannonEntropy(data string) (entropy float64) {
	if data == "" {
		return 0
	}
	counts := make(map[rune]int)
	for _, c := range data {
		counts[c]++
	}
	inv := 1.0 / float64(len(data))
	for _, n := range counts {
		f := float64(n) * inv
		entropy -= f * math.Log2(f)
	}
	return entropy
}
