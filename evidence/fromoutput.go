package evidence

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence/trace"
	"github.com/dossierhq/dossier/store"
)

func init() {
	register(&command{group: "evidence", name: "from-output", args: "FILE|-",
		summary: "Read test or build output (Go, Python, pytest, Node, Jest, TypeScript, ESLint, gcc/clang,\n" +
			"rustc, PHP, PHPUnit, Laravel, Java, .NET, Ruby, RSpec, Minitest), write its failures, their\n" +
			"locations and the output's tail as the diagnostics user part (every format carries it),\n" +
			"and add the enclosing symbol of each location (or 30 lines around) as evidence: each\n" +
			"failure's failing site (its innermost frame in the workspace) in the 100s, the frames that\n" +
			"led there (the test that found it) in the 200s. Paths from a container, a CI runner or\n" +
			"another checkout map to the workspace by their longest suffix that is an indexed file.",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.IntVar(&o.limit, "limit", 10, "most locations to add")
		},
		run: (*Engine).fromOutput})
}

// terminalTail is how much of the output the diagnostics part keeps.
const terminalTail = 40

// maxReported bounds the failures and mappings the diagnostics part lists.
const maxReported = 20

func (e *Engine) fromOutput(c *call) error {
	if err := c.needArgs(1, 1, "FILE or - for stdin"); err != nil {
		return err
	}
	var r io.Reader = e.Stdin
	source := "stdin"
	if c.args[0] != "-" {
		fh, err := e.openOutput(c.args[0])
		if err != nil {
			return err
		}
		defer fh.Close()
		r, source = fh, filepath.Base(c.args[0])
	}
	var raw strings.Builder
	refs, truncated, err := trace.ParseReader(io.TeeReader(r, &raw))
	if err != nil {
		return fmt.Errorf("read output: %w", err)
	}
	db, _ := openIndex(e.Root) // without an index, spans are line windows
	if db != nil {
		defer db.Close()
	}
	var suffix func(string) []string
	if db != nil {
		_ = db.View(func(tx *store.Tx) error {
			suffix = trace.NewSuffixIndex(tx.Paths())
			return nil
		})
	}
	exists := func(rel string) bool {
		st, err := os.Stat(filepath.Join(e.Root, filepath.FromSlash(rel)))
		return err == nil && !st.IsDir()
	}
	resolved, dropped := trace.ResolveWith(refs, e.Root, exists, suffix)
	if len(resolved) == 0 {
		return fmt.Errorf("found %d location(s) in the output, none inside the workspace (%s)", len(refs), droppedText(dropped))
	}
	f, err := e.flowOrCreate(c.w)
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	fails := groupFailures(refs, resolved)
	held := map[string]string{} // "rel:line" -> the part holding it
	added := 0
	for _, loc := range addOrder(fails) {
		if added >= c.o.limit {
			break
		}
		ref := loc.ref
		sel, sym := spanAround(e.Root, db, ref.Rel, ref.Line)
		if loc.test != "" {
			if !defines(db, ref.Rel, loc.test) {
				continue // the helper's file is not the test's: the site stands for it
			}
			sel, sym = ref.Rel+"::@"+loc.test, loc.test
		}
		if sel == "" {
			fmt.Fprintf(c.w, "  - %s:%d is past the end of the file (output older than the code?)\n", ref.Rel, ref.Line)
			continue
		}
		band := Bands[2]
		if loc.site {
			band = Bands[1]
		}
		kind := ""
		if sym != "" {
			kind = Sanitize(path.Base(ref.Rel) + "_" + sym)
		}
		p, err := e.Add(AddRequest{Selector: sel, Role: assemble.Evidence, Rank: -1, Band: band, Kind: kind, Via: "output:" + ref.Format})
		var covered *CoveredError
		switch {
		case err == nil:
			added++
			held[locKey(ref)] = p.ID()
			fmt.Fprintf(c.w, "✓ %-28s %s:%d  %s\n", p.ID(), ref.Rel, ref.Line, ref.Message)
		case errors.As(err, &covered):
			if loc.test == "" {
				held[locKey(ref)] = covered.By.ID
			}
		default:
			fmt.Fprintf(c.w, "  - %s: %v\n", sel, firstLine(err.Error()))
		}
	}
	rep := report(source, refs, fails, held, dropped)
	rep.Output = tail(raw.String(), terminalTail)
	dp, err := e.writeDiagnostics(f, rep.Markdown())
	if err != nil {
		return err
	}
	id := dp.ID()
	fmt.Fprintf(c.w, "✓ %-28s %d failure(s), %d location(s) in the workspace\n", id, len(rep.Failures), countLocations(rep))
	if !dp.Active() {
		fmt.Fprintf(c.w, "  note: %s is skipped: `dossier evidence toggle on %s` puts the error back in the prompt\n", id, id)
	}
	for _, m := range rep.Mapped {
		fmt.Fprintf(c.w, "  mapped %s -> %s\n", m.From, m.To)
	}
	// The pack reads the diagnostics part now; flow.json's copy would
	// repeat it.
	f.Meta.Diagnostics, f.Meta.Terminal = nil, ""
	if err := f.SaveMeta(); err != nil {
		return err
	}
	if truncated {
		fmt.Fprintf(c.w, "  note: only the first %d MB of the output were read\n", trace.MaxInput>>20)
	}
	if n := dropped.Outside + dropped.Missing + dropped.Vendor + dropped.Ambiguous; n > 0 {
		fmt.Fprintf(c.w, "  left out %d location(s): %s\n", n, droppedText(dropped))
	}
	return e.finishBatch(c.w, added)
}

// failure is one failure of the output with its locations in the
// workspace, in order of appearance.
type failure struct {
	num  int
	msg  string
	locs []trace.Resolved
	site int // index into locs of the failing site, -1 without one
}

// groupFailures groups the resolved refs by failure. A failure's site is
// its innermost frame in the workspace (the lowest Frame) that names a
// line and is not a run's summary line; a summary line naming only a file
// that another location already names is dropped.
func groupFailures(refs []trace.Ref, resolved []trace.Resolved) []*failure {
	byNum := map[int]*failure{}
	var out []*failure
	get := func(n int) *failure {
		fl := byNum[n]
		if fl == nil {
			fl = &failure{num: n, site: -1}
			byNum[n] = fl
			out = append(out, fl)
		}
		return fl
	}
	for _, r := range refs {
		if fl := get(r.Failure); fl.msg == "" {
			fl.msg = r.Message
		}
	}
	lined := map[string]bool{}
	for _, r := range resolved {
		if r.Line > 0 {
			lined[r.Rel] = true
		}
	}
	for _, r := range resolved {
		if r.Line == 0 && lined[r.Rel] {
			continue
		}
		fl := get(r.Failure)
		fl.locs = append(fl.locs, r)
		i := len(fl.locs) - 1
		if r.Line > 0 && !r.Summary && (fl.site < 0 || r.Frame < fl.locs[fl.site].Frame) {
			fl.site = i
		}
	}
	return out
}

// addLoc is a location to add: the span around ref's line, or the
// function test of ref's file (the go test that failed there).
type addLoc struct {
	ref  trace.Resolved
	site bool
	test string
}

// addOrder lists the locations to add as evidence: every failing site
// first, in order of appearance, then the failing go tests whose site is
// a helper (each test is a failure and a part, the helper one part), then
// the other frames, so the limit cuts the frames that led there before
// any site.
func addOrder(fails []*failure) []addLoc {
	var sites, tests, rest []addLoc
	for _, fl := range fails {
		for i, r := range fl.locs {
			if i == fl.site {
				sites = append(sites, addLoc{ref: r, site: true})
				if r.Format == trace.FormatGoTest && r.Func != "" {
					test, _, _ := strings.Cut(r.Func, "/") // a subtest's function is its test's
					tests = append(tests, addLoc{ref: r, test: test})
				}
			} else {
				rest = append(rest, addLoc{ref: r})
			}
		}
	}
	return append(append(sites, tests...), rest...)
}

func locKey(r trace.Resolved) string { return r.Rel + ":" + strconv.Itoa(r.Line) }

// report builds the diagnostics part: each failure with its message and
// its locations (the site first), the paths mapped from elsewhere and
// what was left out.
func report(source string, refs []trace.Ref, fails []*failure, held map[string]string, d trace.Dropped) assemble.Report {
	formats := []string{}
	for _, r := range refs {
		if !slices.Contains(formats, r.Format) {
			formats = append(formats, r.Format)
		}
	}
	rep := assemble.Report{Source: source + ": " + strings.Join(formats, ", ")}
	mapped := map[string]bool{}
	seenMsg := map[string]bool{}
	more := 0
	for _, fl := range fails {
		if len(fl.locs) == 0 && (fl.msg == "" || seenMsg[fl.msg]) {
			continue // a failure outside the workspace says only its message, once
		}
		seenMsg[fl.msg] = true
		if len(rep.Failures) >= maxReported {
			more++
			continue
		}
		out := assemble.Failure{Message: fl.msg}
		order := make([]int, 0, len(fl.locs))
		if fl.site >= 0 {
			order = append(order, fl.site)
		}
		for i := range fl.locs {
			if i != fl.site {
				order = append(order, i)
			}
		}
		for _, i := range order {
			r := fl.locs[i]
			out.Locations = append(out.Locations, assemble.Location{File: r.Rel, Line: r.Line, Func: r.Func,
				Site: i == fl.site, Part: held[locKey(r)]})
			if r.MappedFrom != "" && !mapped[r.MappedFrom] && len(rep.Mapped) < maxReported {
				mapped[r.MappedFrom] = true
				rep.Mapped = append(rep.Mapped, assemble.Mapping{From: r.MappedFrom, To: r.Rel})
			}
		}
		rep.Failures = append(rep.Failures, out)
	}
	var left []string
	if more > 0 {
		left = append(left, fmt.Sprintf("%d more failure(s)", more))
	}
	if n := d.Outside + d.Missing + d.Vendor + d.Ambiguous; n > 0 {
		left = append(left, fmt.Sprintf("%d location(s): %s", n, droppedText(d)))
	}
	rep.Left = strings.Join(left, "; ")
	return rep
}

func countLocations(r assemble.Report) int {
	n := 0
	for _, f := range r.Failures {
		n += len(f.Locations)
	}
	return n
}

// writeDiagnostics puts the report into the flow's diagnostics part: the
// one there is rewritten in place (keeping its rank and state), or a new
// user part is added after the request.
func (e *Engine) writeDiagnostics(f *Flow, text string) (*Part, error) {
	for i, p := range f.Parts {
		if !p.IsDiagnostics() || p.Broken != "" {
			continue
		}
		if err := WriteFileAtomic(p.Path, []byte(text)); err != nil {
			return nil, err
		}
		q, err := f.readPart(p.File, p.Name)
		if err != nil {
			return nil, err
		}
		f.Parts[i] = q
		return q, nil
	}
	return e.Add(AddRequest{Role: assemble.User, Rank: -1, Band: userParts, Kind: assemble.DiagnosticsKind, Text: text})
}

func droppedText(d trace.Dropped) string {
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{{d.Outside, "outside the workspace"}, {d.Vendor, "in dependencies or the toolchain"}, {d.Missing, "missing files"}, {d.Ambiguous, "ambiguous names"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if len(parts) == 0 {
		return "none left out"
	}
	return strings.Join(parts, ", ")
}

// spanAround selects the smallest chunk around line in the file as it
// is now (see unitsNow), or 30 lines centred on it when the file has no
// chunk there or the chunk is huge; sym names the chunk's symbol, for the
// part's kind.
func spanAround(root string, db *store.DB, rel string, line int) (sel, sym string) {
	if line <= 0 {
		return rel, ""
	}
	raw, err := ReadRegular(filepath.Join(root, filepath.FromSlash(rel)), resolveRoots(root))
	if err != nil {
		return fmt.Sprintf("%s::%d,%d", rel, max(1, line-15), line+15), ""
	}
	n := len(lineStarts(string(raw)))
	if line > n {
		return "", ""
	}
	start, end := 0, 0
	if units, _, err := unitsNow(known(db), rel, raw); err == nil {
		for _, u := range units {
			if !u.outline && !u.member && u.start <= line && line <= u.end && (start == 0 || u.end-u.start < end-start) {
				start, end, sym = u.start, u.end, u.sym
			}
		}
	}
	if start == 0 || end-start > 200 {
		start, end, sym = max(1, line-15), min(line+15, n), ""
	}
	return fmt.Sprintf("%s::%d,%d", rel, start, end), sym
}

// defines tells whether the index has a top-level symbol name in rel.
func defines(db *store.DB, rel, name string) bool {
	found := false
	if db != nil {
		_ = db.View(func(tx *store.Tx) error {
			chunks, err := tx.FileChunks(rel)
			found = err == nil && slices.ContainsFunc(chunks, func(ch store.Chunk) bool {
				return ch.Symbol == name && len(ch.Parents) == 0
			})
			return nil
		})
	}
	return found
}

func tail(s string, lines int) string {
	s = strings.TrimRight(s, "\n")
	idx := len(s)
	for i := 0; i < lines; i++ {
		j := strings.LastIndexByte(s[:idx], '\n')
		if j < 0 {
			return s
		}
		idx = j
	}
	return s[idx+1:]
}

// openOutput opens the tool output from-output reads: a regular file, or
// a pipe or FIFO read as a stream (`from-output <(go test ./...)`). It
// opens without blocking, so a FIFO nobody writes to reads as empty
// instead of waiting forever, and it refuses devices, sockets and
// directories, which never end or are no output.
func (e *Engine) openOutput(name string) (*os.File, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.cwd(), path)
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read output %s: %w", name, err)
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("read output %s: %w", name, err)
	}
	if m := st.Mode(); !m.IsRegular() && m&fs.ModeNamedPipe == 0 {
		fh.Close()
		return nil, fmt.Errorf("read output %s: it is %s, not a regular file or a pipe: save the output to a file, or pipe it in with `from-output -`", name, fileKind(m))
	}
	return fh, nil
}
