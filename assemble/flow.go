// Package assemble turns a snapshot of a flow into the prompt formats dossier
// writes: seed 003's prompt.mdctx and ctxplan.json, seed 000's Aptix
// [CONTEXT] block and its /responses input, and seed 004's context pack.
//
// Renderers are pure: a Flow in, bytes out, no I/O, no clock, no globals.
// The Assembler adds a memo of rendered blocks and their token counts so
// that re-assembling after one toggle only renders and counts what changed.
package assemble

import "strconv"

// Role is seed 003's message role of a part.
type Role string

// The roles of seed 003, in the order a prompt presents them.
const (
	System   Role = "system"
	User     Role = "user"
	Evidence Role = "evidence"
)

// Roles lists the roles in presentation order.
var Roles = []Role{System, User, Evidence}

// Status says whether a part is assembled.
type Status string

// Part states as ctxplan.json spells them.
const (
	Active  Status = "active"
	Skipped Status = "skipped"
)

// Detail is how much of an evidence part the prompt carries; `evidence fit`
// lowers it to stay under the budget.
type Detail string

// Detail levels, from the most to the least.
const (
	Full     Detail = ""
	Outline  Detail = "outline" // declarations and signatures only
	PathOnly Detail = "path"    // the heading and provenance, no content
)

// Part is one file of a flow's ctx/ directory as the renderers see it.
type Part struct {
	Rank string // three digits, "100"
	Kind string // "flow_sh"
	Role Role
	// File is the part's path relative to the flow directory, slash
	// separated: "ctx/evidence/100_flow_sh.evidence.md".
	File   string
	CID    string // "sha256:<hex>" of the part file's bytes
	Bytes  int    // size of the part file (of the linked file for links)
	Status Status
	Link   bool // a .link part: a live file, read at assembly
	Pinned bool
	Detail Detail
	// Source is the provenance of an evidence part; zero for hand-written
	// parts without a provenance comment.
	Source Source
	// Heading is what follows "## Evidence: " (the source path, or the
	// kind for a hand-written part).
	Heading string
	// Body is the part's markdown as prompt.mdctx carries it: for evidence,
	// the file without its own heading and provenance lines.
	Body string
	// Code is the raw content of a code evidence part (the inside of its
	// fence), which the Aptix block fences again with its language; empty
	// when the body is prose, in which case Body is used.
	Code string
	// OutlineText is the declarations-only form used at Detail Outline.
	OutlineText string
	// SourceSecrets are the pieces of secrets that the source file holds
	// inside the part's span: a span may cut a secret (a private key's
	// middle lines) that no scan of the part alone would recognise.
	SourceSecrets []SourceSecret
}

// SourceSecret is one line's piece of a secret found by scanning the whole
// source file; the pieces of one secret share an ID.
type SourceSecret struct {
	ID   int
	Rule string
	Line int // the source line of the piece
	Text string
}

// ID is the part's name without role and extension, "100_flow_sh", the
// identifier every command accepts.
func (p *Part) ID() string { return p.Rank + "_" + p.Kind }

// Source is the provenance comment of an evidence part:
// <!-- source_uri=file://core/flow.sh; cid=sha256:...; span=lines=100:200; tags=flow,manager -->
type Source struct {
	URI       string   // "file://core/flow.sh"
	Path      string   // "core/flow.sh", workspace relative
	CID       string   // "sha256:<hex>" of the source span when extracted
	Span      string   // "lines=100:200", "bytes=100:500" or "all"
	StartLine int      // first line of the span, 1-based
	EndLine   int      // last line of the span, included
	Language  string   // fence and Aptix language tag
	Symbol    string   // the symbol the span was selected by, if any
	Tags      []string // seed 003's #tags
	// Anchor finds the span again when its lines move: the hashes of its
	// first and last lines (see evidence's relocate). Commit is the commit
	// HEAD named when the span was taken, Dirty that the file differed
	// from it then. The three live in the part file only.
	Anchor string
	Commit string
	Dirty  bool
	// File is a hash of the whole file the span was taken from: while it
	// holds, nothing moved; when it does not, a symbol is looked up again
	// even if its old lines still read the same (a Python function that
	// grew at its end).
	File string
}

// Flow is the snapshot the renderers read: the parts in assembly order
// (seed 003's lexical order_rule) and the flow's settings.
type Flow struct {
	ID    string
	Mode  string // Aptix [MODE: ...], e.g. "fix", "explain"
	Parts []Part
	// Budget is the flow's token limit; the context pack allocates it.
	Budget int
	// Pack holds what only the context pack carries.
	Pack PackInput
	// AllowSecrets sends secrets as they are; by default every format
	// replaces them with [REDACTED:<rule-id>] (see Result.Redactions).
	AllowSecrets bool
}

// Active reports whether the part is assembled.
func (p *Part) Active() bool { return p.Status == Active }

// ChunkID is seed 000's stable chunk id of a part: its source as
// `evidence add` takes it (PATH::@Symbol, PATH::A,B or PATH), which ranking
// and rebasing leave alone, so an answer's reference still maps to its
// source after the flow is regroomed. A part with no source file (a hand
// written note) is known by its part id.
func (p *Part) ChunkID() string {
	s := p.Source
	switch {
	case s.Path == "":
		return p.ID()
	case s.Symbol != "":
		return s.Path + "::@" + s.Symbol
	case s.StartLine > 0 && s.Span != "all":
		return s.Path + "::" + strconv.Itoa(s.StartLine) + "," + strconv.Itoa(s.EndLine)
	}
	return s.Path
}

// Lines renders the source span as "start-end" for Aptix's Lines field.
func (s Source) Lines() string {
	if s.StartLine == 0 {
		return ""
	}
	return strconv.Itoa(s.StartLine) + "-" + strconv.Itoa(s.EndLine)
}

// PackInput is what seed 004's context pack carries besides the parts:
// the workspace state and the conversation so far. The caller gathers it
// (git, tool output); the renderer only formats it.
type PackInput struct {
	Branch      string       // current git branch
	Modified    []string     // modified files, workspace relative
	Diagnostics []Diagnostic // from `evidence from-output`
	Terminal    string       // the tail of the last tool output read
	History     []Message    // oldest first
}

// Diagnostic is one file:line message from tool output.
type Diagnostic struct {
	File    string `yaml:"file"`
	Line    int    `yaml:"line"`
	Message string `yaml:"message"`
}

// Message is one turn of the conversation history.
type Message struct {
	Role    string `yaml:"role"`
	Content string `yaml:"content"`
}
