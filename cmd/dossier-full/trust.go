package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/store/config"
)

type trustOptions struct {
	*globals
	status bool
	revoke bool
	list   bool
}

func newTrustCmd(g *globals) *cobra.Command {
	o := &trustOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Let the workspace's .dossier.toml choose where data is sent and which credential goes along",
		Long: "A workspace's .dossier.toml may name an endpoint and an API key variable ([embed]\n" +
			"provider, base_url, api_key_env, model, dimensions). dossier ignores those settings\n" +
			"until you trust the workspace: `dossier trust` shows them and records your trust in\n" +
			"$XDG_CONFIG_HOME/dossier/" + config.TrustFileName + " for this path and these exact settings.\n" +
			"When they change, they are ignored again until you trust them again. Your own\n" +
			"config ($XDG_CONFIG_HOME/dossier/config.toml) and flags need no trust.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if n := btoi(o.status) + btoi(o.revoke) + btoi(o.list); n > 1 {
				return fmt.Errorf("%w: give one of --status, --revoke and --list", errUsage)
			}
			return o.run(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.status, "status", false, "show the workspace's settings and whether they are trusted; change nothing")
	f.BoolVar(&o.revoke, "revoke", false, "stop trusting the workspace")
	f.BoolVar(&o.list, "list", false, "list the trusted workspaces")
	return cmd
}

func (o *trustOptions) run(w io.Writer) error {
	if o.list {
		return listTrusted(w)
	}
	root, err := o.resolveRoot()
	if err != nil {
		return err
	}
	if o.revoke {
		ok, err := config.Revoke(root)
		switch {
		case err != nil:
			return err
		case ok:
			fmt.Fprintf(w, "revoked: the gated settings of %s are ignored from now on\n", filepath.Join(root, config.FileName))
		default:
			fmt.Fprintf(w, "%s was not trusted: nothing to revoke\n", root)
		}
		return nil
	}
	ws, err := config.Inspect(root)
	if err != nil {
		return err
	}
	if ws.State == config.NothingToTrust {
		if _, err := os.Stat(ws.File); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "no %s in %s: nothing to trust\n", config.FileName, root)
		} else {
			fmt.Fprintf(w, "%s sets nothing that needs trust\n", ws.File)
		}
		return nil
	}
	fmt.Fprintf(w, "%s sets what leaves this machine and with which credential:\n", ws.File)
	printSettings(w, ws.Settings)
	if o.status {
		fmt.Fprintln(w, stateLine(ws))
		return nil
	}
	if ws.State == config.Trusted {
		fmt.Fprintln(w, "already trusted: nothing changed")
		return nil
	}
	if ws, err = config.Trust(root, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(w, "trusted: dossier honours these in %s until they change (undo with 'dossier trust --revoke')\n", ws.Root)
	return nil
}

func printSettings(w io.Writer, ss []config.Setting) {
	width := 0
	for _, s := range ss {
		width = max(width, len(s.String()))
	}
	for _, s := range ss {
		if s.Means == "" {
			fmt.Fprintf(w, "  %s\n", s)
			continue
		}
		fmt.Fprintf(w, "  %-*s  # %s\n", width, s, s.Means)
	}
}

func stateLine(ws config.Workspace) string {
	switch {
	case ws.TrustErr != nil:
		return fmt.Sprintf("not trusted: %v", ws.TrustErr)
	case ws.State == config.Trusted:
		return "trusted (undo with 'dossier trust --revoke')"
	case ws.State == config.Changed:
		return "not trusted: they changed since you trusted this workspace (run 'dossier trust' to trust them)"
	}
	return "not trusted: they are ignored (run 'dossier trust' to trust them)"
}

// listTrusted prints every trusted workspace with the settings trusted
// and whether they still hold.
func listTrusted(w io.Writer) error {
	list, err := config.TrustedWorkspaces()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no trusted workspaces")
		return nil
	}
	for _, e := range list {
		state := "honoured"
		if _, err := os.Stat(filepath.Join(e.Root, config.FileName)); errors.Is(err, fs.ErrNotExist) {
			state = "its " + config.FileName + " is gone"
		} else if ws, err := config.Inspect(e.Root); err != nil {
			state = "cannot read: " + err.Error()
		} else if ws.State != config.Trusted {
			state = "settings changed since: ignored"
		}
		fmt.Fprintf(w, "%s  (trusted %s; %s)\n", e.Root, e.TrustedAt.Local().Format("2006-01-02 15:04"), state)
		for _, s := range e.Settings {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
