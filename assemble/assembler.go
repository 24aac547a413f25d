package assemble

import (
	"strings"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// Result is one assembled prompt with its token accounting.
type Result struct {
	Format   Format
	Text     string
	Tokens   int    // the whole output (for responses: its texts)
	Encoding string // "o200k_base", "cl100k_base" or "estimate"
	Exact    bool   // false when Encoding is the bytes/4 estimate
	// PartTokens holds, per Flow.Parts, what the part's block costs in this
	// format, for skipped parts too (what enabling it would add). Zero for
	// parts the format leaves out (system and user parts in aptix).
	PartTokens []int
	// ByRole sums the tokens of active parts per role; Frame is the rest
	// (headers and headings), so Frame + the ByRole values = Tokens.
	ByRole map[Role]int
	Frame  int
	// Redactions lists the secrets in active parts: replaced by
	// [REDACTED:<rule>] in Text, or sent as they are when the flow allows
	// secrets.
	Redactions []Redaction
}

// Assembler renders flows and counts their tokens, remembering rendered
// blocks and counts by part version (file, cid, detail) so that
// re-assembly after a toggle renders and counts only what changed. It is
// not safe for concurrent use.
type Assembler struct {
	counter tokens.Counter
	cache   *tokens.Cache
	memo    map[blockKey]*block
	frames  map[string]int
	escaped map[string]string    // JSON-escaped framing strings
	scans   map[scanKey]*scanned // by file and cid: see redact
	utf8ok  map[utf8Key]bool     // see validText
	clean   *CleanSet
	raw     bool // this round assembles with secrets allowed
	round   int
}

type blockKey struct {
	format Format
	file   string
	cid    string
	detail Detail
	raw    bool // rendered with its secrets
}

type block struct {
	text    string
	escaped string // JSON-escaped text, for the responses format
	tokens  int
	round   int
}

// NewAssembler returns an Assembler counting with c; cache, when not nil,
// keeps counts across Assemblers and runs (see tokens.Cache).
func NewAssembler(c tokens.Counter, cache *tokens.Cache) *Assembler {
	if cache == nil {
		cache = tokens.NewCache()
	}
	return &Assembler{counter: c, cache: cache, memo: map[blockKey]*block{}, frames: map[string]int{}, escaped: map[string]string{},
		scans: map[scanKey]*scanned{}, utf8ok: map[utf8Key]bool{}, clean: NewCleanSet(nil)}
}

// Counter is the token counter the Assembler uses.
func (a *Assembler) Counter() tokens.Counter { return a.counter }

// Count counts text through the cache.
func (a *Assembler) Count(text string) int { return a.cache.Count(a.counter, text) }

// Assemble renders f in format.
func (a *Assembler) Assemble(f *Flow, format Format) Result {
	a.round++
	defer a.prune(len(f.Parts))
	res := Result{
		Format:     format,
		Encoding:   a.counter.Encoding(),
		Exact:      a.counter.Exact(),
		PartTokens: make([]int, len(f.Parts)),
		ByRole:     map[Role]int{},
	}
	a.raw = f.AllowSecrets
	f = a.validText(f)
	f = a.redact(f, format, &res)
	switch format {
	case Aptix:
		segs := a.aptixSegments(f, &res)
		res.Text, res.Tokens = a.join(segs)
	case Responses:
		a.responses(f, &res)
	case Pack:
		// The pack allocates its budget itself; per part it reports what
		// the part costs in prompt.mdctx, and the rest is framing.
		res.Text = RenderPack(f, a.Count)
		res.Tokens = a.Count(res.Text)
		for i := range f.Parts {
			p := &f.Parts[i]
			res.PartTokens[i] = a.block(MDCtx, p).tokens
			if p.Active() {
				res.ByRole[p.Role] += res.PartTokens[i]
			}
		}
	default:
		res.Format = MDCtx
		segs := a.mdctxSegments(f, &res)
		res.Text, res.Tokens = a.join(segs)
	}
	res.Frame = res.Tokens
	for _, n := range res.ByRole {
		res.Frame -= n
	}
	res.Frame = max(0, res.Frame) // a pack that dropped parts costs less than their sum
	return res
}

// block returns the memoized rendering of p in format. A skipped part is
// rendered under its active file name: its count is what enabling it would
// add, and a toggle finds its block already counted.
func (a *Assembler) block(format Format, p *Part) *block {
	if file, ok := strings.CutSuffix(p.File, ".skip"); ok {
		q := *p
		q.File = file
		p = &q
	}
	k := blockKey{format, p.File, p.CID, p.Detail, a.raw}
	if b, ok := a.memo[k]; ok {
		b.round = a.round
		return b
	}
	var text string
	switch format {
	case Aptix:
		text = aptixBlock(p)
	default:
		text = mdctxBlock(p)
	}
	b := &block{text: text, round: a.round}
	if text != "" {
		b.tokens = a.Count(text)
	}
	a.memo[k] = b
	return b
}

// frame counts a small framing string (a heading, a chunk header).
func (a *Assembler) frame(s string) segment {
	n, ok := a.frames[s]
	if !ok {
		n = a.counter.Count(s)
		a.frames[s] = n
	}
	return segment{text: s, part: -1, tokens: n}
}

func (a *Assembler) mdctxSegments(f *Flow, res *Result) []segment {
	segs := make([]segment, 0, len(f.Parts)+4)
	segs = append(segs, a.frame(MDCtxHeader(f.ID)))
	prev := Role("")
	for i := range f.Parts {
		p := &f.Parts[i]
		b := a.block(MDCtx, p)
		res.PartTokens[i] = b.tokens
		if !p.Active() || b.text == "" {
			continue
		}
		if p.Role != prev && p.Role != Evidence {
			segs = append(segs, a.frame(roleHeading(p.Role)))
		}
		prev = p.Role
		res.ByRole[p.Role] += b.tokens
		segs = append(segs, segment{text: b.text, part: i, tokens: b.tokens})
	}
	return segs
}

func (a *Assembler) aptixSegments(f *Flow, res *Result) []segment {
	segs := make([]segment, 0, 2*len(f.Parts)+1)
	segs = append(segs, a.frame(ContextHeader))
	n := 0
	for i := range f.Parts {
		p := &f.Parts[i]
		// The context holds the evidence and what the tools printed;
		// other user parts are the instruction.
		if p.Role != Evidence && !p.IsDiagnostics() {
			continue
		}
		b := a.block(Aptix, p)
		res.PartTokens[i] = b.tokens
		if !p.Active() {
			continue
		}
		if p.Detail == PathOnly {
			res.ByRole[Evidence] += b.tokens
			segs = append(segs, segment{text: b.text, part: i, tokens: b.tokens})
			continue
		}
		n++
		h := a.frame(chunkHeader(n))
		res.PartTokens[i] += h.tokens
		res.ByRole[p.Role] += b.tokens + h.tokens
		segs = append(segs, h, segment{text: b.text, part: i, tokens: b.tokens})
	}
	return segs
}

// join concatenates segments and totals their tokens.
func (a *Assembler) join(segs []segment) (string, int) {
	size := 0
	for _, s := range segs {
		size += len(s.text)
	}
	var b strings.Builder
	b.Grow(size)
	for _, s := range segs {
		b.WriteString(s.text)
	}
	return b.String(), a.total(segs)
}

// total adds up the segments' tokens. Counts add up exactly across a
// boundary that tokens.Joinable accepts; segments meeting at any other
// boundary are counted together.
func (a *Assembler) total(segs []segment) int {
	total := 0
	for i := 0; i < len(segs); {
		j := i
		for j+1 < len(segs) && !tokens.Joinable(segs[j].text, segs[j+1].text) {
			j++
		}
		if j == i {
			total += segs[i].tokens
		} else {
			var b strings.Builder
			for k := i; k <= j; k++ {
				b.WriteString(segs[k].text)
			}
			total += a.Count(b.String())
		}
		i = j + 1
	}
	return total
}

// prune forgets blocks not used in the last few rounds once the memo holds
// far more versions than the flow has parts.
func (a *Assembler) prune(parts int) {
	if len(a.scans) > 4*parts+64 {
		clear(a.scans)
	}
	if len(a.utf8ok) > 4*parts+64 {
		clear(a.utf8ok)
	}
	if len(a.memo) <= 4*parts+64 {
		return
	}
	for k, b := range a.memo {
		if b.round < a.round-1 {
			delete(a.memo, k)
		}
	}
}
