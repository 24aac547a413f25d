package evidence

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

// AnswerRef is something an answer mentions that can become evidence
// (seed 004's post-plan and failure retrieval start from the answer): a
// workspace file, lines of one, or a symbol the index knows.
type AnswerRef struct {
	// Selector is what `evidence add` takes: PATH, PATH::L1,L2 or
	// PATH::@Symbol.
	Selector string
	Path     string
	// Start, End are the lines the selector takes (with context around a
	// mentioned line, the span of the symbol enclosing it, or the
	// symbol's); 0 for a whole file.
	Start, End int
	Symbol     string
	// Mention is the text of the answer that named it.
	Mention string
	// InFlow is the id of the part that already holds it, or "".
	InFlow string
}

// refContext is the lines taken on each side of a mentioned line when no
// symbol of the index encloses it.
const refContext = 3

// maxEnclosing is the longest span of an enclosing symbol taken for a
// mentioned line; a longer one (a whole class) gives way to the context.
const maxEnclosing = 150

var (
	// pathRe finds a path with an extension, optionally with :LINE,
	// :LINE-LINE, :LINE:COL or #L12-L20 after it.
	pathRe = lazyRegexp(`(?:^|[\s(\[{<"'` + "`" + `,;=])((?:\.{1,2}/|/)?(?:[\w@+\-.]+/)*[\w@+\-]+(?:\.[\w\-]+)*\.[A-Za-z][\w]{0,9})(?:(?::|#L|, line |:line )(\d+)(?:(?:-|–|:|-L|, )(\d+))?)?`)
	// backtickRe finds inline code spans.
	backtickRe = lazyRegexp("`([^`\n]{1,200})`")
	// identRe is a symbol name as an answer writes it: Parse, parser.Parse,
	// Parser::parse, (*Parser).Parse, parse(), $obj->method.
	identRe = lazyRegexp(`^(?:\(\*?)?([A-Za-z_$][\w$]*(?:(?:\)?\.|::|->)[A-Za-z_$][\w$]*)*)(?:\(.*\))?;?$`)
	// declRe finds a declared or called name in a fenced code block.
	declRe = lazyRegexp(`\b(?:func(?:\s*\([^)]*\))?|function|def|class|interface|type|struct|trait|fn)\s+([A-Za-z_$][\w$]*)`)
)

// AnswerRefs lists the workspace files, line ranges and symbols an answer
// mentions, in order of first mention and each once, marking those the
// flow already holds. Only regular files inside the workspace count,
// never one the flow would refuse (a credential file); a line past the
// end of its file drops the mention. Symbols need the index (without one
// only paths are found) and must name one definition.
func (e *Engine) AnswerRefs(text string) ([]AnswerRef, error) {
	var cov Coverage
	if f, err := e.Flow(); err == nil {
		cov = f.Coverage()
	}
	var db *store.DB
	if d, err := openIndex(e.Root); err == nil {
		db = d
		defer db.Close()
	}
	x := refExtractor{e: e, db: db, seen: map[string]bool{}, lines: map[string]int{}}
	x.scan(text)
	for i := range x.out {
		r := &x.out[i]
		if by, ok := cov.Covering(r.Path, r.Start, r.End); ok {
			r.InFlow = by.ID
		}
	}
	return x.out, nil
}

type refExtractor struct {
	e     *Engine
	db    *store.DB
	out   []AnswerRef
	seen  map[string]bool
	lines map[string]int // line counts of files read
}

// mention is one candidate with its offset in the answer.
type mention struct {
	at  int
	ref func() (AnswerRef, bool)
}

func (x *refExtractor) scan(text string) {
	var ms []mention
	for _, m := range pathRe().FindAllStringSubmatchIndex(text, -1) {
		p := text[m[2]:m[3]]
		var a, b string
		if m[4] >= 0 {
			a = text[m[4]:m[5]]
		}
		if m[6] >= 0 {
			b = text[m[6]:m[7]]
		}
		whole := text[m[2]:max(m[3], m[5], m[7])]
		ms = append(ms, mention{m[2], func() (AnswerRef, bool) { return x.pathRef(p, a, b, whole) }})
	}
	inFence := false
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		} else if inFence {
			for _, m := range declRe().FindAllStringSubmatchIndex(line, -1) {
				name := line[m[2]:m[3]]
				ms = append(ms, mention{off + m[2], func() (AnswerRef, bool) { return x.symbolRef(name, name) }})
			}
		} else {
			for _, m := range backtickRe().FindAllStringSubmatchIndex(line, -1) {
				code := strings.TrimSpace(line[m[2]:m[3]])
				if id := identRe().FindStringSubmatch(code); id != nil && !strings.Contains(code, "/") {
					name := normalizeSymbol(id[1])
					ms = append(ms, mention{off + m[2], func() (AnswerRef, bool) { return x.symbolRef(name, code) }})
				}
			}
		}
		off += len(line)
	}
	// In order of first mention: a stable sort on the offsets.
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].at < ms[j-1].at; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	for _, m := range ms {
		r, ok := m.ref()
		if !ok || x.seen[r.Selector] {
			continue
		}
		x.seen[r.Selector] = true
		x.out = append(x.out, r)
	}
}

// normalizeSymbol writes the separators of other languages as dots:
// Parser::parse, $obj->parse, (*Parser).Parse.
func normalizeSymbol(s string) string {
	s = strings.NewReplacer("::", ".", "->", ".", ").", ".").Replace(s)
	s = strings.TrimLeft(s, "(*$")
	return s
}

// pathRef checks a mentioned path: a regular file inside the workspace
// that the flow would take, with its lines when the answer gave some.
func (x *refExtractor) pathRef(p, a, b, mentioned string) (AnswerRef, bool) {
	if strings.HasPrefix(p, "../") || strings.Contains(p, "/../") {
		return AnswerRef{}, false
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(x.e.Root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return AnswerRef{}, false
		}
		p = filepath.ToSlash(rel)
	}
	p = strings.TrimPrefix(p, "./")
	if p == "" || strings.HasPrefix(p, ".dossier/") || strings.HasPrefix(p, ".git/") {
		return AnswerRef{}, false
	}
	rel, abs, err := inRoot(x.e.Root, p)
	if err != nil || refuseSecretFile(x.e.Root, rel, abs) != nil {
		return AnswerRef{}, false
	}
	r := AnswerRef{Selector: rel, Path: rel, Mention: mentioned}
	if a == "" {
		return r, true
	}
	start, _ := strconv.Atoi(a)
	end := start
	if n, err := strconv.Atoi(b); err == nil && n >= start && !strings.Contains(mentioned, ":"+a+":"+b) {
		end = n // :LINE:COL is a column, not a range
	}
	total := x.lineCount(abs)
	if start < 1 || start > total {
		return AnswerRef{}, false
	}
	end = min(end, total)
	if s, e, sym, ok := x.enclosing(rel, start, end); ok {
		start, end, r.Symbol = s, e, sym
	} else {
		start, end = max(1, start-refContext), min(total, end+refContext)
	}
	r.Start, r.End = start, end
	r.Selector = fmt.Sprintf("%s::%d,%d", rel, start, end)
	return r, true
}

func (x *refExtractor) lineCount(abs string) int {
	if n, ok := x.lines[abs]; ok {
		return n
	}
	raw, err := os.ReadFile(abs)
	n := 0
	if err == nil {
		n = bytes.Count(raw, []byte("\n"))
		if len(raw) > 0 && raw[len(raw)-1] != '\n' {
			n++
		}
	}
	x.lines[abs] = n
	return n
}

// enclosing is the smallest indexed chunk with a symbol that holds lines
// start..end of path, when it is not too long.
func (x *refExtractor) enclosing(path string, start, end int) (int, int, string, bool) {
	if x.db == nil {
		return 0, 0, "", false
	}
	var best store.Chunk
	found := false
	_ = x.db.View(func(tx *store.Tx) error {
		chunks, err := tx.FileChunks(path)
		if err != nil {
			return err
		}
		for _, c := range chunks {
			if c.Symbol == "" || c.StartLine > start || c.EndLine < end || c.EndLine-c.StartLine >= maxEnclosing {
				continue
			}
			if !found || c.EndLine-c.StartLine < best.EndLine-best.StartLine {
				best, found = c, true
			}
		}
		return nil
	})
	return best.StartLine, best.EndLine, best.Symbol, found
}

// symbolRef looks a name up in the index: one definition gives
// PATH::@Name; none or several give nothing (several cannot be added
// with one key).
func (x *refExtractor) symbolRef(name, mentioned string) (AnswerRef, bool) {
	if x.db == nil || len(name) < 3 {
		return AnswerRef{}, false
	}
	path, err := ResolveSymbol(x.db, name)
	if err != nil {
		return AnswerRef{}, false
	}
	sel := Selector{related.Target{Path: path, Symbol: name}}
	ex, err := ExtractSpan(x.e.Root, sel, x.db) // inside the workspace, not a credential file
	if err != nil {
		return AnswerRef{}, false
	}
	// The span, so the flow's coverage of it can be told.
	return AnswerRef{Selector: ex.Source.Path + "::@" + name, Path: ex.Source.Path, Symbol: name, Mention: mentioned,
		Start: ex.Source.StartLine, End: ex.Source.EndLine}, true
}
