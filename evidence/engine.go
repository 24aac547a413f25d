package evidence

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// Engine runs the flow commands of one workspace. The CLI makes one per
// invocation; the workbench keeps one for its session and calls Exec with
// the words typed on its command line, so both go through one parser.
type Engine struct {
	Root   string
	Getenv func(string) string
	Now    func() time.Time
	// Model is the model profile used when the flow names none;
	// DefaultBudget and DefaultFormat likewise stand in for the flow's.
	Model         string
	DefaultBudget int
	DefaultFormat string
	// Stdin feeds `from-output -`.
	Stdin io.Reader
	// Cwd resolves relative --out paths (default: the process's).
	Cwd string
	// AllowSecrets sends secrets as they are (config [secrets] allow);
	// by default every assembly redacts them. `assemble --allow-secrets`
	// sets it for one command.
	AllowSecrets bool
	// Stderr takes warnings while the prompt itself goes to the command's
	// output; nil sends them nowhere then.
	Stderr io.Writer
	// ExtraRoots are directories outside the workspace that flow parts
	// and links may read from ([evidence] extra_roots); absolute paths.
	ExtraRoots []string
	// LLM is the endpoint Send posts to (config [llm] and flags).
	LLM LLMConfig
	// Discover are the index's walk options (config [index] exclude and
	// the like); folders and globs of `evidence add` are walked with them.
	Discover discover.Options
	// Interactive says a person answers on Stdin: `evidence add` then asks
	// before adding many files, where a script must pass --yes.
	Interactive bool

	flow   *Flow
	asm    *assemble.Assembler
	asmEnc string
	cache  *tokens.Cache
	clean  *assemble.CleanSet
	// cleanSaved is the clean set's size when last read or written.
	cleanSaved int
	srcScans   map[string]sourceScan              // see sourceSecrets
	diffScans  map[string][]assemble.SourceSecret // see diffSecrets
	profile    tokens.Profile
	stale      map[staleKey]string // see Staleness
}

// NewEngine returns an engine for the workspace at root.
func NewEngine(root string) *Engine {
	return &Engine{Root: root, Getenv: os.Getenv, Now: time.Now, Stdin: os.Stdin}
}

func (e *Engine) cwd() string {
	if e.Cwd != "" {
		return e.Cwd
	}
	wd, err := os.Getwd()
	if err != nil {
		return e.Root
	}
	return wd
}

// Flow returns the loaded flow, loading it first; ErrNoFlow when none is
// selected.
func (e *Engine) Flow() (*Flow, error) {
	if e.flow != nil {
		return e.flow, nil
	}
	dir, err := Locate(e.Root, e.Getenv)
	if err != nil {
		return nil, err
	}
	f, err := Load(dir, append([]string{e.Root}, e.ExtraRoots...)...)
	if err != nil {
		return nil, err
	}
	if f.MetaProblem != "" && e.Stderr != nil {
		fmt.Fprintln(e.Stderr, "warning: "+f.MetaProblem)
	}
	e.flow = f
	return f, nil
}

// Reload forgets the loaded flow, so the next command reads the directory
// again (after hand edits, or another `flow use`).
func (e *Engine) Reload() { e.flow = nil }

// Recheck forgets the staleness answers too, so the next status re-reads
// every source: a copy that kept size and time fools the stat-keyed memo.
func (e *Engine) Recheck() { e.flow, e.stale = nil, nil }

// flowOrCreate loads the flow, starting a "scratch" flow when the
// workspace has none, so a first `evidence add` just works.
func (e *Engine) flowOrCreate(w io.Writer) (*Flow, error) {
	f, err := e.Flow()
	if !errors.Is(err, ErrNoFlow) {
		return f, err
	}
	f, err = Create(e.Root, "scratch", "", "", e.Now())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "Started flow %s (there was none; `dossier flow new NAME` names one)\n", f.Meta.ID)
	e.flow = f
	return f, nil
}

// Profile is the model profile of the flow (or the engine's default).
func (e *Engine) Profile() (tokens.Profile, error) {
	model := e.Model
	if e.flow != nil && e.flow.Meta.Model != "" {
		model = e.flow.Meta.Model
	}
	if model == "" {
		model = tokens.DefaultModel
	}
	if e.profile.Model == model {
		return e.profile, nil
	}
	p, err := tokens.Lookup(model)
	if err != nil {
		return tokens.Profile{}, err
	}
	e.profile = p
	return p, nil
}

// Budget is the flow's token limit: its own, else about 40% of the
// model's window (seed 002).
func (e *Engine) Budget() int {
	if e.flow != nil && e.flow.Meta.Budget > 0 {
		return e.flow.Meta.Budget
	}
	if e.DefaultBudget > 0 {
		return e.DefaultBudget
	}
	p, err := e.Profile()
	if err != nil {
		return 0
	}
	return p.DefaultBudget()
}

// assembler returns the assembler for the flow's encoding.
func (e *Engine) assembler() (*assemble.Assembler, error) {
	p, err := e.Profile()
	if err != nil {
		return nil, err
	}
	if e.asm != nil && e.asmEnc == p.Encoding {
		return e.asm, nil
	}
	c, err := tokens.ForEncoding(p.Encoding)
	if err != nil {
		return nil, err
	}
	if e.cache == nil {
		e.cache = e.loadCache()
		e.clean = e.loadClean()
	}
	e.asm, e.asmEnc = assemble.NewAssembler(c, e.cache), p.Encoding
	e.asm.SetClean(e.clean)
	return e.asm, nil
}

// cachePath keeps token counts with the index when the flow belongs to a
// workspace, so every flow shares them; else in the flow's build/.
func (e *Engine) cachePath() string {
	if e.Root != "" {
		if _, err := os.Stat(store.Dir(e.Root)); err == nil {
			return filepath.Join(store.Dir(e.Root), "tokens.cache")
		}
	}
	if e.flow != nil {
		return filepath.Join(e.flow.BuildDir(), "tokens.cache")
	}
	return ""
}

// loadCache reads the token count cache; a damaged one is started afresh.
func (e *Engine) loadCache() *tokens.Cache {
	path := e.cachePath()
	if path == "" {
		return tokens.NewCache()
	}
	c, err := tokens.Load(path)
	if c == nil || err != nil {
		return tokens.NewCache()
	}
	return c
}

// SaveCache writes the token count cache; failures only cost speed.
func (e *Engine) SaveCache() {
	if e.cache == nil {
		return
	}
	if path := e.cachePath(); path != "" {
		_ = e.cache.Save(path)
	}
	e.saveClean()
}

// Format is the flow's chosen output format (mdctx by default).
func (e *Engine) Format() assemble.Format {
	if e.flow != nil {
		if f, err := assemble.ParseFormat(e.flow.Meta.Format); err == nil {
			return f
		}
	}
	if f, err := assemble.ParseFormat(e.DefaultFormat); err == nil {
		return f
	}
	return assemble.MDCtx
}

// Assemble renders the flow in format.
func (e *Engine) Assemble(format assemble.Format) (assemble.Result, *assemble.Flow, error) {
	f, err := e.Flow()
	if err != nil {
		return assemble.Result{}, nil, err
	}
	return e.assembleFlow(f, format)
}

// assembleFlow renders f, which may be a trial the engine does not hold
// (the preview of `evidence add`), in format.
func (e *Engine) assembleFlow(f *Flow, format assemble.Format) (assemble.Result, *assemble.Flow, error) {
	a, err := e.assembler()
	if err != nil {
		return assemble.Result{}, nil, err
	}
	snap := f.Snapshot()
	snap.Budget = e.Budget()
	snap.AllowSecrets = e.AllowSecrets
	e.markSourceSecrets(snap)
	return a.Assemble(snap, format), snap, nil
}

// Build refreshes build/prompt.mdctx and build/ctxplan.json, as seed 003's
// assemble_ctx does, and returns the mdctx result.
func (e *Engine) Build() (assemble.Result, error) {
	res, _, err := e.build()
	return res, err
}

// build is Build that also returns the ctxplan.json it wrote, so `plan`
// prints it without reading the file back.
func (e *Engine) build() (assemble.Result, []byte, error) {
	res, snap, err := e.Assemble(assemble.MDCtx)
	if err != nil {
		return res, nil, err
	}
	plan := assemble.NewPlan(snap, res, e.Budget()).JSON()
	dir := e.flow.BuildDir()
	fsafe.Sweep(dir)
	if err := WriteFileAtomic(filepath.Join(dir, "prompt.mdctx"), []byte(res.Text)); err != nil {
		return res, nil, err
	}
	if err := WriteFileAtomic(filepath.Join(dir, "ctxplan.json"), plan); err != nil {
		return res, nil, err
	}
	e.SaveCache()
	return res, plan, nil
}
