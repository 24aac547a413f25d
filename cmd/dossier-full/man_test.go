package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/cmd/internal/helptopic"
	"github.com/dossierhq/dossier/cmd/internal/workbench"
	"github.com/dossierhq/dossier/evidence"
)

// TestManPages makes the manual pages from the command trees (dossier's
// and dossier-workbench's) and the help topics, and checks that every
// command has its page, naming each of its
// flags (the evidence and flow pages each engine command's), and every
// topic its page. `make man` runs it with
// DOSSIER_MAN_DIR set to where the pages go (bin/man); otherwise they go
// to a temporary directory.
func TestManPages(t *testing.T) {
	dir := os.Getenv("DOSSIER_MAN_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	root := newRootCmd(context.Background(), io.Discard, io.Discard)
	bench := workbench.NewCommand(context.Background(), io.Discard, io.Discard)
	if err := writeMan(root, bench, dir); err != nil {
		t.Fatal(err)
	}
	var check func(c *cobra.Command)
	check = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root && c != bench || c.IsAdditionalHelpTopicCommand() {
			return
		}
		name := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		page, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("no manual page for %q: %v", c.CommandPath(), err)
			return
		}
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && !strings.Contains(string(page), "--"+f.Name+`\fP`) {
				t.Errorf("%s does not name the flag --%s", name, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			check(sub)
		}
	}
	check(root)
	check(bench) // dossier-workbench.1: the workbench's own flags
	for _, group := range []string{"evidence", "flow"} {
		page, _ := os.ReadFile(filepath.Join(dir, "dossier-"+group+".1"))
		for _, word := range evidence.Words(group) {
			for _, line := range strings.Split(evidence.Help(group, word), "\n") {
				if f, _, _ := strings.Cut(strings.TrimSpace(line), " "); strings.HasPrefix(f, "--") && !strings.Contains(string(page), f) {
					t.Errorf("dossier-%s.1 does not name %s of %s %s", group, f, group, word)
				}
			}
		}
	}
	for _, topic := range helptopic.Topics {
		if _, err := os.Stat(filepath.Join(dir, "dossier-"+topic.Name+".7")); err != nil {
			t.Errorf("no manual page for the topic %q: %v", topic.Name, err)
		}
	}
}

// writeMan writes the manual pages of root's command tree and of
// dossier-workbench's (bench) into dir: one a command in section 1
// (cobra/doc, from the commands' help) and one a help topic in section 7
// (dossier-TOPIC.7, from its Markdown).
func writeMan(root, bench *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Pages that do not change with the day they are made.
	root.DisableAutoGenTag, bench.DisableAutoGenTag = true, true
	// The evidence engine parses its groups' words and flags itself: their
	// pages hold each command's own help.
	for _, c := range root.Commands() {
		for _, word := range evidence.Words(c.Name()) {
			c.Long += "\n\n" + evidence.Help(c.Name(), word)
		}
	}
	hdr := &doc.GenManHeader{Title: "DOSSIER", Section: "1", Source: "dossier", Manual: "dossier manual"}
	if err := doc.GenManTree(root, hdr, dir); err != nil {
		return err
	}
	hdr = &doc.GenManHeader{Title: "DOSSIER-WORKBENCH", Section: "1", Source: "dossier", Manual: "dossier manual"}
	if err := doc.GenManTree(bench, hdr, dir); err != nil {
		return err
	}
	for _, topic := range helptopic.Topics {
		head := fmt.Sprintf("%% DOSSIER-%s 7 \"\" dossier \"dossier manual\"\n\n", strings.ToUpper(topic.Name))
		page := md2man.Render([]byte(head + topic.Text))
		if err := os.WriteFile(filepath.Join(dir, "dossier-"+topic.Name+".7"), page, 0o644); err != nil {
			return err
		}
	}
	return nil
}
