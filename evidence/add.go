package evidence

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/store"
)

func init() {
	register(&command{group: "evidence", name: "add", args: "SELECTOR... | --role system|user --text TEXT",
		summary: "Add evidence: PATH, PATH::100,200, PATH::100 (to the end), PATH::100c,500c (bytes),\n" +
			"PATH::@Symbol, @Symbol, each with optional #tag,tag. A folder (src/algo/) or a glob\n" +
			"('src/**/*.ts') adds one part per file: what `dossier index` ignores (.gitignore,\n" +
			".dossierignore) is left out, credential and binary files are listed as skipped; '!GLOB'\n" +
			"('!**/*_test.go') leaves files out of every selector. More than " + strconv.Itoa(previewAbove) + " files are listed\n" +
			"with their tokens and the budget first and asked for (--yes in scripts); --outline adds\n" +
			"outlines, for a set that does not fit. System and user parts take --text\n" +

			"(or a file whose text becomes the part). In a Laravel, Django, Express or Next.js application, route:NAME|URI,\n" +
			"table:NAME, model:Name and controller:Name[@method] add the nodes of that walk (see\n" +
			"`dossier related`), each a part; nodes the flow already holds are left out. git:diff (the\n" +
			"working tree against HEAD; untracked files only once `git add -N`), git:staged, git:REV (that\n" +
			"commit's change) and git:A..B add a unified diff as a part, redacted and counted like any;\n" +
			"refresh takes it again, status marks it changed when the diff differs; an empty diff is an error.\n" +
			"map[:TOKENS] adds a repo map: the files and signatures of the definitions the reference\n" +
			"graph ranks highest around the flow's evidence (PageRank restarting at its files), as many\n" +
			"as fit in TOKENS (default 1024) by the flow's tokenizer; status marks it changed when the\n" +
			"evidence would re-rank it, and refresh rebuilds it (a file named map is ./map).",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.StringVar(&o.rank, "rank", "", "rank (default: next free in the band)")
			fs.StringVar(&o.role, "role", "evidence", "system, user or evidence")
			fs.StringVar(&o.band, "band", "", "rank band: critical (100s), supporting, peripheral, optional, or 300-399")
			fs.StringVar(&o.kind, "kind", "", "kind in the file name (default: from the path)")
			fs.StringVar(&o.text, "text", "", "the text of a system or user part")
			fs.BoolVar(&o.link, "link", false, "add a whole file as a live .link (always current)")
			fs.BoolVar(&o.pin, "pin", false, "pin the part (focus and fit leave it alone)")
			fs.StringVar(&o.via, "via", "", "where the evidence was found, shown by status and the workbench")
			fs.BoolVar(&o.force, "force", false, "add a span even when a part of the flow already holds it")
			fs.BoolVar(&o.yes, "yes", false, "add the files of folders and globs without asking (a script must pass it for more than "+strconv.Itoa(previewAbove)+")")
			fs.BoolVar(&o.outline, "outline", false, "add the parts as outlines: signatures only, as evidence fit degrades them (evidence fit off restores)")
			fs.BoolVar(&o.asIndexed, "as-indexed", false, "the line numbers are the index's (a search hit's): when the file changed since, its lines are found again by their text")
		},
		run: (*Engine).add})
}

// AddRequest is one part to add.
type AddRequest struct {
	Selector string
	Role     assemble.Role
	Rank     int // -1: next free in Band
	Band     Band
	Kind     string
	Text     string
	Link     bool
	Pin      bool
	// Via notes where the evidence was found ("search:hybrid 0.82"); the
	// workbench shows it.
	Via string
	// Force adds a span that a part already holds (a narrower copy to pin
	// or rank apart); without it Add returns a *CoveredError.
	Force bool
}

func (e *Engine) add(c *call) error {
	role := assemble.Role(c.o.role)
	if role != assemble.System && role != assemble.User && role != assemble.Evidence {
		return usagef("--role %q: use system, user or evidence", c.o.role)
	}
	req := AddRequest{Role: role, Rank: -1, Kind: c.o.kind, Text: c.o.text, Link: c.o.link, Pin: c.o.pin, Via: c.o.via, Force: c.o.force}
	if c.o.rank != "" {
		r, err := ParseRank(c.o.rank)
		if err != nil {
			return usagef("%v", err)
		}
		req.Rank = r
	}
	req.Band = Bands[1]
	switch role {
	case assemble.System:
		req.Band = systemParts
	case assemble.User:
		req.Band = userParts
	}
	if c.o.band != "" {
		b, err := ParseBand(c.o.band)
		if err != nil {
			return usagef("%v", err)
		}
		req.Band = b
	}
	if c.o.outline && role != assemble.Evidence {
		return usagef("--outline is for evidence: a system or user part is always whole")
	}
	if role == assemble.Evidence && c.o.text != "" && len(c.args) == 0 {
		return usagef("evidence comes from a selector (PATH[::RANGE]); --text is for --role system or user")
	}
	if len(c.args) == 0 && c.o.text == "" {
		return usagef("add needs a selector (PATH, PATH::100,200, @Symbol) or --text")
	}
	// Folders and globs become their files; "!PATTERN" leaves files out.
	exp, err := e.expandSelectors(c.ctx, c.args)
	if err != nil {
		return err
	}
	if req.Rank >= 0 && len(exp.sels) > 1 {
		return usagef("--rank names one rank: add one selector at a time, or use --band")
	}
	// A graph target (route:, table:, model:, controller:) adds the
	// nodes of its walk; a node the flow already holds is left out.
	args, graphVia, err := e.graphSelectors(c.ctx, exp.sels)
	if err != nil {
		return err
	}
	for i, s := range args {
		if c.o.asIndexed || graphVia[s] != "" {
			if args[i], err = e.asIndexed(s); err != nil {
				return err
			}
			graphVia[args[i]] = graphVia[s]
		}
	}
	c.args = args
	if role == assemble.Evidence {
		xs, err := e.checkSelectors(c, req, graphVia, &exp)
		if err != nil {
			return err
		}
		if (len(graphVia) > 0 || len(exp.from) > 0) && len(c.args) == 0 {
			printSkipped(c.w, exp)
			fmt.Fprintln(c.w, "nothing added: every file is skipped or already held")
			return nil
		}
		if len(exp.from) > 0 && len(c.args) > previewAbove && !c.o.yes {
			printSkipped(c.w, exp)
			exp.skipped, exp.ignored = nil, 0
			if ok, err := e.previewAndAsk(c, req.Band, xs); err != nil || !ok {
				return err
			}
		}
	}
	f, err := e.flowOrCreate(c.w)
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	var added []*Part
	sels := c.args
	if len(sels) == 0 {
		sels = []string{""}
	}
	for _, s := range sels {
		req.Selector = s
		if v := graphVia[s]; v != "" && c.o.via == "" {
			req.Via = v
		} else {
			req.Via = c.o.via
		}
		p, err := e.Add(req)
		if err != nil {
			if len(added) > 0 {
				if _, berr := e.Build(); berr == nil {
					fmt.Fprintf(c.w, "(added %d before the error; build/ is up to date)\n", len(added))
				}
			}
			return err
		}
		added = append(added, p)
		if c.o.outline && p.Role == assemble.Evidence {
			if _, err := e.degrade(f, p, assemble.Outline); err != nil {
				return err
			}
		}
	}
	if c.o.outline {
		if err := f.SaveMeta(); err != nil {
			return err
		}
	}
	res, err := e.rebuild()
	if err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, p := range added {
		e.printAdded(c.w, f, res, p)
		ids[p.ID()] = true
	}
	printSkipped(c.w, exp)
	e.printSecrets(c.w, res, ids)
	e.printTotals(c.w, res)
	return nil
}

// checkSelectors resolves every selector before anything is written, so
// one bad selector adds nothing; c.args keeps those to add. A file a
// folder or glob gave that cannot be added (binary, a credential file,
// already held) is skipped into exp with the reason instead. It returns
// the extracts of c.args.
func (e *Engine) checkSelectors(c *call, req AddRequest, graphVia map[string]string, exp *expansion) ([]Extract, error) {
	seen := map[string]string{}
	var cov Coverage
	f, err := e.Flow()
	if err == nil {
		cov = f.Coverage()
	}
	var fresh []string
	var xs []Extract
	for _, s := range c.args {
		x, err := e.resolve(s)
		if err != nil {
			if exp.from[s] != "" {
				exp.skipped = append(exp.skipped, skipNote{s, strings.TrimPrefix(err.Error(), s+" ")})
				continue
			}
			return nil, err
		}
		if by, wider, ok := cov.Held(x.Source.Path, spanStart(x), x.Source.EndLine); ok && (!req.Force || by.sameAs(x)) {
			if graphVia[s] != "" {
				fmt.Fprintf(c.w, "%s (%s) is already held by %s: left out\n", s, graphVia[s], by.ID)
				continue
			}
			if exp.from[s] != "" {
				exp.skipped = append(exp.skipped, skipNote{s, "already held by " + by.ID})
				continue
			}
			return nil, &CoveredError{Selector: s, By: by, Wider: wider}
		}
		fresh, xs = append(fresh, s), append(xs, x)
		key := x.Source.URI + "\x00" + x.Source.Span
		if prev, ok := seen[key]; ok {
			return nil, usagef("%s and %s select the same span: give it once", prev, s)
		}
		seen[key] = s
	}
	if len(graphVia) > 0 || len(exp.from) > 0 {
		c.args = fresh
	}
	if len(exp.from) > 0 && req.Rank < 0 && f != nil {
		if free := f.freeRanks(req.Band); free < len(fresh) {
			return nil, fmt.Errorf("%d files to add, and the %s band (%03d-%03d) has %d free ranks: nothing added; add fewer (a narrower folder or glob, or '!PATTERN' exclusions), choose another --band, or run `dossier evidence rebase`",
				len(fresh), req.Band.Name, req.Band.Low, req.Band.Hi, free)
		}
	}
	return xs, nil
}

// previewAndAsk shows the files about to be added and asks for them (see
// preview and confirm); ok is false when the answer is no.
func (e *Engine) previewAndAsk(c *call, band Band, xs []Extract) (bool, error) {
	f, err := e.Flow()
	if errors.Is(err, ErrNoFlow) {
		f, err = &Flow{}, nil // priced as the flow add would start
	}
	if err != nil {
		return false, err
	}
	if err := e.preview(c.w, f, c.args, xs, band, c.o.outline); err != nil {
		return false, err
	}
	ok, err := e.confirm(c.w, len(xs))
	if err == nil && !ok {
		fmt.Fprintln(c.w, "nothing added")
	}
	return ok, err
}

// printAdded is seed 003's "✓ Added evidence" feedback.
func (e *Engine) printAdded(w io.Writer, f *Flow, res assemble.Result, p *Part) {
	what := "evidence"
	if p.Role != assemble.Evidence {
		what = string(p.Role) + " part"
	}
	fmt.Fprintf(w, "✓ Added %s: %s\n", what, p.Name)
	src := SourceLabel(p)
	if src != "" {
		src = "  " + src
	}
	fmt.Fprintf(w, "  Bytes: %d (%s)%s\n", p.Bytes, tokenWord(f.partTokens(res, p), res), src)
}

// Add writes one part into the flow and returns it.
func (e *Engine) Add(req AddRequest) (*Part, error) {
	f, err := e.Flow()
	if err != nil {
		return nil, err
	}
	var content []byte
	var name PartName
	var linkTo string
	if req.Role == assemble.Evidence {
		x, err := e.resolve(req.Selector)
		if err != nil {
			return nil, err
		}
		if by, wider, ok := f.Coverage().Held(x.Source.Path, spanStart(x), x.Source.EndLine); ok && (!req.Force || by.sameAs(x)) {
			return nil, &CoveredError{Selector: req.Selector, By: by, Wider: wider}
		}
		e.track(&x)
		name = PartName{Role: assemble.Evidence, Kind: req.Kind}
		if name.Kind == "" {
			name.Kind = kindFor(x)
		}
		if req.Link {
			if isGitSource(x.Source) {
				return nil, usagef("--link takes a file; a diff (%s) is taken as it is now, and `evidence refresh` takes it again", x.Source.URI)
			}
			if !x.Whole {
				return nil, usagef("--link adds a whole file (a live symlink): drop the ::range, or drop --link")
			}
			name.Link, linkTo = true, x.Source.Path
		} else {
			content = []byte(renderEvidence(x.Source, x.Content))
		}
	} else {
		text := req.Text
		if text == "" {
			rel, abs, err := inRoot(e.Root, req.Selector)
			if err != nil {
				return nil, err
			}
			if err := refuseSecretFile(e.Root, rel, abs); err != nil {
				return nil, err
			}
			raw, err := ReadRegular(abs, resolveRoots(e.Root))
			if err != nil {
				return nil, err
			}
			text = string(raw)
			if req.Kind == "" {
				req.Kind = Sanitize(strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
			}
		}
		if req.Kind == "" {
			req.Kind = map[assemble.Role]string{assemble.System: "policy", assemble.User: "request"}[req.Role]
		}
		name = PartName{Role: req.Role, Kind: Sanitize(req.Kind)}
		content = []byte(strings.TrimRight(text, "\n") + "\n")
	}
	if !validKind(name.Kind) {
		return nil, usagef("--kind %q: use letters, digits, '_', '-' or '.'", name.Kind)
	}
	rank := req.Rank
	if rank < 0 {
		if rank, err = f.NextRank(req.Band); err != nil {
			return nil, err
		}
	} else if q := f.byRank(rank); q != nil {
		return nil, fmt.Errorf("rank %s is taken by %s: choose a free rank (free nearby: %s) or omit --rank", FormatRank(rank), q.ID(), f.freeNear(rank))
	}
	name.Rank = FormatRank(rank)
	dst := filepath.Join(f.partDir(name.Role), name.String())
	if _, err := os.Lstat(dst); err == nil {
		return nil, fmt.Errorf("%s already exists in the flow", name)
	}
	if linkTo != "" {
		if err := os.MkdirAll(filepath.Dir(dst), DirMode); err != nil {
			return nil, writeErr(dst, err)
		}
		if err := os.Symlink(linkTarget(e.Root, f.Dir, filepath.Dir(dst), linkTo), dst); err != nil {
			return nil, writeErr(dst, err)
		}
	} else if err := WriteFileAtomic(dst, content); err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(f.Dir, dst)
	p, err := f.readPart(filepath.ToSlash(rel), name)
	if err != nil {
		return nil, err
	}
	f.Parts = append(f.Parts, p)
	f.sortParts()
	if req.Pin || req.Via != "" {
		if req.Pin {
			f.Meta.Pinned = append(f.Meta.Pinned, p.ID())
			p.Pinned = true
		}
		if req.Via != "" {
			if f.Meta.Found == nil {
				f.Meta.Found = map[string]string{}
			}
			f.Meta.Found[p.ID()] = req.Via
		}
		if err := f.SaveMeta(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// resolve turns a selector into its text, resolving a bare @Symbol.
func (e *Engine) resolve(selector string) (Extract, error) {
	if spec, ok := strings.CutPrefix(selector, gitPrefix); ok {
		return e.diffExtract(spec)
	}
	if budget, ok, err := parseMapSelector(selector); ok {
		if err != nil {
			return Extract{}, err
		}
		f, _ := e.Flow() // no flow yet: the map is plain PageRank
		return e.mapExtract(f, budget)
	}
	sel, err := ParseSelector(selector)
	if err != nil {
		return Extract{}, &UsageError{Msg: err.Error()}
	}
	return e.resolveSelector(sel)
}

// resolveSelector is resolve for a parsed selector; refresh uses it
// directly, so a path or tag from an existing part is never re-parsed
// (a path may hold "::" or '#').
func (e *Engine) resolveSelector(sel Selector) (Extract, error) {
	var err error
	var db *store.DB
	if sel.Symbol != "" {
		// PATH::@Symbol needs no index (a parse of the file finds it,
		// see unitsNow); a bare @Symbol needs one to find its file.
		if db, err = openIndex(e.Root); err != nil {
			if sel.Path == "" {
				return Extract{}, err
			}
			db = nil
		}
		if db != nil {
			defer db.Close()
		}
		if sel.Path == "" {
			if sel.Path, err = ResolveSymbol(db, sel.Symbol); err != nil {
				return Extract{}, err
			}
		}
	}
	return ExtractSpan(e.Root, sel, db)
}

// openIndex opens the workspace index read-only for one operation.
func openIndex(root string) (*store.DB, error) {
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no index in %s yet: run `dossier index`", root)
	}
	return db, err
}

// kindFor names a part after its source: "flow_sh", "flow_sh_100_200",
// "server_go_serve".
func kindFor(x Extract) string {
	base := Sanitize(path.Base(x.Source.Path))
	switch {
	case isGitSource(x.Source):
		return diffKind(x)
	case x.Source.Symbol != "":
		return Sanitize(base + "_" + x.Source.Symbol)
	case x.Whole:
		return base
	case strings.HasPrefix(x.Source.Span, "bytes="):
		return Sanitize(base + "_" + strings.TrimPrefix(x.Source.Span, "bytes=") + "c")
	}
	return base + "_" + strconv.Itoa(x.Source.StartLine) + "_" + strconv.Itoa(x.Source.EndLine)
}

// spanStart is the first line of an extract for Covering: 0 for a whole
// file, which only a whole-file part covers.
func spanStart(x Extract) int {
	if x.Whole {
		return 0
	}
	return x.Source.StartLine
}

// linkTarget is what a .link points at: relative when the flow lives in
// the workspace, so moving or cloning the workspace keeps links working.
func linkTarget(root, flowDir, linkDir, rel string) string {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if RootOf(flowDir) != "" {
		if r, err := filepath.Rel(linkDir, abs); err == nil {
			return r
		}
	}
	return abs
}
