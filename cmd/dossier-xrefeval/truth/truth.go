// Package truth is the ground-truth file format of dossier-xrefeval: the
// call edges a type checker finds in one repository, written by gotruth
// (Go), tstruth/truth.mjs (TypeScript), javatruth/Truth.java (Java) and
// pytruth/truth.py (Python, jedi) and read by the comparator.
package truth

// File is the ground truth of one repository.
type File struct {
	Repo   string `json:"repo"`
	Commit string `json:"commit"`
	Lang   string `json:"lang"`
	Defs   []Def  `json:"defs"`
	Edges  []Edge `json:"edges"`
}

// Def is a function or method of the repository; Line is the line of its
// name, Container its receiver type or class ("" at top level). End, when
// the truth gives it (javatruth, pytruth), is the last line of its declaration: the
// comparator then selects the lines Line to End, one overload, rather than
// the symbol, which names them all.
type Def struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	End       int    `json:"end,omitempty"`
	Name      string `json:"name"`
	Container string `json:"container"`
	Kind      string `json:"kind,omitempty"`
}

// Edge is one call: Defs[Caller] calls Defs[Callee] on Line.
type Edge struct {
	Caller int `json:"caller"`
	Callee int `json:"callee"`
	Line   int `json:"line"`
}
