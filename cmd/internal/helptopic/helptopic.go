// Package helptopic is dossier's reference beyond the commands' own help:
// `dossier help TOPIC` prints a reference file that lives next to the code
// it documents (evidence/selectors.md, store/config/config.md, ...),
// embedded by that package. The commands' help is the rest of the
// reference, and the manual pages are generated from both (Man), so
// nothing is written twice and nothing can drift.
//
// A new command's reference goes into its Long help; what several
// commands share (a format, a setting, a syntax) goes into the topic of
// the package that implements it, or a new topic here.
package helptopic

import (
	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/evidence/mcp"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/store/pg"
	"github.com/dossierhq/dossier/ui/reference"
)

// Topic is one reference file, printed by `dossier help NAME`.
type Topic struct {
	Name  string // the word after `dossier help`; never a command's name
	Short string // its line in the root command's help
	File  string // where it lives, from the repository's root
	Text  string // the Markdown, embedded from File
}

// Topics are the reference files, in the order of the root's help.
var Topics = []Topic{
	{"indexing", "What is indexed, skipped and kept; index, stats, doctor, ignore files", "index/indexing.md", index.IndexingReference},
	{"searching", "Search modes, flags, scores and filters", "index/search/searching.md", search.SearchingReference},
	{"related-code", "related: imports, tests, callers, callees; routes, tables, models", "index/related/related.md", related.RelatedReference},
	{"flows", "Flows, the evidence commands, the flow directory and its turns", "evidence/flows.md", evidence.FlowsReference},
	{"selectors", "How to name code: paths, line and byte ranges, symbols, tags, folders, globs", "evidence/selectors.md", evidence.SelectorsReference},
	{"formats", "assemble and the prompt formats: mdctx, aptix, responses, pack; tokens and budget", "assemble/formats.md", assemble.FormatsReference},
	{"llm", "send and ask: the [llm] endpoint, turns, costs", "assemble/send/llm.md", send.LLMReference},
	{"mcp-server", "The MCP server: tools, resources, prompts, HTTP mode, registering it", "evidence/mcp/mcp.md", mcp.ServerReference},
	{"keys", "The workbench: panes, keys, command line", "ui/reference/keys.md", reference.Keys},
	{"config", "Every setting, workspace trust", "store/config/config.md", config.Reference},
	{"privacy", "What leaves your machine, and what reaches your terminal", "assemble/privacy.md", assemble.PrivacyReference},
	{"team-store", "A team index on Postgres: index --store, dossier store", "store/pg/team.md", pg.TeamReference},
}

// Add makes each topic a help topic of root: a command without a Run,
// which cobra lists under "Additional help topics" and `dossier help
// NAME` prints.
func Add(root *cobra.Command) {
	for _, t := range Topics {
		root.AddCommand(&cobra.Command{Use: t.Name, Short: t.Short, Long: t.Text})
	}
}
