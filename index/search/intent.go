package search

import (
	"path"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
)

// The document-kind prior of the reranker. Most questions asked of a code
// base are about its behaviour, and what answers them is the code that
// implements it; its prose (docs, READMEs, plain text, man pages) and its
// tests describe the same behaviour in the same words, and its release
// notes name every feature once per version, so by their words alone they
// match as well or better (on requests, fzf and axios a docs page or a
// test ranked first for 14 of 45 behavioural questions, see
// TestKindPriorRanksCodeFirst). Each kind of document therefore has a
// prior, and the query's intent overrides it: a query that asks for
// documentation, tests or release notes ranks them as code (see intentOf),
// and prose ranks as code when no code matches the query at all (see
// applyKindPriors), so a question only the docs answer is still answered
// by them.
const (
	testPrior    = 0.6  // tests, below the code they test (seed 004)
	prosePrior   = 0.5  // docs, READMEs, text
	releasePrior = 0.35 // changelogs and release notes, below both
)

// docClass is what a chunk's file is to the reader of a result.
type docClass uint8

const (
	classCode docClass = iota
	classTest
	classProse
	classRelease
)

// classOf classifies a chunk by its source type and path. Only prose can
// be release notes: history.go is code whatever its name.
func classOf(m *Meta, p string) docClass {
	switch {
	case m.IsTest():
		return classTest
	case m.SrcType == lang.SrcDoc || m.SrcType == lang.SrcReadme || m.SrcType == lang.SrcADR || m.SrcType == lang.SrcText:
		if isReleaseNotes(p) {
			return classRelease
		}
		return classProse
	}
	return classCode
}

// releaseNames are the stems (lower-cased, without '-' and '_', or
// followed by a version) of files that hold release notes: CHANGELOG.md,
// HISTORY.rst, NEWS, RELEASE-NOTES.md, CHANGES.txt, whatsnew.rst,
// changelog-2.1.md.
var releaseNames = map[string]bool{"changelog": true, "changes": true, "history": true, "news": true,
	"release": true, "releases": true, "releasenotes": true, "whatsnew": true}

// releaseDirs are the directory names under which every document is a
// release note: docs/changelog/1.2.md, release-notes/v3.md, whatsnew/3.12.rst.
var releaseDirs = map[string]bool{"changelog": true, "changelogs": true, "release-notes": true,
	"release_notes": true, "releasenotes": true, "releases": true, "whatsnew": true, "newsfragments": true}

// isReleaseNotes reports whether p names a changelog or release notes.
func isReleaseNotes(p string) bool {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	// the whole stem (CHANGELOG.md, release-notes.rst, HISTORY), or a
	// name and a version (changelog-1.2.md, NEWS_3.txt): a prefix alone
	// would make docs/release-process.md or history-of-auth.md release
	// notes
	stem := strings.TrimSuffix(base, path.Ext(base))
	if releaseNames[base] || releaseNames[strings.NewReplacer("-", "", "_", "").Replace(stem)] {
		return true
	}
	if i := strings.IndexAny(stem, ".-_"); i > 0 && releaseNames[stem[:i]] {
		rest := strings.TrimLeft(stem[i+1:], "v")
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
	}
	for _, d := range strings.Split(path.Dir(lower), "/") {
		if releaseDirs[d] {
			return true
		}
	}
	return false
}

// intent is what kinds of document a query asks for by name.
type intent struct {
	docs, tests, release bool
}

// Words that ask for a kind of document. A word counts when the query has
// it whole; "how to" and "what's new" are phrases. Words that also name
// behaviour stay out: "history" (fzf's query history), "release" (a lock),
// "usage" (a command's), "version" (comparing them).
var (
	docWords = map[string]bool{"doc": true, "docs": true, "documentation": true, "documented": true,
		"readme": true, "guide": true, "tutorial": true, "faq": true, "howto": true}
	releaseWords = map[string]bool{"changelog": true, "changelogs": true, "whatsnew": true}
)

// intentOf reads a query's intent from its words.
func intentOf(q string) intent {
	var in intent
	lower := strings.ToLower(q)
	words := strings.FieldsFunc(lower, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'')
	})
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "test") || w == "spec" || w == "specs":
			in.tests = true
		case docWords[w]:
			in.docs = true
		case releaseWords[w]:
			in.release = true
		}
	}
	in.docs = in.docs || strings.Contains(lower, "how to ") || strings.Contains(lower, "how do i ")
	in.release = in.release || strings.Contains(lower, "what's new") || strings.Contains(lower, "release notes")
	return in
}

// prior is the factor a chunk of class c ranks by for a query of this
// intent; codeMatches says whether any code answers the query.
func (in intent) prior(c docClass, codeMatches bool) float64 {
	switch c {
	case classTest:
		if !in.tests {
			return testPrior
		}
	case classProse:
		if !in.docs && codeMatches {
			return prosePrior
		}
	case classRelease:
		switch {
		case in.release:
		case in.docs || !codeMatches:
			return prosePrior // prose, but below the rest of it
		default:
			return releasePrior
		}
	}
	return 1
}

// codeMatchScore is the score at which code answers a query: a match of
// the query's words, not one of the weak candidates the threshold
// (DefaultMinScore) still shows so that nothing right is hidden.
const codeMatchScore = 0.25

// applyKindPriors multiplies each result's rank and score by its kind's
// prior for the query's intent. Code matches the query when one of its
// chunks scores at least codeMatchScore, whatever the query's own
// threshold, so that the order does not depend on it: without such a
// chunk, prose is what there is, and ranks as code.
func applyKindPriors(all []ranked, in intent) {
	codeMatches := false
	for _, r := range all {
		if r.class == classCode && r.Score >= codeMatchScore {
			codeMatches = true
			break
		}
	}
	for i := range all {
		p := in.prior(all[i].class, codeMatches)
		all[i].rank *= p
		all[i].Score *= p
	}
}
