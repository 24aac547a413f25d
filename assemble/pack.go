package assemble

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// defaultPackBudget is seed 004's context budget: a 16k window less the 4k
// reserved for the response.
const defaultPackBudget = 12000

// RenderPack renders f as seed 004's context pack within f.Budget tokens
// (count counts tokens of a text exactly).
//
// The pack is one YAML document with the sections task, workspace, ace,
// evidence and history in seed 004's order, and a budget section that
// reports the allocation, the tokens each section used and what was
// dropped. A Budget of zero or less means seed 004's 12000. When the whole
// pack fits, nothing is dropped. Otherwise, following seed 004's overflow
// strategy, it drops the oldest history messages, then trims the terminal
// output to its last lines until the workspace is within its allocation,
// then drops evidence from the lowest-ranked end (the highest rank number),
// then the rest of the terminal output. The task, the current file's
// evidence, the diagnostics and all ACE artifacts are never dropped; when
// they alone exceed the budget the report says over_budget: true.
//
// A nil f renders an empty pack and a nil count counts four bytes a token,
// so any input renders.
func RenderPack(f *Flow, count func(string) int) string {
	if f == nil {
		f = &Flow{}
	}
	if count == nil {
		count = func(s string) int { return (len(s) + 3) / 4 }
	}
	budget := f.Budget
	if budget <= 0 {
		budget = defaultPackBudget
	}
	d := newPackDoc(f)
	return d.fit(budget, func(s string) int { return max(0, count(s)) })
}

// packDoc is the pack rendered in pieces, before the budget decides which
// pieces stay: fixed sections as text, droppable items one text each.
type packDoc struct {
	task     string
	wsHead   string   // workspace fields before terminal_output
	terminal []string // terminal output lines, oldest first
	wsTail   string   // workspace fields after terminal_output
	ace      string
	evidence []packEntry // active evidence parts in assembly order
	history  []packEntry // oldest first
	// dropOrder lists indexes into evidence from the lowest ranked to the
	// highest, without the current file's entry, which is never dropped.
	dropOrder []int
}

// packEntry is one evidence part or history message as a rendered block
// sequence entry.
type packEntry struct {
	text string
	id   string // Part.ID() of an evidence entry
}

func newPackDoc(f *Flow) *packDoc {
	var (
		crit     packCriteria
		goals    []string
		ace      packACE
		ev       []*Part
		diags    = f.Pack.Diagnostics
		terminal = f.Pack.Terminal
	)
	for i := range f.Parts {
		p := &f.Parts[i]
		if !p.Active() {
			continue
		}
		switch p.Role {
		case User:
			if p.IsDiagnostics() {
				rep := ParseReport(p.Body)
				diags = append(diags, rep.PackDiagnostics()...)
				if rep.Output != "" {
					terminal = strings.TrimRight(terminal+"\n"+rep.Output, "\n")
				}
				continue
			}
			if g := strings.TrimSpace(splitCriteria(p.Body, &crit)); g != "" {
				goals = append(goals, g)
			}
		case System:
			ace.add(p.Kind, splitCriteria(p.Body, &crit))
		case Evidence:
			ev = append(ev, p)
		}
	}
	d := &packDoc{ace: ace.render()}
	d.task = packTask(strings.Join(goals, "\n\n"), f.Mode, &crit)

	// Highest ranked first: the lowest rank number, assembly order on ties.
	order := make([]int, len(ev))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := rankNumber(ev[a].Rank), rankNumber(ev[b].Rank)
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	current := -1
	for _, i := range order {
		if ev[i].Source.Path != "" {
			current = i
			break
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if order[i] != current {
			d.dropOrder = append(d.dropOrder, order[i])
		}
	}
	for _, p := range ev {
		d.evidence = append(d.evidence, packEntry{text: evidenceEntry(p), id: p.ID()})
	}
	for _, m := range f.Pack.History {
		d.history = append(d.history, packEntry{text: historyEntry(m)})
	}

	var head strings.Builder
	if current >= 0 {
		src := ev[current].Source
		yamlField(&head, 2, "current_file", src.Path)
		if l := src.Lines(); l != "" {
			yamlField(&head, 2, "selection", "lines "+l)
		}
	}
	if len(diags) > 0 {
		yamlKey(&head, 2, "diagnostics")
		for _, dg := range diags {
			head.WriteString(yamlMapItem(4, func(b *strings.Builder, in int) {
				if dg.File != "" {
					yamlField(b, in, "file", dg.File)
				}
				if dg.Line > 0 {
					yamlRaw(b, in, "line", strconv.Itoa(dg.Line))
				}
				yamlField(b, in, "message", dg.Message)
			}))
		}
	}
	d.wsHead = head.String()
	d.terminal = terminalLines(terminal)
	var tail strings.Builder
	if f.Pack.Branch != "" || len(f.Pack.Modified) > 0 {
		yamlKey(&tail, 2, "git_status")
		if f.Pack.Branch != "" {
			yamlField(&tail, 4, "branch", f.Pack.Branch)
		}
		if len(f.Pack.Modified) > 0 {
			yamlRaw(&tail, 4, "modified_files", yamlFlowSeq(f.Pack.Modified))
		}
	}
	d.wsTail = tail.String()
	return d
}

// rankNumber orders ranks numerically, so "50" comes before "100"; a rank
// that is not a number sorts last.
func rankNumber(rank string) int {
	n, err := strconv.Atoi(rank)
	if err != nil || n < 0 {
		return math.MaxInt
	}
	return n
}

// packSection writes a top-level key with its block body, or with empty
// ("{}", "[]") so every section is present and the document keeps its
// shape.
func packSection(key, body, empty string) string {
	if body == "" {
		return key + ": " + empty + "\n"
	}
	return key + ":\n" + body
}

func packTask(goal, mode string, c *packCriteria) string {
	var b strings.Builder
	yamlField(&b, 2, "goal", goal)
	if mode = strings.TrimPrefix(strings.TrimSpace(mode), "/"); mode != "" {
		yamlField(&b, 2, "slash_command", "/"+mode)
	}
	yamlList(&b, 2, "acceptance_criteria", c.acceptance)
	yamlList(&b, 2, "constraints", c.constraints)
	return packSection("task", b.String(), "{}")
}

// terminalLines splits terminal output into lines without trailing
// whitespace (which carries nothing and would force the block into a
// quoted string) and without blank lines at either end.
func terminalLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// workspace renders the workspace section without the oldest drop lines
// of the terminal output.
func (d *packDoc) workspace(drop int) string {
	var b strings.Builder
	b.WriteString(d.wsHead)
	if drop < len(d.terminal) {
		yamlField(&b, 2, "terminal_output", strings.Join(d.terminal[drop:], "\n")+"\n")
	}
	b.WriteString(d.wsTail)
	return packSection("workspace", b.String(), "{}")
}

// evidenceSection renders the evidence entries not dropped.
func (d *packDoc) evidenceSection(dropped []bool) string {
	var b strings.Builder
	for i, e := range d.evidence {
		if i >= len(dropped) || !dropped[i] {
			b.WriteString(e.text)
		}
	}
	return packSection("evidence", b.String(), "[]")
}

// historySection renders the history without its oldest drop messages.
func (d *packDoc) historySection(drop int) string {
	var b strings.Builder
	for _, e := range d.history[min(drop, len(d.history)):] {
		b.WriteString(e.text)
	}
	return packSection("history", b.String(), "[]")
}

// evidenceEntry renders an evidence part with its citation: the file, the
// lines and symbol it was selected by, its id for `dossier evidence`
// commands, its tags, and its content at the part's detail.
func evidenceEntry(p *Part) string {
	file := p.Source.Path
	if file == "" {
		file = p.Heading
	}
	if file == "" {
		file = p.File
	}
	if p.Detail == PathOnly {
		// A one-line mention, as in every format.
		pairs := [][2]string{{"file", file}}
		if l := p.Source.Lines(); l != "" {
			pairs = append(pairs, [2]string{"lines", l})
		}
		if p.Source.Symbol != "" {
			pairs = append(pairs, [2]string{"symbol", p.Source.Symbol})
		}
		pairs = append(pairs, [2]string{"id", p.ID()})
		if len(p.Source.Tags) > 0 {
			pairs = append(pairs, [2]string{"tags", strings.Join(p.Source.Tags, ",")})
		}
		pairs = append(pairs, [2]string{"detail", string(PathOnly)})
		return yamlPad(2) + "- " + yamlFlowMap(pairs) + "\n"
	}
	return yamlMapItem(2, func(b *strings.Builder, in int) {
		yamlField(b, in, "file", file)
		if l := p.Source.Lines(); l != "" {
			yamlField(b, in, "lines", l)
		}
		if p.Source.Symbol != "" {
			yamlField(b, in, "symbol", p.Source.Symbol)
		}
		yamlField(b, in, "id", p.ID())
		if len(p.Source.Tags) > 0 {
			yamlRaw(b, in, "tags", yamlFlowSeq(p.Source.Tags))
		}
		var content string
		switch p.Detail {
		case Outline:
			yamlRaw(b, in, "detail", string(Outline))
			content = p.OutlineText
		default:
			content = p.Code
			if content == "" {
				// Prose is trimmed of the blank lines around it, as in
				// prompt.mdctx; code is carried byte for byte.
				if body := strings.Trim(p.Body, "\r\n"); body != "" {
					content = body + "\n"
				}
			}
		}
		if content != "" {
			yamlField(b, in, "content", content)
		}
	})
}

func historyEntry(m Message) string {
	return yamlMapItem(2, func(b *strings.Builder, in int) {
		yamlField(b, in, "role", m.Role)
		yamlField(b, in, "content", m.Content)
	})
}

// packACE gathers seed 004's ACE artifacts from the system parts, by
// kind: constitution, gotchas and runbook parts become lists and a map,
// every other system part is a policy carried as text.
type packACE struct {
	constitution []string
	gotchas      []string
	runbook      [][2]string // name, command; the first of a name wins
	seen         map[string]bool
	notes        []string // runbook lines that are not "name: command"
	policies     []string
}

func (a *packACE) add(kind, text string) {
	k := strings.ToLower(kind)
	switch {
	case strings.HasPrefix(k, "constitution"):
		a.constitution = append(a.constitution, mdItems(text)...)
	case strings.HasPrefix(k, "gotcha"):
		a.gotchas = append(a.gotchas, mdItems(text)...)
	case strings.HasPrefix(k, "runbook"):
		for _, it := range mdItems(text) {
			// Parts come in rank order, so a name defined twice keeps
			// its higher-ranked command; the other stays visible as a note.
			if name, cmd, ok := runbookEntry(it); ok && !a.seen[name] {
				if a.seen == nil {
					a.seen = map[string]bool{}
				}
				a.seen[name] = true
				a.runbook = append(a.runbook, [2]string{name, cmd})
			} else {
				a.notes = append(a.notes, it)
			}
		}
	default:
		if t := strings.TrimSpace(text); t != "" {
			a.policies = append(a.policies, t)
		}
	}
}

func (a *packACE) render() string {
	var b strings.Builder
	yamlList(&b, 2, "constitution", a.constitution)
	yamlList(&b, 2, "gotchas", a.gotchas)
	if len(a.runbook) > 0 {
		yamlKey(&b, 2, "runbook")
		for _, e := range a.runbook {
			b.WriteString(yamlPad(4))
			b.WriteString(yamlInline(e[0]))
			b.WriteString(":")
			b.WriteString(yamlScalar(e[1], 4))
		}
	}
	yamlList(&b, 2, "runbook_notes", a.notes)
	yamlList(&b, 2, "policies", a.policies)
	return packSection("ace", b.String(), "{}")
}
