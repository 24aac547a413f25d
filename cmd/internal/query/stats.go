package query

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Stats is `dossier stats`: the figures of the existing index.
type Stats struct {
	ws       Workspace
	json     bool
	secrets  bool
	problems bool
}

// StatsShort is the command's one-line help.
const StatsShort = "Print the figures of the existing index"

// StatsLong is the command's help.
const StatsLong = "Print the figures of the existing index (the summary of the last completed run) without\n" +
	"touching the workspace. It opens the index read-only and works while another dossier process\n" +
	"keeps the index fresh. A `secrets N in M files` line counts the credentials the index found;\n" +
	"--secrets lists them as path:line<TAB>rule (never the secret itself), and --problems lists what\n" +
	"the index could not read as path:line<TAB>reason<TAB>detail."

// NewStats is `dossier stats` on the workspace ws resolves.
func NewStats(ws Workspace) *Stats { return &Stats{ws: ws} }

// Flags adds the command's flags to f.
func (o *Stats) Flags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print the figures as one JSON object")
	f.BoolVar(&o.secrets, "secrets", false, "list the secrets found (path:line rule), never the secrets themselves")
	f.BoolVar(&o.problems, "problems", false, "list what the index could not read (path:line reason detail): files parsed with syntax errors, files that lost a framework's facts or a describer's sections")
}

// Run prints the figures (the command takes no arguments).
func (o *Stats) Run(ctx context.Context, std IO) error {
	root, cfg, err := o.ws()
	if err != nil {
		return err
	}
	printNotices(std.Err, cfg)
	if o.secrets {
		return o.printSecrets(ctx, std.Out, root)
	}
	if o.problems {
		return o.printProblems(ctx, std.Out, root)
	}
	sum, err := summary.Read(ctx, root)
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(std.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	PrintSummary(std.Out, sum, true)
	return nil
}

// PrintSummary writes the human form of a summary.
func PrintSummary(w io.Writer, s summary.Summary, verbose bool) {
	fmt.Fprintf(w, "index   %s\n", s.Root)
	if s.Repo.Commit != "" {
		fmt.Fprintf(w, "git     %s @ %s (%s)\n", s.Repo.Branch, short(s.Repo.Commit), s.Repo.Remote)
	}
	fmt.Fprintf(w, "files   %d  (this run: %d indexed, %d unchanged, %d touched, %d removed)\n",
		s.Files, s.Indexed, s.Unchanged, s.Touched, s.Removed)
	fmt.Fprintf(w, "chunks  %d\n", s.Chunks)
	fmt.Fprintf(w, "  by kind      %s\n", counts(s.ChunksByKind))
	fmt.Fprintf(w, "  by language  %s\n", counts(s.ChunksByLanguage))
	total := 0
	for _, n := range s.Skipped {
		total += n
	}
	fmt.Fprintf(w, "skipped %d  %s\n", total, counts(s.Skipped))
	if s.ParseErrors > 0 {
		fmt.Fprintf(w, "parse errors  %d files parsed with syntax errors (chunked around them; `dossier stats --problems` lists them)\n", s.ParseErrors)
	}
	if s.Dropped > 0 {
		fmt.Fprintf(w, "dropped %d files indexed without a framework's facts or a describer's sections (`dossier stats --problems` lists them)\n", s.Dropped)
	}
	if s.Secrets > 0 {
		fmt.Fprintf(w, "secrets %d in %d files (masked in search, redacted on every exit; `dossier stats --secrets` lists them)\n", s.Secrets, s.SecretFiles)
	}
	if len(s.Notes) > 0 {
		fmt.Fprintf(w, "notes   %s\n", counts(s.Notes))
	}
	for _, e := range s.Errors {
		fmt.Fprintf(w, "error   %s\n", e)
	}
	if verbose {
		printFiles(w, "skip", s.SkippedFiles)
		printFiles(w, "note", s.NotedFiles)
	}
	fmt.Fprintf(w, "time    %.2fs\n", s.Seconds)
}

// printFiles lists files skipped or noted, each with its reason.
func printFiles(w io.Writer, what string, files []summary.Skipped) {
	for _, f := range files {
		if f.Detail != "" {
			fmt.Fprintf(w, "  %s %-22s %s (%s)\n", what, f.Reason, termsafe.Line(f.Path), termsafe.Line(f.Detail))
		} else {
			fmt.Fprintf(w, "  %s %-22s %s\n", what, f.Reason, termsafe.Line(f.Path))
		}
	}
}

// printSecrets lists where the index found secrets.
func (o *Stats) printSecrets(ctx context.Context, w io.Writer, root string) error {
	list, err := summary.Secrets(ctx, root)
	if err != nil {
		return err
	}
	if o.json {
		return writeList(w, list)
	}
	for _, s := range list {
		fmt.Fprintf(w, "%s:%d\t%s\n", termsafe.Line(s.Path), s.Line, s.Rule)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no secrets found")
	}
	return nil
}

// printProblems lists what the index could not read, by path and line.
func (o *Stats) printProblems(ctx context.Context, w io.Writer, root string) error {
	list, err := summary.Problems(ctx, root)
	if err != nil {
		return err
	}
	if o.json {
		return writeList(w, list)
	}
	for _, p := range list {
		at := termsafe.Line(p.Path)
		if p.Line > 0 {
			at += ":" + strconv.Itoa(p.Line)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", at, p.Reason, termsafe.Line(p.Detail))
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no problems: every indexed file was read whole")
	}
	return nil
}

// writeList writes list as an indented JSON array, [] when it is empty.
func writeList[T any](w io.Writer, list []T) error {
	if list == nil {
		list = []T{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// counts renders a map as "a 3, b 2" sorted by count, then name.
func counts(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range m {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].v != list[j].v {
			return list[i].v > list[j].v
		}
		return list[i].k < list[j].k
	})
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = fmt.Sprintf("%s %d", e.k, e.v)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
