package evidence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/history"
)

// gitPrefix starts a selector that names a diff, and the source_uri of
// the part it becomes:
//
//	git:diff     the working tree against HEAD (staged and unstaged
//	             changes to tracked files; untracked files are not in it
//	             until `git add -N` makes them count)
//	git:staged   the index against HEAD (what `git commit` would record)
//	git:REV      the change commit REV made (against its first parent)
//	git:A..B     from A to B, as `git diff A..B` (A...B: from their merge base)
//
// The part holds the unified diff as git writes it, fenced as diff; its
// provenance keeps the selector as its source_uri and the commit it was
// taken at (HEAD, REV, or B), so refresh and status run the diff again.
// The diff is what the working tree shows now: refresh of git:diff follows
// further edits, and git:main..topic follows the branches.
const gitPrefix = "git:"

// isGitSource tells whether a part's source is a diff (a git: selector).
func isGitSource(s assemble.Source) bool { return strings.HasPrefix(s.URI, gitPrefix) }

// errEmptyDiff is the error of a diff with no change in it; errNoRepo
// that of a workspace outside any git repository.
var (
	errEmptyDiff = errors.New("empty diff")
	errNoRepo    = errors.New("not in a git repository")
)

// gitDiffArgs are the options every diff is run with: the same bytes for
// the same change whatever the user's git configuration (no colour, no
// external or text-converting driver, a/ and b/ prefixes), and paths
// relative to the workspace root, which may be a folder of the repository.
var gitDiffArgs = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--relative"}

// diffExtract runs the diff git:spec names and returns it as a part's
// extract. An empty diff is an error that says why it is empty.
func (e *Engine) diffExtract(spec string) (Extract, error) {
	text, commit, err := gitDiff(e.Root, spec, nil)
	if err != nil {
		return Extract{}, err
	}
	uri := gitPrefix + spec
	return Extract{Source: assemble.Source{URI: uri, Path: uri, CID: CID([]byte(text)), Span: "all",
		StartLine: 1, EndLine: assemble.LineCount(text), Language: "diff", Commit: commit}, Content: text, Whole: true}, nil
}

// gitDiff runs the diff of spec in root with extra options (-U0 for the
// changed lines alone) and returns it with the commit it is of.
func gitDiff(root, spec string, extra []string) (text, commit string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sel := gitPrefix + spec
	var args []string
	switch {
	case spec == "":
		return "", "", usagef("%s names no diff: use git:diff (the working tree against HEAD), git:staged, git:REV or git:A..B", sel)
	case spec == "diff":
		if commit, err = resolveRev(ctx, root, sel, "HEAD"); errors.Is(err, errNoRepo) {
			return "", "", err
		} else if err != nil {
			return "", "", fmt.Errorf("%s compares the working tree with HEAD, and %s has no commit yet: commit once, or add the files themselves", sel, root)
		}
		args = []string{"diff", "HEAD"}
	case spec == "staged":
		commit, _ = resolveRev(ctx, root, sel, "HEAD") // before the first commit, against nothing
		args = []string{"diff", "--cached"}
	case strings.Contains(spec, ".."):
		dots := ".."
		if strings.Contains(spec, "...") {
			dots = "..."
		}
		a, b, _ := strings.Cut(spec, dots)
		var from string
		if from, err = resolveRev(ctx, root, sel, or(a, "HEAD")); err != nil {
			return "", "", err
		}
		if commit, err = resolveRev(ctx, root, sel, or(b, "HEAD")); err != nil {
			return "", "", err
		}
		args = []string{"diff", from + dots + commit}
	default:
		if commit, err = resolveRev(ctx, root, sel, spec); err != nil {
			return "", "", err
		}
		args = []string{"show", "--format=", "--diff-merges=first-parent", commit}
	}
	// dossier's own directory is left out: a flow's part files, this
	// diff's among them, would be in the diff of a repository that tracks
	// them, and every refresh would change it again.
	args = append(append(append(args, gitDiffArgs...), extra...), "--", ".", ":(exclude).dossier")
	out, err := history.Git(ctx, root, args...)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", sel, err)
	}
	if len(out) == 0 {
		return "", "", emptyDiff(sel, spec)
	}
	return string(out), commit, nil
}

// emptyDiff says why the diff of spec holds nothing, and what would.
func emptyDiff(sel, spec string) error {
	why := "the commit changes no file under the workspace root"
	switch {
	case spec == "diff":
		why = "the working tree has no change against HEAD (untracked files are not in it: `git add -N FILE` makes a new file count, or add the file itself)"
	case spec == "staged":
		why = "nothing is staged (`git add` stages a change; git:diff is the working tree's)"
	case strings.Contains(spec, ".."):
		why = "the two commits do not differ under the workspace root"
	}
	return fmt.Errorf("%s is an %w: %s", sel, errEmptyDiff, why)
}

// resolveRev is the commit id rev names, or an error that says so. A rev
// starting with '-' would be read as an option and is refused.
func resolveRev(ctx context.Context, root, sel, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\n") {
		return "", usagef("%s: %q is not a revision: use a branch, tag or commit id (git:REV, git:A..B)", sel, rev)
	}
	out, err := history.Git(ctx, root, "rev-parse", "--verify", "-q", rev+"^{commit}")
	if err != nil && strings.Contains(err.Error(), "not a git repository") {
		return "", fmt.Errorf("%s: %s is %w: a diff is git's (`git init` and a commit, or add the files themselves)", sel, root, errNoRepo)
	}
	if err != nil {
		return "", fmt.Errorf("%s: no commit %q in the repository at %s (a branch, tag or commit id: see `git log`)", sel, rev, root)
	}
	return strings.TrimSpace(string(out)), nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// diffKind names a diff part: "git_diff", "git_staged", "git_main_topic".
func diffKind(x Extract) string { return Sanitize(x.Source.Path) }

// gitStaleness is a diff part's state: "" while the diff is what the part
// holds, Changed when it differs now, Lost when it is empty or cannot be
// taken any more (a branch deleted).
func (e *Engine) gitStaleness(p *Part) string {
	x, err := e.diffExtract(strings.TrimPrefix(p.Source.URI, gitPrefix))
	switch {
	case err != nil:
		return Lost
	case x.Source.CID != p.Source.CID:
		return Changed
	}
	return ""
}

// flowDiffGit is `flow diff` of a diff part: the diff taken again,
// compared with the part's; it reports whether the two are the same.
func (e *Engine) flowDiffGit(w io.Writer, p *Part) bool {
	x, err := e.diffExtract(strings.TrimPrefix(p.Source.URI, gitPrefix))
	switch {
	case err != nil:
		fmt.Fprintf(w, "✗ lost     %s: %s\n", p.ID(), firstLine(err.Error()))
	case x.Source.CID == p.Source.CID:
		return true
	default:
		fmt.Fprintf(w, "  changed  %s: %s differs now\n", p.ID(), p.Source.URI)
		old := oldText(p)
		if old == "" {
			old = p.Code
		}
		fmt.Fprint(w, shortDiff(old, x.Content, 20))
	}
	return false
}

// refreshDiff takes a diff part's diff again and rewrites the part with
// it. An empty diff, or one git cannot take any more, leaves the part as
// it is and reports it lost.
func (e *Engine) refreshDiff(f *Flow, p *Part) (relocation, error) {
	x, err := e.diffExtract(strings.TrimPrefix(p.Source.URI, gitPrefix))
	if err != nil {
		return relocation{state: Lost, why: firstLine(err.Error()) + "; the part keeps the diff it was taken with"}, nil
	}
	content := renderEvidence(x.Source, x.Content)
	if content == p.Content {
		return relocation{state: Unchanged}, nil
	}
	r := relocation{state: Changed, why: "the diff is taken again (" + strconv.Itoa(x.Source.EndLine) + " lines)"}
	if x.Source.CID == p.Source.CID {
		r = relocation{state: Moved, why: "the same diff; its commit is brought up to date"}
	}
	if err := rewritePart(f, p, content); err != nil {
		return relocation{}, err
	}
	return r, nil
}
