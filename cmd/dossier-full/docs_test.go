package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/helptopic"
)

// TestEveryCommandAndFlagIsDocumented: every command of dossier-full has
// its help and every flag its usage line, the text the manual pages and
// `dossier help` are made of (the front's stats and search flags are
// these commands' own: package query registers them for both).
func TestEveryCommandAndFlagIsDocumented(t *testing.T) {
	for _, m := range helptopic.Undocumented(newRootCmd(context.Background(), io.Discard, io.Discard)) {
		t.Error(m)
	}
}

// TestHelpTopic: `dossier help TOPIC` prints the topic's reference file,
// and the root's help lists the topics.
func TestHelpTopic(t *testing.T) {
	stdout, stderr, code := runCLI(t, "help", "selectors")
	if code != 0 || !strings.Contains(stdout, "# Selectors") {
		t.Fatalf("help selectors: exit %d, stderr %q, stdout starts %.200q", code, stderr, stdout)
	}
	stdout, _, _ = runCLI(t, "--help")
	for _, topic := range helptopic.Topics {
		if !strings.Contains(stdout, topic.Name) {
			t.Errorf("dossier --help does not list the help topic %q:\n%s", topic.Name, stdout)
		}
	}
}

// TestTopicFiles: each help topic is the file its File names (so the
// list in README.md points at the right place), and README.md's "Where
// the rest lives" names each topic with its file.
func TestTopicFiles(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range helptopic.Topics {
		raw, err := os.ReadFile(filepath.Join("../..", topic.File))
		if err != nil || string(raw) != topic.Text {
			t.Errorf("help topic %q is not the file %s (%v)", topic.Name, topic.File, err)
		}
		if entry := fmt.Sprintf("`%s` (%s)", topic.Name, topic.File); !strings.Contains(string(readme), entry) {
			t.Errorf("README.md's list of where the rest lives has no %s", entry)
		}
	}
}
