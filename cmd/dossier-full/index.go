package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dossierhq/dossier/cmd/internal/query"
	setup "github.com/dossierhq/dossier/cmd/internal/workspace"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/ui/termsafe"
)

type indexOptions struct {
	*globals
	watch    bool
	verbose  bool
	json     bool
	maxSize  int64
	workers  int
	embedder string
	store    string
	repoID   string
}

func newIndexCmd(g *globals) *cobra.Command {
	o := &indexOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build or refresh the index of the workspace",
		Long: "Index the workspace into .dossier/index.db. Only files whose size, mtime and content\n" +
			"changed are processed again; deleted files lose every record derived from them.\n" +
			"With --watch, keep the index current until interrupted.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.watch, "watch", false, "keep the index current as files change, until interrupted")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every skipped and noted file with its reason (parse errors, dropped facts and sections with their line, which --json lists without -v too)")
	f.BoolVar(&o.json, "json", false, "print the summary as one JSON object")
	f.Int64Var(&o.maxSize, "max-file-size", 0, "skip files larger than this many bytes (default from config: 1 MiB)")
	f.IntVar(&o.workers, "workers", 0, "parallel file processors (default: one per core)")
	f.StringVar(&o.store, "store", "", "also publish to (or reuse from) a shared index: postgres://[user@]host[:port]/db (default: [store] url); the password comes from PGPASSWORD, [store] password_env or ~/.pgpass")
	f.StringVar(&o.repoID, "repo-id", "", "the repository's name in the shared store (default: the normalised URL of the remote origin)")
	f.StringVar(&o.embedder, "embedder", "", "builtin (offline, the default) or openai (the endpoint in the config's [embed]); a change re-embeds everything")
	return cmd
}

func (o *indexOptions) run(cmd *cobra.Command) error {
	root, cfg, err := o.workspace()
	if err != nil {
		return err
	}
	opts := setup.IndexOptions(root, cfg)
	opts.Verbose = o.verbose
	if o.maxSize > 0 {
		opts.MaxFileSize = o.maxSize
	}
	if o.workers > 0 {
		opts.Workers = o.workers
	}
	if o.embedder != "" && o.embedder != config.ProviderBuiltin && o.embedder != config.ProviderOpenAI {
		return fmt.Errorf("%w: --embedder %q: use builtin or openai", errUsage, o.embedder)
	}
	if opts.Model, opts.Embedder, err = index.NewEmbedder(cfg.Embed, o.embedder); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	// The bar redraws itself with CR and erase sequences of its own: it
	// gets the terminal itself, not the escaping writer.
	prog := newProgress(termsafe.Raw(stderr))
	opts.Progress = prog.update
	opts.Notice = func(msg string) { fmt.Fprintln(stderr, "dossier:", msg) }
	ctx := cmd.Context()
	var shared *sharedIndex
	var key store.SnapshotKey
	var changed []string
	if url, pwEnv := storeSettings(o.store, cfg); url != "" {
		if o.watch {
			return fmt.Errorf("%w: --watch keeps the local index; a shared store is published from a commit: run `dossier index --store` once per commit", errUsage)
		}
		// A flow's answers are the user's own: never in a published index.
		opts.RunSummaries = false
		shared = &sharedIndex{url: url, passwordEnv: pwEnv, repoID: o.repoID, model: opts.Model, out: cmd.OutOrStdout(), errw: stderr}
		var done bool
		if key, changed, done, err = shared.before(ctx, root, opts); err != nil || done {
			return err
		}
	} else if o.repoID != "" {
		return fmt.Errorf("%w: --repo-id names the repository in a shared store: give --store too", errUsage)
	} else if l, ok, _ := store.ReadLink(root); ok {
		// Indexed without a store: the workspace reads its own index again.
		if err := store.RemoveLink(root); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "dossier: unlinked from the shared store %s (%s); reading the local index again\n", l.URL, l.SnapshotKey)
	}
	ix, err := index.Open(opts)
	if err != nil {
		return err
	}
	defer ix.Close()
	sum, err := ix.Run(ctx)
	prog.finish()
	if err != nil {
		return err
	}
	if err := o.report(cmd.OutOrStdout(), sum); err != nil {
		return err
	}
	if shared != nil {
		// A snapshot is published with its search tables whole: a file
		// the local index reads from its own record (changed since the
		// tables were built) would be missing from the store's.
		if err := ix.CompleteSearch(ctx); err != nil {
			return err
		}
		return shared.after(ctx, root, key, changed)
	}
	if !o.watch {
		return nil
	}
	err = ix.Watch(ctx, func(s index.Summary, err error) {
		if err != nil {
			fmt.Fprintln(stderr, "dossier: watch:", err)
			return
		}
		if o.json {
			_ = json.NewEncoder(cmd.OutOrStdout()).Encode(s)
			return
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s  re-indexed %d, removed %d, files %d, chunks %d (%.0f ms)\n",
			time.Now().Format("15:04:05"), s.Indexed+s.Touched, s.Removed, s.Files, s.Chunks, s.Seconds*1000)
	}, func() { fmt.Fprintf(stderr, "watching %s for changes (Ctrl-C to stop)\n", root) })
	if ctx.Err() != nil {
		return nil // Ctrl-C is how a watch ends
	}
	return err
}

func (o *indexOptions) report(w io.Writer, sum index.Summary) error {
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	if sum.RebuiltDamaged {
		fmt.Fprintf(w, "The index was damaged (%s) and has been rebuilt; the damaged file is kept as %s.\n", sum.Damage, sum.DamagedFile)
	}
	if sum.RebuiltFrom >= 0 {
		fmt.Fprintf(w, "The index was written by an older dossier (schema %d) and has been rebuilt.\n", sum.RebuiltFrom)
	}
	query.PrintSummary(w, sum, o.verbose)
	return nil
}

// progress draws a bar on a terminal and prints a plain line every few
// seconds otherwise.
type progress struct {
	w       io.Writer
	tty     bool
	start   time.Time
	last    time.Time
	lastP   index.Progress
	started bool
	drawn   bool // a bar line is on the terminal
	// cols is the terminal's width now (0: unknown), asked at each redraw
	// so that a resized window gets a line that fits it.
	cols func() int
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now(), last: time.Now()}
	p.tty = termsafe.IsTerminal(w)
	if f, ok := w.(*os.File); ok && p.tty {
		p.cols = func() int {
			c, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return c
		}
	}
	return p
}

// barRedraw is how often the bar may redraw.
const barRedraw = 100 * time.Millisecond

func (p *progress) update(ev index.Progress) {
	p.lastP = ev
	if p.tty {
		if now := time.Now(); !p.drawn || now.Sub(p.last) >= barRedraw || (ev.Total > 0 && ev.Done >= ev.Total) {
			p.last, p.drawn = now, true
			cols := 0
			if p.cols != nil {
				cols = p.cols()
			}
			fmt.Fprint(p.w, "\r"+barLine(ev, now.Sub(p.start), cols)+"\x1b[K")
		}
		return
	}
	if time.Since(p.last) < 2*time.Second {
		return
	}
	if ev.Total <= 0 {
		p.last = time.Now()
		fmt.Fprintf(p.w, "indexing: %d files done, still finding files\n", ev.Done)
		return
	}
	p.last = time.Now()
	p.started = true
	el := time.Since(p.start).Seconds()
	rate := float64(ev.Done) / el
	eta := 0.0
	if rate > 0 {
		eta = float64(ev.Total-ev.Done) / rate
	}
	fmt.Fprintf(p.w, "indexing: %d/%d files (%d%%), %.0f files/s, ETA %.0fs\n",
		ev.Done, ev.Total, ev.Done*100/ev.Total, rate, eta)
}

// barLine is the terminal's progress line after elapsed: a bar with the
// share done, the count, the rate and the time left once the total is
// known; a count and a rate while the walk is still finding files. It fits
// in cols columns (80 when unknown), less one, so that the line never
// wraps: "\r" returns only to the start of the last row of a wrapped line,
// and every redraw would leave a row behind. The bar narrows first; a
// line still too long is cut.
func barLine(ev index.Progress, elapsed time.Duration, cols int) string {
	if cols <= 0 {
		cols = 80
	}
	room := cols - 1
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(ev.Done) / s
	}
	if ev.Total <= 0 {
		return cut(fmt.Sprintf("indexing  %d files (%.0f files/s) [%s]", ev.Done, rate, elapsed.Round(time.Second)), room)
	}
	done := min(ev.Done, ev.Total)
	left := "?"
	if rate > 0 {
		left = (time.Duration(float64(ev.Total-done)/rate) * time.Second).Round(time.Second).String()
	}
	head := fmt.Sprintf("indexing %3d%% ", done*100/ev.Total)
	tail := fmt.Sprintf(" (%d/%d files, %.0f files/s) [%s:%s]", done, ev.Total, rate, elapsed.Round(time.Second), left)
	width := min(30, room-len(head)-len(tail)-2) // the bar's cells, between its two "|"
	if width < 5 {
		return cut(head+strings.TrimPrefix(tail, " "), room)
	}
	fill := done * width / ev.Total
	return head + "|" + strings.Repeat("█", fill) + strings.Repeat(" ", width-fill) + "|" + tail
}

// cut is line cut to n columns (its text is ASCII).
func cut(line string, n int) string {
	if len(line) > n {
		return line[:max(0, n)]
	}
	return line
}

// finish clears the bar, so that the summary starts on a clean line.
func (p *progress) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
