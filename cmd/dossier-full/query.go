package main

import (
	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/query"
)

// newStatsCmd is `dossier stats` (package query, which the one-shot front
// runs without cobra).
func newStatsCmd(ws query.Workspace) *cobra.Command {
	o := query.NewStats(ws)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: query.StatsShort,
		Long:  query.StatsLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.Run(cmd.Context(), stdIO(cmd))
		},
	}
	o.Flags(cmd.Flags())
	return cmd
}

// newSearchCmd is `dossier search` (package query).
func newSearchCmd(ws query.Workspace) *cobra.Command {
	o := query.NewSearch(ws, nil)
	cmd := &cobra.Command{
		Use:   query.SearchUse,
		Short: query.SearchShort,
		Long:  query.SearchLong,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), stdIO(cmd), args)
		},
	}
	o.Flags(cmd.Flags())
	return cmd
}

func stdIO(cmd *cobra.Command) query.IO {
	return query.IO{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr()}
}
