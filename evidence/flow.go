package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dossierhq/dossier/assemble"
)

// Flow is a flow directory read into memory. The directory is the source
// of truth: Load reads it afresh, and every change goes to disk first.
type Flow struct {
	Dir   string // absolute
	Meta  Meta
	Parts []*Part // in assembly order (seed 003's lexical order_rule)
	// Problems are files Load did not take as parts, and inconsistencies
	// such as two parts with one rank. Nothing is deleted for them.
	Problems []string
	// MetaProblem says what was lost and recovered when flow.json was
	// missing or damaged (it is in Problems too), or "".
	MetaProblem string
	// roots are the resolved directories parts may read from: the flow,
	// its workspace and the extra roots Load was given.
	roots []string
	// damagedMeta is the damaged flow.json as read, kept by SaveMeta.
	damagedMeta []byte
}

// Part is one part file of a flow.
type Part struct {
	assemble.Part
	Name PartName
	Path string // absolute path of the part file (the link itself for links)
	// Target is the file a link points at, absolute; Content its text.
	Target string
	// Content is the part file's text (the linked file's for links).
	Content string
	// Broken says why a part cannot be assembled (a dangling link), with
	// the fix.
	Broken string
	// Refused is set with Broken when the part's file was not opened at
	// all (RefusedOutside, RefusedNotRegular or RefusedTooLarge), or was
	// read but cannot be trusted (Damaged).
	Refused string
	// NotUTF8 says the part's text holds bytes that are not UTF-8; the
	// file is kept as it is and prompts carry U+FFFD in their place.
	NotUTF8 bool
}

// Meta is flow.json: the flow's identity and settings, and the state that
// makes focus and fit reversible.
type Meta struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Mode    string    `json:"mode,omitempty"`
	Model   string    `json:"model,omitempty"`
	Budget  int       `json:"budget,omitempty"`
	Format  string    `json:"format,omitempty"`
	Pinned  []string  `json:"pinned,omitempty"`
	// Detail holds what `evidence fit` lowered, by part id.
	Detail map[string]assemble.Detail `json:"detail,omitempty"`
	// FitSkipped are the parts fit turned off, to turn back on.
	FitSkipped []string `json:"fit_skipped,omitempty"`
	// Found says where evidence added from search came from, by part id.
	Found map[string]string `json:"found,omitempty"`
	Focus *FocusState       `json:"focus,omitempty"`
	// Workspace is what `evidence from-output` learnt, for the pack.
	Diagnostics []assemble.Diagnostic `json:"diagnostics,omitempty"`
	Terminal    string                `json:"terminal,omitempty"`
	History     []assemble.Message    `json:"history,omitempty"`
}

// FocusState remembers every part's state before the first focus, so that
// `focus off` restores it exactly.
type FocusState struct {
	Query string            `json:"query"`
	Saved map[string]string `json:"saved"` // part id -> "active" | "skipped"
}

// MetaVersion is the flow.json version dossier writes.
const MetaVersion = 1

// Layout of a flow directory.
const (
	metaFile    = "flow.json"
	ctxDir      = "ctx"
	evidenceDir = "ctx/evidence"
	buildDir    = "build"
)

// Load reads the flow at dir. A missing flow.json is fine (a flow made by
// hand or by the seed's shell tools); the id is then the directory name.
//
// Parts, links and symlinked parts are read only when they resolve to
// regular files inside the flow directory, its workspace (RootOf) or one
// of roots (the engine's workspace and [evidence] extra_roots); any other
// part is refused (Part.Refused) and never opened.
func Load(dir string, roots ...string) (*Flow, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("flow directory %s does not exist: unset FLOW_DIR or point it at a flow (mkdir -p $FLOW_DIR/ctx/evidence makes an empty one)", abs)
		}
		return nil, fmt.Errorf("flow directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("flow directory %s is not a directory", abs)
	}
	f := &Flow{Dir: abs, roots: resolveRoots(append([]string{abs, RootOf(abs)}, roots...)...)}
	if err := f.loadMeta(); err != nil {
		return nil, err
	}
	if err := f.scan(); err != nil {
		return nil, err
	}
	return f, nil
}

// loadMeta reads flow.json; a missing or damaged one is recovered from
// (see recoverMeta) and reported, never an error that locks the flow.
func (f *Flow) loadMeta() error {
	raw, err := ReadRegular(filepath.Join(f.Dir, metaFile), f.roots)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Meta = defaultMeta(f.Dir)
		// A flow made by hand or by the seed's shell tools has none; one
		// dossier made (under .dossier/flows, or with dossier's
		// ctxplan.json) has lost it.
		if _, ok := f.readPlan(); ok || RootOf(f.Dir) != "" {
			f.recoverMeta("missing", nil)
		}
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", filepath.Join(f.Dir, metaFile), err)
	}
	if err := json.Unmarshal(raw, &f.Meta); err != nil {
		f.Meta = defaultMeta(f.Dir)
		kept := partialMeta(raw, &f.Meta)
		f.damagedMeta = raw
		f.recoverMeta(err.Error(), kept)
	}
	if f.Meta.ID == "" {
		f.Meta.ID = filepath.Base(f.Dir)
	}
	return nil
}

// SaveMeta writes flow.json atomically (a temporary file, synced, then
// renamed over it). A damaged flow.json that Load recovered from is
// copied to flow.json.damaged first.
func (f *Flow) SaveMeta() error {
	if err := f.keepDamagedMeta(); err != nil {
		return err
	}
	f.Meta.Version = MetaVersion
	raw, err := json.MarshalIndent(f.Meta, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(f.Dir, metaFile), append(raw, '\n')); err != nil {
		return err
	}
	if f.MetaProblem != "" {
		f.Problems = slices.DeleteFunc(f.Problems, func(s string) bool { return s == f.MetaProblem })
		f.MetaProblem = ""
	}
	return nil
}

// scan reads ctx/ and ctx/evidence/.
func (f *Flow) scan() error {
	f.Parts, f.Problems = nil, nil
	if f.MetaProblem != "" {
		f.Problems = append(f.Problems, f.MetaProblem)
	}
	for _, sub := range []string{ctxDir, evidenceDir} {
		dir := filepath.Join(f.Dir, filepath.FromSlash(sub))
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", dir, err)
		}
		for _, e := range entries {
			if e.IsDir() && sub == ctxDir && e.Name() == "evidence" {
				continue
			}
			rel := sub + "/" + e.Name()
			if strings.HasPrefix(e.Name(), ".") {
				continue // editor swap files and our temp files
			}
			n, ok := ParsePartName(e.Name())
			if !ok {
				f.Problems = append(f.Problems, fmt.Sprintf("%s: not a part name (<rank>_<kind>.<role>.md[.skip] or <rank>_<kind>.evidence.link); left alone", rel))
				continue
			}
			p, err := f.readPart(rel, n)
			if err != nil {
				return err
			}
			f.Parts = append(f.Parts, p)
		}
	}
	f.sortParts()
	f.checkRanks()
	return nil
}

// readPart reads one part file.
func (f *Flow) readPart(rel string, n PartName) (*Part, error) {
	p := &Part{Name: n, Path: filepath.Join(f.Dir, filepath.FromSlash(rel))}
	p.Rank, p.Kind, p.Role, p.Link = n.Rank, n.Kind, n.Role, n.Link
	p.File = rel
	p.Status = assemble.Active
	if n.Skip {
		p.Status = assemble.Skipped
	}
	var raw []byte
	var err error
	if n.Link {
		if raw = f.readLink(p); raw == nil {
			return p, nil
		}
	} else if raw, err = ReadRegular(p.Path, f.roots); err != nil {
		// One unreadable file must not lock the user out of the flow
		// they need to repair.
		p.refuse(err, fmt.Sprintf("cannot be read (%v): fix or remove the file", err))
		return p, nil
	}
	p.Content = string(raw)
	p.NotUTF8 = !utf8.Valid(raw)
	p.Bytes = len(raw)
	p.CID = CID(raw)
	p.fill(f)
	return p, nil
}

// readLink follows a .link part. A dangling link is a part that cannot be
// assembled, not an error for the whole flow; it returns nil then.
func (f *Flow) readLink(p *Part) []byte {
	target, err := os.Readlink(p.Path)
	if err != nil {
		p.Broken = "not a symlink: a .link part must be a symbolic link to a file"
		return nil
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p.Path), target)
	}
	p.Target = filepath.Clean(target)
	raw, err := ReadRegular(p.Path, f.roots)
	if err != nil {
		msg := err
		if u := errors.Unwrap(err); u != nil {
			msg = u
		}
		p.refuse(err, fmt.Sprintf("link target %s cannot be read (%v)", p.Target, msg))
		return nil
	}
	if raw == nil {
		raw = []byte{}
	}
	return raw
}

// refuse marks p as not assembled: with its refused state and that
// state's fix when err is a RefusedError, else with broken.
func (p *Part) refuse(err error, broken string) {
	p.Status = assemble.Skipped
	p.Broken = broken
	var re *RefusedError
	if !errors.As(err, &re) {
		return
	}
	p.Refused = re.State
	what := "part file " + p.File
	if p.Link {
		what = "link " + p.File
	}
	switch re.State {
	case RefusedOutside:
		p.Broken = fmt.Sprintf("%s points outside the workspace (%s): copy the file into the workspace or add its directory to [evidence] extra_roots", what, re.Real)
	case RefusedNotRegular:
		p.Broken = fmt.Sprintf("%s leads to %s (%s), not a regular file: point it at a regular file or remove it", what, re.What, re.Real)
	case RefusedTooLarge:
		p.Broken = what + ": " + tooLarge(re.Real, re.Size)
	}
}

// Damaged is the state of an evidence part whose file is not whole: a
// provenance comment or code fence never closed (the file was cut short),
// or provenance that does not parse. It is left out of every prompt and
// left on disk as it is.
const Damaged = "damaged"

// InSnapshot reports whether the renderers see p: every part that was
// read, and refused parts (with no content), so ctxplan.json lists them
// with their state. Other broken parts are left out.
func (p *Part) InSnapshot() bool { return p.Broken == "" || p.Refused != "" }

// fill derives the renderer's view of a part from its content.
func (p *Part) fill(f *Flow) {
	p.Pinned = slices.Contains(f.Meta.Pinned, p.ID())
	p.Detail = f.Meta.Detail[p.ID()]
	switch {
	case p.Role != assemble.Evidence:
		p.Body = p.Content
	case p.Link:
		rel := f.relToRoot(p.Target)
		p.Heading = rel
		p.Code = p.Content
		p.Source = assemble.Source{URI: "file://" + rel, Path: rel, Span: "all", Language: languageOf(rel, []byte(p.Content))}
		p.Source.StartLine, p.Source.EndLine = 1, assemble.LineCount(p.Content)
		p.Body = strings.TrimSuffix(assemble.Fenced(p.Code, p.Source.Language), "\n")
	default:
		x := parseEvidence(p.Content)
		p.Heading, p.Source, p.Body, p.Code = x.heading, x.source, x.body, x.code
		if x.damage != "" {
			p.Status, p.Refused = assemble.Skipped, Damaged
			path := "PATH"
			if x.heading != "" {
				path = x.heading
			}
			fix := "repair the file by hand, or remove it (`dossier evidence remove " + p.ID() + "`, which keeps it in build/removed/) and add its source again (`dossier evidence add " + path + "[::RANGE]`)"
			if p.Source.Path != "" && p.Source.CID != "" {
				fix = "`dossier evidence refresh " + p.ID() + " --force` rewrites it from " + p.Source.Path + " (keeping this copy in build/removed/), or repair the file by hand"
			}
			p.Broken = fmt.Sprintf("part file %s is damaged: %s; it looks cut short and is left out of the prompt: %s", p.File, x.damage, fix)
		}
		if p.Heading == "" {
			p.Heading = p.Kind
		}
		if p.Source.Language == "" && p.Source.Path != "" {
			p.Source.Language = languageOf(p.Source.Path, nil)
		}
		if p.Source.Span == "all" && p.Code != "" {
			p.Source.StartLine, p.Source.EndLine = 1, assemble.LineCount(p.Code)
		}
	}
	if p.Detail == assemble.Outline {
		p.OutlineText = Outline(p.Code, p.Source.Language)
	}
}

// relToRoot names a link target for the prompt: relative to the workspace
// root when inside it (the flow lives in <root>/.dossier/flows/<id>).
func (f *Flow) relToRoot(abs string) string {
	if root := RootOf(f.Dir); root != "" {
		if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// sortParts applies seed 003's lexical order over the part paths.
func (f *Flow) sortParts() {
	slices.SortFunc(f.Parts, func(a, b *Part) int { return strings.Compare(a.File, b.File) })
}

// checkRanks reports ranks used by more than one part.
func (f *Flow) checkRanks() {
	by := map[string][]string{}
	for _, p := range f.Parts {
		by[p.Rank] = append(by[p.Rank], p.ID())
	}
	for _, p := range f.Parts {
		ids := by[p.Rank]
		if len(ids) < 2 || p != f.firstWithRank(p.Rank) {
			continue
		}
		if len(slices.Compact(slices.Sorted(slices.Values(ids)))) == 1 {
			f.Problems = append(f.Problems, fmt.Sprintf("%s exists both active and skipped (.skip): delete one of the two files", p.ID()))
			continue
		}
		f.Problems = append(f.Problems, fmt.Sprintf("rank %s is used by %s: give all but one another rank with `dossier evidence rank ID N`", p.Rank, strings.Join(ids, " and ")))
	}
}

func (f *Flow) firstWithRank(rank string) *Part {
	for _, p := range f.Parts {
		if p.Rank == rank {
			return p
		}
	}
	return nil
}

// Snapshot is the renderers' view of the flow: broken parts are left out;
// refused ones are in it with their state as status, so they are never
// assembled but ctxplan.json shows them.
func (f *Flow) Snapshot() *assemble.Flow {
	af := &assemble.Flow{ID: f.Meta.ID, Mode: f.Meta.Mode, Parts: make([]assemble.Part, 0, len(f.Parts))}
	for _, p := range f.Parts {
		switch {
		case p.Broken == "":
			af.Parts = append(af.Parts, p.Part)
		case p.Refused != "":
			q := p.Part
			q.Status = assemble.Status(p.Refused)
			af.Parts = append(af.Parts, q)
		}
	}
	af.Pack = assemble.PackInput{Diagnostics: f.Meta.Diagnostics, Terminal: f.Meta.Terminal, History: f.Meta.History}
	return af
}

// partDir is where a part of role r is written.
func (f *Flow) partDir(r assemble.Role) string {
	if r == assemble.Evidence {
		return filepath.Join(f.Dir, filepath.FromSlash(evidenceDir))
	}
	return filepath.Join(f.Dir, ctxDir)
}

// BuildDir is the flow's build/ directory.
func (f *Flow) BuildDir() string { return filepath.Join(f.Dir, buildDir) }

// RootOf returns the workspace root of a flow under <root>/.dossier/flows,
// or "" for a flow elsewhere (FLOW_DIR).
func RootOf(flowDir string) string {
	flows := filepath.Dir(flowDir)
	if filepath.Base(flows) != "flows" || filepath.Base(filepath.Dir(flows)) != ".dossier" {
		return ""
	}
	return filepath.Dir(filepath.Dir(flows))
}
