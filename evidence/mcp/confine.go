package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/evidence"
)

// confine checks a path a client gave: relative to the workspace root
// (an absolute path inside it is made relative), not climbing out of it, not git's own, and, when it exists, not a
// symlink (or under one) that leads out (the evidence reader checks
// where a symlink inside leads, git's files included). It returns the path cleaned, slash separated.
func (s *Server) confine(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path: give a path relative to the workspace root %s", s.opts.Root)
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		// Agents send absolute paths: one inside the workspace is
		// taken relative to its root (or to the root's real path).
		rel, ok := s.relative(p)
		if !ok {
			return "", fmt.Errorf("%s is outside the workspace %s: nothing outside the workspace is served", p, s.opts.Root)
		}
		p = rel
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s leaves the workspace %s: nothing outside the workspace is served", p, s.opts.Root)
	}
	if err := evidence.RefuseGitPath(p, clean); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(s.opts.Root, filepath.FromSlash(clean)))
	if errors.Is(err, fs.ErrNotExist) {
		return clean, nil // the tool says it is missing, in its own words
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if !within(real, evidence.WorkspaceRoots(s.opts.Root)) {
		return "", fmt.Errorf("%s is a symlink to %s, outside the workspace %s: nothing outside the workspace is served", p, real, s.opts.Root)
	}
	return clean, nil
}

// relative turns an absolute path inside the workspace root (as given, or
// the root's real path) into one relative to it.
func (s *Server) relative(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	for _, r := range append([]string{s.opts.Root}, evidence.WorkspaceRoots(s.opts.Root)...) {
		rel, err := filepath.Rel(r, filepath.Clean(p))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel, true
		}
	}
	return "", false
}

// confineSelector checks the path of a selector (a bare @Symbol has none:
// the index resolves it to an indexed file, inside the workspace) and
// returns the selector with its path confined (relative to the root).
func (s *Server) confineSelector(raw string) (evidence.Selector, error) {
	if strings.HasPrefix(raw, "-") {
		return evidence.Selector{}, fmt.Errorf("selector %q starts with '-': give a path, path::RANGE, path::@Symbol or @Symbol", raw)
	}
	sel, err := evidence.ParseSelector(raw)
	if err != nil {
		return sel, fmt.Errorf("selector %q: %v", raw, err)
	}
	if sel.Path != "" {
		if sel.Path, err = s.confine(sel.Path); err != nil {
			return sel, err
		}
	}
	return sel, nil
}

func within(real string, roots []string) bool {
	for _, r := range roots {
		if real == r || strings.HasPrefix(real, r+string(os.PathSeparator)) {
			return true
		}
	}
	return false
}
