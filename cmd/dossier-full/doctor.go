package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
)

type doctorOptions struct {
	*globals
	json bool
}

// errProblems ends a doctor run that found problems: exit 1, and nothing
// more to print.
var errProblems = errReported{exitError}

func newDoctorCmd(g *globals) *cobra.Command {
	o := &doctorOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the index for damage and inconsistencies",
		Long: "Check .dossier/index.db thoroughly: its file layout, bbolt's consistency check, the\n" +
			"checksum of every value and the records' agreement with each other. Each problem is\n" +
			"printed with its fix; the exit code is 0 when the index is sound, 1 otherwise. An index\n" +
			"whose last run was interrupted is sound: it is reported as incomplete (exit 0), and\n" +
			"the next `dossier index` resumes it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print {ok, incomplete, problems: [{check, detail, fix}], version} as one JSON object")
	return cmd
}

func (o *doctorOptions) run(cmd *cobra.Command) error {
	root, err := o.resolveRoot()
	if err != nil {
		return err
	}
	rep, err := index.Doctor(root)
	if err != nil {
		return err
	}
	problems := rep.Problems
	w := cmd.OutOrStdout()
	if o.json {
		if problems == nil {
			problems = []store.Problem{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			OK         bool             `json:"ok"`
			Incomplete string           `json:"incomplete,omitempty"`
			Problems   []store.Problem  `json:"problems"`
			Version    cli.BuildVersion `json:"version"` // which dossier checked
		}{len(problems) == 0, rep.Incomplete, problems, cli.Version()}); err != nil {
			return err
		}
	} else {
		if len(problems) == 0 {
			fmt.Fprintf(w, "%s: no problems found\n", store.Path(root))
		}
		if rep.Incomplete != "" {
			fmt.Fprintf(w, "incomplete: %s\n", rep.Incomplete)
		}
		for _, p := range problems {
			fmt.Fprintf(w, "%s: %s\n  fix: %s\n", p.Check, p.Detail, p.Fix)
		}
	}
	if len(problems) > 0 {
		return errProblems
	}
	return nil
}
