package describe

import (
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// historyDescriber describes the sections of history files (one commit's
// change to one file each) and of kept answers: their finder carries the
// file the history is of, or the flow, request, model and date of the
// turn, so a search for a name or a request finds them.
type historyDescriber struct{}

func (historyDescriber) Name() string { return "history" }
func (historyDescriber) Description() string {
	return "file_change sections (a commit's change to a file) and run_summary answers, with file, or flow, request, model and date in the finder"
}

func (historyDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	if fc.SourceType != lang.SrcFileChange && fc.SourceType != lang.SrcRunSummary {
		return nil, false
	}
	pairs := []string{"path", fc.Path, "type", fc.SourceType}
	pairs = append(pairs, fc.Facts...)
	if seg.Kind == segment.Section {
		pairs = append(pairs, "section", strings.Join(append(append([]string(nil), seg.Parents...), seg.Name), " > "))
	}
	key := seg.Key
	if key == "" {
		key = "window"
	}
	s := base("history", fc, seg, key, finder(pairs...))
	s.Flavor = fc.SourceType
	return replacing{s}, true
}
