package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/store/pg"
)

// openPublisher opens the shared store at url for `index --store`.
func openPublisher(ctx context.Context, url, passwordEnv string) (*pg.Store, error) {
	return pg.Open(ctx, url, pg.Options{PasswordEnv: passwordEnv})
}

type storeOptions struct {
	*globals
	url  string
	json bool
	keep int
}

func newStoreCmd(g *globals) *cobra.Command {
	o := &storeOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Look after a shared index on a team's Postgres (status, gc, migrate)",
		Long: "A shared store keeps the index of every repository a team publishes with\n" +
			"`dossier index --store URL` (or [store] url in the config): CI indexes a commit once,\n" +
			"and every clone at that commit searches it at once. These commands show and tidy it.",
	}
	cmd.PersistentFlags().StringVar(&o.url, "store", "", "the shared store: postgres://[user@]host[:port]/db (default: [store] url)")
	cmd.PersistentFlags().BoolVar(&o.json, "json", false, "print the report as one JSON object")
	status := &cobra.Command{
		Use:   "status",
		Short: "Show the server, its pgvector, the schema version, and every repository's snapshots",
		Long: "Show the store's server, whether it has pgvector (without it everything but vectors works),\n" +
			"the schema version and every repository's snapshots.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.with(cmd, func(ctx context.Context, s *pg.Store) error {
				st, err := s.Status(ctx)
				if err != nil {
					return err
				}
				return o.print(cmd.OutOrStdout(), st, func(w io.Writer) { printStatus(w, st) })
			})
		},
	}
	gc := &cobra.Command{
		Use:   "gc",
		Short: "Drop the snapshots no ref points at (all but each repository's newest), and the records they alone held",
		Long: "Drop the snapshots no ref points at (all but each repository's newest, or --keep N) and,\n" +
			"a day later, the records only they held.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.with(cmd, func(ctx context.Context, s *pg.Store) error {
				opts := pg.DefaultGC
				if o.keep > 0 {
					opts.KeepLatest = o.keep
				}
				rep, err := s.GC(ctx, opts)
				if err != nil {
					return err
				}
				return o.print(cmd.OutOrStdout(), rep, func(w io.Writer) {
					fmt.Fprintf(w, "dropped %d snapshots and %d records (%.1f MB) from %s\n",
						rep.Snapshots, rep.Records, float64(rep.Bytes)/(1<<20), s.Describe())
				})
			})
		},
	}
	gc.Flags().IntVar(&o.keep, "keep", 0, "keep this many newest snapshots of each repository (default 1)")
	migrate := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the store's schema up to this dossier's (writers do it by themselves)",
		Long: "Apply the store's pending schema migrations, numbered files embedded in dossier, in order.\n" +
			"Writers (index --store) do it by themselves; a dossier refuses a schema newer than it knows.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.with(cmd, func(ctx context.Context, s *pg.Store) error {
				rep, err := s.Migrate(ctx)
				if err != nil {
					return err
				}
				return o.print(cmd.OutOrStdout(), rep, func(w io.Writer) {
					fmt.Fprintf(w, "%s: schema version %d", s.Describe(), rep.Version)
					if len(rep.Applied) > 0 {
						fmt.Fprintf(w, ", applied %s", strings.Join(rep.Applied, ", "))
					}
					fmt.Fprintln(w)
					for _, p := range rep.Pending {
						fmt.Fprintf(w, "pending: %s\n", p)
					}
				})
			})
		},
	}
	cmd.AddCommand(status, gc, migrate)
	return cmd
}

// with opens the store the flags or the config name.
func (o *storeOptions) with(cmd *cobra.Command, fn func(ctx context.Context, s *pg.Store) error) error {
	_, cfg, err := o.workspace()
	if err != nil {
		return err
	}
	url, pwEnv := storeSettings(o.url, cfg)
	if url == "" {
		return fmt.Errorf("%w: no shared store: give --store postgres://host/db or set [store] url in the config", errUsage)
	}
	s, err := pg.Open(cmd.Context(), url, pg.Options{PasswordEnv: pwEnv})
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(cmd.Context(), s)
}

func (o *storeOptions) print(w io.Writer, v any, text func(io.Writer)) error {
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	text(w)
	return nil
}

func printStatus(w io.Writer, st pg.Status) {
	fmt.Fprintf(w, "server   %s (PostgreSQL %s)\n", st.Server, st.ServerVersion)
	fmt.Fprintf(w, "pgvector %s\n", st.PGVector)
	fmt.Fprintf(w, "schema   version %d (this dossier knows %d)\n", st.SchemaVersion, st.KnownVersion)
	for _, p := range st.Pending {
		fmt.Fprintf(w, "pending  %s\n", p)
	}
	fmt.Fprintf(w, "size     %.1f MB\n", float64(st.Size)/(1<<20))
	if len(st.Repos) == 0 {
		fmt.Fprintln(w, "no repository yet: publish one with `dossier index --store URL`")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "\nREPOSITORY\tCOMMIT\tSTATE\tFILES\tCREATED\tREFS")
	for _, r := range st.Repos {
		for _, s := range r.Snapshots {
			c := s.Commit
			if len(c) > 12 {
				c = c[:12]
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.Name, c, s.State, s.Files,
				s.Created.Local().Format(time.DateTime), strings.Join(s.Refs, ","))
		}
	}
	tw.Flush()
}
