package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// commit is one commit as the metadata pass reads it.
type commit struct {
	Hash    string
	Author  string
	Date    string // author date, RFC 3339
	Subject string
	Body    string
	Changes []rawChange
}

// rawChange is one path a commit changed: its status letter (A, M, D,
// T, R or C), for a rename or copy the path it came from, and the blobs
// before and after (all zeros for none).
type rawChange struct {
	Status   string
	Path     string
	From     string
	Old, New string
}

// maxLogBytes bounds what one git log pass may write: a window of
// commits normally takes a few MB.
const maxLogBytes = 512 << 20

// gitRead counts the bytes git commands wrote to this package, for the
// tests of what a sync reads.
var gitRead atomic.Int64

// git runs git in root and returns its standard output; stderr's first
// line names the failure.
func git(ctx context.Context, root string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	data, rerr := io.ReadAll(io.LimitReader(out, maxLogBytes+1))
	gitRead.Add(int64(len(data)))
	if len(data) > maxLogBytes {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("git %s wrote more than %d MB: lower [index] history_commits", args[0], maxLogBytes>>20)
	}
	if err := cmd.Wait(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return nil, &gitError{args: args[0], msg: msg, err: err}
	}
	return data, rerr
}

// GitInput is Git with stdin for git to read (`cat-file --batch`).
func GitInput(ctx context.Context, root string, stdin []byte, args ...string) ([]byte, error) {
	return git(ctx, root, stdin, args...)
}

// gitError is a git command that failed.
type gitError struct {
	args, msg string
	err       error
}

func (e *gitError) Error() string { return "git " + e.args + ": " + e.msg }
func (e *gitError) Unwrap() error { return e.err }

// exitCode is the exit status of a failed git command, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// metaFormat marks each commit with a record separator (never in a
// commit's text in practice) and ends its message with a unit separator
// followed by the NUL of -z.
const metaFormat = "--format=%x1e%H%x1f%an%x1f%aI%x1f%B%x1f"

// readCommits reads the commits of rev (newest first, merges left out:
// their changes are their parents'), at most limit of them, with the paths
// each changed. Renames are detected (-M), paths come raw (-z).
func readCommits(ctx context.Context, root, rev string, limit int) ([]commit, error) {
	args := []string{"-c", "core.quotepath=off", "log", "-z", "--no-merges", "--no-color", metaFormat,
		"--raw", "-M", "--no-abbrev", "--no-ext-diff", "--no-textconv", "-n", strconv.Itoa(limit), rev, "--"}
	out, err := git(ctx, root, nil, args...)
	if err != nil {
		return nil, err
	}
	return parseCommits(out)
}

// parseCommits parses readCommits' output: per commit "\x1e" hash "\x1f"
// author "\x1f" date "\x1f" message "\x1f\x00", then raw entries
// ":modes shas STATUS\x00path\x00[path\x00]".
func parseCommits(out []byte) ([]commit, error) {
	var cs []commit
	p := out
	for len(p) > 0 {
		if p[0] == '\n' || p[0] == 0 {
			p = p[1:]
			continue
		}
		if p[0] != 0x1e {
			return cs, fmt.Errorf("git log output: unexpected %q at byte %d", p[:min(len(p), 20)], len(out)-len(p))
		}
		end := bytes.Index(p, []byte("\x1f\x00"))
		if end < 0 {
			return cs, fmt.Errorf("git log output: a commit header without its end at byte %d", len(out)-len(p))
		}
		fields := strings.SplitN(string(p[1:end]), "\x1f", 4)
		if len(fields) != 4 || !isHash(fields[0]) {
			return cs, fmt.Errorf("git log output: a malformed commit header at byte %d", len(out)-len(p))
		}
		c := commit{Hash: fields[0], Author: fields[1], Date: fields[2]}
		c.Subject, c.Body, _ = strings.Cut(strings.TrimSpace(fields[3]), "\n")
		c.Body = strings.TrimSpace(c.Body)
		p = p[end+2:]
		for len(p) > 0 && (p[0] == '\n' || p[0] == ':') {
			if p[0] == '\n' {
				p = p[1:]
				continue
			}
			var meta, path string
			var ok bool
			if meta, p, ok = cutNul(p); !ok {
				return cs, fmt.Errorf("git log output: a cut raw entry in commit %s", c.Hash)
			}
			f := strings.Fields(meta)
			if len(f) < 5 || f[4] == "" {
				return cs, fmt.Errorf("git log output: a malformed raw entry %q in commit %s", meta, c.Hash)
			}
			ch := rawChange{Status: f[4][:1], Old: f[2], New: f[3]}
			if path, p, ok = cutNul(p); !ok {
				return cs, fmt.Errorf("git log output: a raw entry without its path in commit %s", c.Hash)
			}
			ch.Path = path
			if ch.Status == "R" || ch.Status == "C" {
				if path, p, ok = cutNul(p); !ok {
					return cs, fmt.Errorf("git log output: a rename without its new path in commit %s", c.Hash)
				}
				ch.From, ch.Path = ch.Path, path
			}
			c.Changes = append(c.Changes, ch)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

func cutNul(p []byte) (string, []byte, bool) {
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return "", p, false
	}
	return string(p[:i]), p[i+1:], true
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdef", rune(s[i])) {
			return false
		}
	}
	return true
}

// funcDrivers are git's built-in diff drivers by extension: with them, a
// hunk header carries the enclosing function or class of the change.
// Set through core.attributesFile, the lowest priority, so a project's
// own .gitattributes still wins.
var funcDrivers = map[string]string{
	"php": "php", "go": "golang", "py": "python", "rb": "ruby", "java": "java", "kt": "kotlin", "cs": "csharp",
	"rs": "rust", "c": "cpp", "h": "cpp", "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "m": "objc", "ex": "elixir",
	"exs": "elixir", "pl": "perl", "sh": "bash", "css": "css", "scss": "css",
}

// symbolExts are the extensions whose hunks are read for symbols; other
// files (lock files, data, assets) only cost diffing time.
var symbolExts = []string{"php", "go", "py", "rb", "java", "kt", "cs", "rs", "c", "h", "cc", "cpp", "hpp", "m",
	"ex", "exs", "pl", "sh", "js", "jsx", "mjs", "cjs", "ts", "tsx", "vue", "svelte", "swift", "scala", "dart", "lua"}

// readSymbols reads the patches of the given commits (-U0, code files
// only, those in skip left out) and returns, per commit and path, the
// symbols the hunks touch.
func readSymbols(ctx context.Context, root, attrFile string, hashes, skip []string) (map[string]map[string][]string, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	args := []string{"-c", "core.quotepath=off", "-c", "core.attributesFile=" + attrFile, "log", "--no-walk=unsorted",
		"--stdin", "--format=%x1e%H", "-p", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--"}
	for _, e := range symbolExts {
		args = append(args, "*."+e)
	}
	for _, p := range skip {
		args = append(args, ":(exclude,literal)"+p)
	}
	out, err := git(ctx, root, []byte(strings.Join(hashes, "\n")+"\n"), args...)
	if err != nil {
		return nil, err
	}
	return parseSymbols(out), nil
}

// parseSymbols reads a -U0 patch stream: hunk headers' function context
// and the declarations on changed lines name the symbols of each
// (commit, file). File headers are only read between "diff --git" and
// the first hunk, so a changed line that looks like one is not mistaken.
func parseSymbols(out []byte) map[string]map[string][]string {
	res := map[string]map[string][]string{}
	var hash, file string
	inHunks := false
	add := func(name string) {
		if hash == "" || file == "" || name == "" {
			return
		}
		m := res[hash]
		if m == nil {
			m = map[string][]string{}
			res[hash] = m
		}
		for _, s := range m[file] {
			if s == name {
				return
			}
		}
		if len(m[file]) < maxSymbols {
			m[file] = append(m[file], name)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	sc.Split(scanLinesLong)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\x1e"):
			hash, file, inHunks = strings.TrimSpace(line[1:]), "", false
		case strings.HasPrefix(line, "diff --git "):
			file, inHunks = "", false
		case !inHunks && strings.HasPrefix(line, "+++ "):
			if p, ok := patchPath(line[4:], "b/"); ok {
				file = p
			}
		case !inHunks && strings.HasPrefix(line, "--- "):
			if p, ok := patchPath(line[4:], "a/"); ok && file == "" {
				file = p // a deletion's "+++" is /dev/null
			}
		case strings.HasPrefix(line, "@@ "):
			inHunks = true
			if i := strings.Index(line[3:], " @@"); i >= 0 {
				add(contextName(strings.TrimSpace(line[3+i+3:])))
			}
		case inHunks && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")):
			add(declName(line[1:]))
		}
	}
	return res
}

// blobSizes returns the size of each blob in ids (one git process, which
// reads the objects' headers alone); a blob git cannot find has none.
func blobSizes(ctx context.Context, root string, ids []string) (map[string]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := git(ctx, root, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check=%(objectname) %(objectsize)")
	if err != nil {
		return nil, err
	}
	sizes := make(map[string]int64, len(ids))
	for line := range strings.Lines(string(out)) {
		id, size, ok := strings.Cut(strings.TrimSpace(line), " ")
		if n, err := strconv.ParseInt(size, 10, 64); ok && err == nil {
			sizes[id] = n
		}
	}
	return sizes, nil
}

// maxSymbols caps the symbols kept per (commit, file).
const maxSymbols = 12

// scanLinesLong splits on newlines and keeps a line longer than the
// buffer as several tokens instead of stopping.
func scanLinesLong(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	if len(data) >= 8<<20 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// patchPath reads a "---"/"+++" path: "a/x", "/dev/null" or a C-quoted
// "\"b/odd\\tname\"" (git quotes control characters, quotes and
// backslashes even with core.quotepath off).
func patchPath(s, prefix string) (string, bool) {
	s = strings.TrimRight(s, "\t")
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", false
		}
		s = u
	}
	p, ok := strings.CutPrefix(s, prefix)
	return filepath.ToSlash(p), ok
}

// Git runs git in root and returns its standard output, for the packages
// that ask git one question (the shared store's repository identity and
// commit); errors name the failure as git's first line of stderr does.
func Git(ctx context.Context, root string, args ...string) ([]byte, error) {
	return git(ctx, root, nil, args...)
}
