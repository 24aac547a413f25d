package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dossierhq/dossier/assemble"
)

// A flow.json that is missing from a flow dossier made, or that does not
// parse (a crash of another tool, a half-done copy), must not reset the
// flow silently: Load keeps what still parses, recovers what the flow's
// other files tell (the id and time in the directory name, the pins,
// budget and fit detail of build/ctxplan.json), lists what is lost as a
// problem, and keeps the damaged bytes, which the next SaveMeta copies to
// flow.json.damaged before it writes a new flow.json.

// idTime is the UTC time NewID puts at the end of an id.
var idTime = lazyRegexp(`-(\d{8}T\d{6})(-\d+)?$`)

// defaultMeta is the meta of a flow without flow.json: id and name from
// the directory, the name and created time from NewID's form when it has
// it.
func defaultMeta(dir string) Meta {
	id := filepath.Base(dir)
	m := Meta{Version: MetaVersion, ID: id, Name: id}
	if loc := idTime().FindStringSubmatchIndex(id); loc != nil {
		if t, err := time.Parse("20060102T150405", id[loc[2]:loc[3]]); err == nil && loc[0] > 0 {
			m.Name, m.Created = id[:loc[0]], t
		}
	}
	return m
}

// partialMeta decodes the top-level fields of raw one by one, up to where
// it stops parsing, into m, and names those it kept.
func partialMeta(raw []byte, m *Meta) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var kept []string
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		one, _ := json.Marshal(map[string]json.RawMessage{key: v})
		probe := *m
		if json.Unmarshal(one, &probe) == nil {
			*m = probe
			kept = append(kept, key)
		}
	}
	return kept
}

// recoverMeta fills what flow.json lost from build/ctxplan.json and
// records the problem. why is "missing" or the parse error; kept the
// fields that still parsed.
func (f *Flow) recoverMeta(why string, kept []string) {
	var got []string
	if !slices.Contains(kept, "name") && f.Meta.Name != f.Meta.ID {
		got = append(got, fmt.Sprintf("name %q and created time from the directory name", f.Meta.Name))
	}
	if plan, ok := f.readPlan(); ok {
		if plan.Budget > 0 && f.Meta.Budget == 0 {
			f.Meta.Budget = plan.Budget
			got = append(got, fmt.Sprintf("budget %d", plan.Budget))
		}
		var pins, fit []string
		for _, p := range plan.Parts {
			id := p.Rank + "_" + p.Kind
			if p.Pinned && !slices.Contains(f.Meta.Pinned, id) {
				f.Meta.Pinned = append(f.Meta.Pinned, id)
				pins = append(pins, id)
			}
			if d := assemble.Detail(p.Detail); (d == assemble.Outline || d == assemble.PathOnly) && f.Meta.Detail[id] == "" {
				if f.Meta.Detail == nil {
					f.Meta.Detail = map[string]assemble.Detail{}
				}
				f.Meta.Detail[id] = d
				fit = append(fit, id+" "+p.Detail)
			}
		}
		if len(pins) > 0 {
			got = append(got, "pins ("+strings.Join(pins, ", ")+")")
		}
		if len(fit) > 0 {
			got = append(got, "fit detail ("+strings.Join(fit, ", ")+")")
		}
		if len(got) > 0 {
			got[len(got)-1] += " from build/ctxplan.json"
		}
	}
	var lost []string
	for _, k := range []string{"mode", "model", "format", "focus", "fit_skipped", "found", "diagnostics", "history"} {
		if !slices.Contains(kept, k) {
			lost = append(lost, k)
		}
	}
	msg := "flow.json is missing"
	if why != "missing" {
		msg = "flow.json is damaged (" + why + ")"
		if len(kept) > 0 {
			msg += "; kept what parsed: " + strings.Join(kept, ", ")
		}
	}
	if len(got) > 0 {
		msg += "; recovered " + strings.Join(got, ", ")
	}
	msg += "; lost, if they were set: " + strings.Join(lost, ", ") + " (`dossier flow set`, `evidence focus` set them again)"
	if why == "missing" {
		msg += "; the next change writes a new flow.json"
	} else {
		msg += "; the next change keeps the damaged file as flow.json.damaged and writes a new flow.json (or repair it by hand first)"
	}
	f.MetaProblem = msg
}

// readPlan reads the flow's build/ctxplan.json when dossier wrote it (it
// has dossier's token_count, which the seed's shell tools do not write).
func (f *Flow) readPlan() (assemble.Plan, bool) {
	var plan assemble.Plan
	raw, err := ReadRegular(filepath.Join(f.BuildDir(), "ctxplan.json"), f.roots)
	if err != nil || json.Unmarshal(raw, &plan) != nil || plan.TokenCount == "" {
		return assemble.Plan{}, false
	}
	return plan, true
}

// keepDamagedMeta copies the damaged flow.json Load read to
// flow.json.damaged (an older copy there becomes flow.json.damaged~N)
// before SaveMeta replaces it.
func (f *Flow) keepDamagedMeta() error {
	if f.damagedMeta == nil {
		return nil
	}
	dst := filepath.Join(f.Dir, metaFile+".damaged")
	if err := keepAside(dst); err != nil {
		return err
	}
	if err := WriteFileAtomic(dst, f.damagedMeta); err != nil {
		return err
	}
	f.damagedMeta = nil
	return nil
}
