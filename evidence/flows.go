package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// FlowDirEnv names a flow directory anywhere, as in seed 003; it wins over
// the workspace's current flow.
const FlowDirEnv = "FLOW_DIR"

// FlowsDir is where a workspace keeps its flows.
func FlowsDir(root string) string { return filepath.Join(store.Dir(root), "flows") }

// currentFile holds the id of the workspace's current flow.
func currentFile(root string) string { return filepath.Join(FlowsDir(root), "current") }

// ErrNoFlow means no flow is selected: FLOW_DIR is unset and the workspace
// has no current flow.
var ErrNoFlow = errors.New("no flow yet: create one with `dossier flow new NAME` (or set FLOW_DIR)")

// NewID makes a flow id from a name and a time: "fix-parser-20250116T123456".
func NewID(name string, now time.Time) string {
	slug := strings.ReplaceAll(Sanitize(name), "_", "-")
	return slug + "-" + now.UTC().Format("20060102T150405")
}

// Create makes a new flow under the workspace, with empty ctx/evidence/ and
// build/ directories and its flow.json, and makes it current.
func Create(root, name, mode, model string, now time.Time) (*Flow, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("a flow needs a name: `dossier flow new fix-parser`")
	}
	id := NewID(name, now)
	base := FlowsDir(root)
	dir := filepath.Join(base, id)
	for i := 2; ; i++ {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = filepath.Join(base, fmt.Sprintf("%s-%d", id, i))
	}
	for _, sub := range []string{evidenceDir, buildDir} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(sub)), DirMode); err != nil {
			return nil, writeErr(dir, err)
		}
	}
	f := &Flow{Dir: dir, Meta: Meta{ID: filepath.Base(dir), Name: name, Created: now.UTC().Truncate(time.Second), Mode: mode, Model: model}}
	if err := f.SaveMeta(); err != nil {
		return nil, err
	}
	if _, err := Use(root, f.Meta.ID); err != nil {
		return nil, err
	}
	return f, nil
}

// Use makes the flow id current and returns its full id. As git does for
// commits, id may be a unique prefix of a flow's id; an ambiguous prefix
// is refused with the candidates named.
func Use(root, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("bad flow id %q: see `dossier flow list`", id)
	}
	full, err := resolveFlowID(root, id)
	if err != nil {
		return "", err
	}
	fsafe.Sweep(FlowsDir(root))
	return full, WriteFileAtomic(currentFile(root), []byte(full+"\n"))
}

// resolveFlowID finds the flow named id exactly, else the one flow whose id
// starts with it.
func resolveFlowID(root, id string) (string, error) {
	base := FlowsDir(root)
	if st, err := os.Stat(filepath.Join(base, id)); err == nil && st.IsDir() {
		return id, nil
	}
	entries, _ := os.ReadDir(base)
	var cands []string
	for _, de := range entries {
		if de.IsDir() && strings.HasPrefix(de.Name(), id) {
			cands = append(cands, de.Name())
		}
	}
	switch len(cands) {
	case 0:
		return "", fmt.Errorf("no flow %q in %s: see `dossier flow list`", id, base)
	case 1:
		return cands[0], nil
	}
	slices.Sort(cands)
	return "", fmt.Errorf("flow %q is ambiguous, it starts %d flows: %s; give more of the id", id, len(cands), strings.Join(cands, ", "))
}

// FlowInfo is one line of `dossier flow list`.
type FlowInfo struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Parts   int       `json:"parts"`
	// Turns counts the answers kept in turns/.
	Turns   int  `json:"turns"`
	Current bool `json:"current"`
}

// List returns the workspace's flows, newest first.
func List(root string) ([]FlowInfo, error) {
	entries, err := os.ReadDir(FlowsDir(root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cur := currentID(root)
	var out []FlowInfo
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		f, err := Load(filepath.Join(FlowsDir(root), e.Name()))
		if err != nil {
			out = append(out, FlowInfo{ID: e.Name(), Name: "(unreadable: " + err.Error() + ")"})
			continue
		}
		out = append(out, FlowInfo{ID: f.Meta.ID, Name: f.Meta.Name, Created: f.Meta.Created, Parts: len(f.Parts), Turns: countTurns(f.Dir), Current: e.Name() == cur})
	}
	slices.SortFunc(out, func(a, b FlowInfo) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

func currentID(root string) string {
	raw, err := ReadRegular(currentFile(root), nil)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(raw))
}

// Locate finds the flow to work on: FLOW_DIR when set, else the
// workspace's current flow. ErrNoFlow when there is none.
func Locate(root string, getenv func(string) string) (string, error) {
	if dir := getenv(FlowDirEnv); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	id := currentID(root)
	if id == "" {
		return "", ErrNoFlow
	}
	dir := filepath.Join(FlowsDir(root), id)
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("the current flow %q is gone from %s: pick another with `dossier flow use ID` or start one with `dossier flow new NAME`", id, FlowsDir(root))
	}
	return dir, nil
}
