package evidence

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence/trace"
	"github.com/dossierhq/dossier/store"
)

func init() {
	register(&command{group: "evidence", name: "from-output", args: "FILE|-",
		summary: "Read test or build output (Go, Python tracebacks, pytest, Node and Jest stacks,\n" +
			"TypeScript, ESLint, gcc/clang, rustc), find file:line references inside the workspace\n" +
			"and add the enclosing symbol (or 30 lines around) as evidence. Failing locations go to\n" +
			"the 100s, deeper stack frames to the 200s.",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.IntVar(&o.limit, "limit", 10, "most locations to add")
		},
		run: (*Engine).fromOutput})
}

// terminalTail is how much of the output the context pack keeps.
const terminalTail = 40

func (e *Engine) fromOutput(c *call) error {
	if err := c.needArgs(1, 1, "FILE or - for stdin"); err != nil {
		return err
	}
	var r io.Reader = e.Stdin
	if c.args[0] != "-" {
		fh, err := e.openOutput(c.args[0])
		if err != nil {
			return err
		}
		defer fh.Close()
		r = fh
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
	f.Meta.Diagnostics = nil
	added := 0
	for _, ref := range resolved {
		if ref.Frame == 0 && ref.Line > 0 {
			f.Meta.Diagnostics = append(f.Meta.Diagnostics, assemble.Diagnostic{File: ref.Rel, Line: ref.Line, Message: ref.Message})
		}
		if added >= c.o.limit {
			continue
		}
		sel := spanAround(e.Root, db, ref.Rel, ref.Line)
		if sel == "" {
			fmt.Fprintf(c.w, "  - %s:%d is past the end of the file (output older than the code?)\n", ref.Rel, ref.Line)
			continue
		}
		band := Bands[1]
		if ref.Frame > 0 {
			band = Bands[2]
		}
		p, err := e.Add(AddRequest{Selector: sel, Role: assemble.Evidence, Rank: -1, Band: band, Via: "output:" + ref.Format})
		switch {
		case err == nil:
			added++
			fmt.Fprintf(c.w, "✓ %-28s %s:%d  %s\n", p.ID(), ref.Rel, ref.Line, ref.Message)
		case errors.As(err, new(*CoveredError)):
		default:
			fmt.Fprintf(c.w, "  - %s: %v\n", sel, firstLine(err.Error()))
		}
	}
	f.Meta.Terminal = tail(raw.String(), terminalTail)
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

// spanAround selects the smallest indexed symbol around line, or 30 lines
// centred on it when the file is not indexed or the symbol is huge.
func spanAround(root string, db *store.DB, rel string, line int) string {
	if line <= 0 {
		return rel
	}
	start, end := 0, 0
	if db != nil {
		_ = db.View(func(tx *store.Tx) error {
			chunks, err := tx.FileChunks(rel)
			if err != nil {
				return nil
			}
			for _, ch := range chunks {
				if ch.StartLine <= line && line <= ch.EndLine && (start == 0 || ch.EndLine-ch.StartLine < end-start) {
					start, end = ch.StartLine, ch.EndLine
				}
			}
			return nil
		})
	}
	n := -1
	if raw, err := ReadRegular(filepath.Join(root, filepath.FromSlash(rel)), resolveRoots(root)); err == nil {
		n = len(lineStarts(string(raw)))
	}
	if n >= 0 && line > n {
		return ""
	}
	if start == 0 || end-start > 200 {
		start, end = max(1, line-15), line+15
		if n > 0 {
			end = min(end, n)
		}
	}
	return fmt.Sprintf("%s::%d,%d", rel, start, end)
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
