package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/evidence"
)

// engineCmd is a command the evidence engine parses itself: cobra only
// routes the words, so `dossier evidence toggle off 300-399` and the
// workbench's `/evidence toggle off 300-399` go through one parser.
func engineCmd(g *globals, word, short, long string) *cobra.Command {
	cmd := &cobra.Command{
		Use:                word,
		Short:              short,
		Long:               long,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, root, err := rootFlag(args, g.root)
			if err != nil {
				return err
			}
			if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") && strings.Contains(" evidence flow ", " "+word+" ") {
				return cmd.Help()
			}
			g.root = root
			ws, cfg, err := g.workspace()
			if err != nil {
				return err
			}
			e := newEngine(ws, cfg)
			e.Stderr = cmd.ErrOrStderr()
			e.Interactive = cli.IsTerminal() // `evidence add` asks before adding a folder
			err = e.Exec(cmd.Context(), append([]string{word}, args...), cmd.OutOrStdout())
			var ue *evidence.UsageError
			if errors.As(err, &ue) {
				return fmt.Errorf("%w: %s", errUsage, ue.Msg)
			}
			return err
		},
	}
	return cmd
}

// rootFlag takes --root out of words cobra did not parse.
func rootFlag(args []string, root string) ([]string, string, error) {
	out := args[:0:0]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--root":
			if i+1 >= len(args) {
				return nil, "", fmt.Errorf("%w: --root needs a directory", errUsage)
			}
			root = args[i+1]
			i++
		case strings.HasPrefix(a, "--root="):
			root = strings.TrimPrefix(a, "--root=")
		default:
			out = append(out, a)
		}
	}
	return out, root, nil
}

func newEvidenceCmd(g *globals) *cobra.Command {
	return engineCmd(g, "evidence", "Curate the evidence of the current flow (seed 003's /evidence commands)",
		"Curate the parts of the current flow ($FLOW_DIR, else the workspace's current flow).\n\n"+
			"Commands:\n"+evidence.Usage("evidence")+
			"\nSelectors: PATH, PATH::100,200, PATH::100 (to the end), PATH::100c,500c (bytes),\n"+
			"PATH::@Symbol, @Symbol, each optionally followed by #tag,tag; a folder (src/algo/) or a\n"+
			"glob ('src/**/*.ts') for its files, and '!GLOB' to leave files out.\n"+
			"IDs: 300_example (rank_kind), 300 (rank), 300-399 (range), e3 ($e3).\n\n"+
			"Run `dossier evidence COMMAND --help` for a command's flags.")
}

func newFlowCmd(g *globals) *cobra.Command {
	return engineCmd(g, "flow", "Create, list and switch flows",
		"A flow is a directory of ranked prompt parts (seed 003) under .dossier/flows/<id>;\n"+
			"FLOW_DIR selects one anywhere.\n\nCommands:\n"+evidence.Usage("flow"))
}

func newAssembleCmd(g *globals) *cobra.Command {
	return engineCmd(g, "assemble", "Assemble the current flow into a prompt (mdctx, aptix, responses, pack)", evidence.Help("", "assemble"))
}

func newAskCmd(g *globals) *cobra.Command {
	return engineCmd(g, "ask", "Ask what evidence covers X, what is missing for X, or what is redundant", evidence.Help("", "ask"))
}

func newEnvCmd(g *globals) *cobra.Command {
	return engineCmd(g, "env", "Print export lines for FLOW_DIR, EVIDENCE_COUNT, e1, e2, ... (eval \"$(dossier env)\")", evidence.Help("", "env"))
}
