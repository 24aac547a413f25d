package discover

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ErrIsDir is returned by Check for a directory: walk it instead.
var ErrIsDir = errors.New("is a directory")

// Check applies the walk's rules to one slash path relative to root. It
// returns the candidate, or the reason the path is not one (ReasonVanished
// when it does not exist).
func Check(root, rel string, opts Options) (Candidate, string, error) {
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return Candidate{}, "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Candidate{}, "", fmt.Errorf("root %s: %w", root, err)
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	if rel == "" || parts[0] == ".." || filepath.IsAbs(rel) {
		return Candidate{}, "", fmt.Errorf("path %q is outside the root %s", rel, root)
	}
	patterns := builtins()
	nDefault := len(patterns)
	patterns = append(patterns, readPatterns(filepath.Join(root, ".git", "info", "exclude"), nil)...)
	extra := parsePatterns(opts.Exclude, nil)
	dir := root
	git := &gitTracked{}
	for i, name := range parts {
		patterns = append(patterns, readPatterns(filepath.Join(dir, ".gitignore"), parts[:i])...)
		patterns = append(patterns, readPatterns(filepath.Join(dir, IgnoreFile), parts[:i])...)
		abs := filepath.Join(dir, name)
		info, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			return Candidate{}, ReasonVanished, nil
		}
		if err != nil {
			return Candidate{}, ReasonUnreadable, nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(abs)
			if err != nil {
				return Candidate{}, ReasonBrokenLink, nil
			}
			if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
				return Candidate{}, ReasonOutsideRoot, nil
			}
			if r, _ := filepath.Rel(realRoot, real); GitOwn(r) {
				return Candidate{}, ReasonDefault, nil
			}
			if info, err = os.Stat(real); err != nil {
				return Candidate{}, ReasonUnreadable, nil
			}
		}
		last := i == len(parts)-1
		ignored, by := match(append(append([]gitignore.Pattern(nil), patterns...), extra...), parts[:i+1], info.IsDir(), builtinRange(parts[:i+1], nDefault))
		if ignored && !git.hides(root, strings.Join(parts[:i+1], "/"), by) {
			return Candidate{}, ignoreReason(by, nDefault), nil
		}
		if !last {
			if !info.IsDir() {
				return Candidate{}, ReasonVanished, nil
			}
			dir = abs
			continue
		}
		switch {
		case info.IsDir():
			return Candidate{}, "", ErrIsDir
		case !info.Mode().IsRegular():
			return Candidate{}, ReasonSpecial, nil
		case info.Size() > opts.MaxFileSize:
			return Candidate{}, ReasonTooLarge, nil
		}
		return Candidate{Rel: strings.Join(parts, "/"), Abs: abs, Size: info.Size(), ModTime: info.ModTime().UnixNano()}, "", nil
	}
	return Candidate{}, ReasonVanished, nil
}
