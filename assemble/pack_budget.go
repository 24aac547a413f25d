package assemble

import (
	"strconv"
	"strings"
)

// The pack's sections, in seed 004's order; they index allocations and
// token counts.
const (
	packTaskSec = iota
	packWorkspaceSec
	packACESec
	packEvidenceSec
	packHistorySec
	packSections
)

// packSectionNames returns the section keys in order.
func packSectionNames() [packSections]string {
	return [packSections]string{"task", "workspace", "ace", "evidence", "history"}
}

// packAllocate splits budget in seed 004's proportions (500, 1000, 1000,
// 8000 and 1500 of 12000); evidence takes what rounding leaves, as it
// takes whatever share the other sections do not use.
func packAllocate(budget int) [packSections]int {
	const whole = 12000
	shares := [packSections]int{500, 1000, 1000, 8000, 1500}
	var a [packSections]int
	rest := budget
	for i, s := range shares {
		if i != packEvidenceSec {
			// Split before multiplying so a huge budget cannot overflow.
			a[i] = budget/whole*s + budget%whole*s/whole
			rest -= a[i]
		}
	}
	a[packEvidenceSec] = rest
	return a
}

// packCut is what the budget removed from the pack.
type packCut struct {
	history  int      // oldest messages dropped
	terminal int      // oldest terminal lines dropped
	dropped  []bool   // by index into packDoc.evidence
	ids      []string // dropped evidence ids, in the order they went
	over     bool     // what cannot be dropped exceeds the budget
}

// packStep is one thing the overflow strategy can drop, with an estimate
// of the tokens that saves.
type packStep struct {
	kind  int // stepHistory, stepTerminal or stepEvidence
	index int // into packDoc.evidence for stepEvidence
	save  int
}

const (
	stepHistory = iota
	stepTerminal
	stepEvidence
)

func (c *packCut) apply(d *packDoc, s packStep) {
	switch s.kind {
	case stepHistory:
		c.history++
	case stepTerminal:
		c.terminal++
	case stepEvidence:
		c.dropped[s.index] = true
		c.ids = append(c.ids, d.evidence[s.index].id)
	}
}

// fit renders the whole pack and returns it when it fits. Otherwise it
// walks the overflow steps in order, estimating each step's saving from
// its piece counted alone, renders once the estimates say the pack fits,
// and counts the result; token counts do not quite add up over
// concatenation, so it goes on with the next steps while the rendered pack
// is still over. Each piece is counted once and each round counts the
// output whole, so the work is a few counts of the pack, not one per step.
func (d *packDoc) fit(budget int, count func(string) int) string {
	alloc := packAllocate(budget)
	cut := &packCut{dropped: make([]bool, len(d.evidence))}
	text, total := d.render(cut, budget, alloc, count)
	if total <= budget {
		return text
	}
	steps := d.steps(alloc, count)
	need, k := total-budget, 0
	for k < len(steps) {
		for ; need > 0 && k < len(steps); k++ {
			need -= steps[k].save
			cut.apply(d, steps[k])
		}
		text, total = d.render(cut, budget, alloc, count)
		if total <= budget {
			return text
		}
		need = total - budget
	}
	cut.over = true
	text, _ = d.render(cut, budget, alloc, count)
	return text
}

// steps lists seed 004's overflow strategy as single drops, in order:
// history oldest first; terminal lines oldest first until the workspace
// is within its allocation (seed 004 prefers ACE artifacts over raw logs);
// evidence from the lowest ranked; then the rest of the terminal output.
func (d *packDoc) steps(alloc [packSections]int, count func(string) int) []packStep {
	steps := make([]packStep, 0, len(d.history)+len(d.terminal)+len(d.dropOrder))
	for _, e := range d.history {
		steps = append(steps, packStep{kind: stepHistory, save: count(e.text)})
	}
	lineCost := make([]int, len(d.terminal))
	ws := count(d.workspace(len(d.terminal)))
	for i, l := range d.terminal {
		lineCost[i] = count(yamlPad(4) + l + "\n")
		ws += lineCost[i]
	}
	line := 0
	for ; line < len(d.terminal) && ws > alloc[packWorkspaceSec]; line++ {
		ws -= lineCost[line]
		steps = append(steps, packStep{kind: stepTerminal, save: lineCost[line]})
	}
	for _, i := range d.dropOrder {
		e := d.evidence[i]
		// The dropped id is listed in the report, which costs a little back.
		steps = append(steps, packStep{kind: stepEvidence, index: i, save: count(e.text) - count(e.id+", ")})
	}
	for ; line < len(d.terminal); line++ {
		steps = append(steps, packStep{kind: stepTerminal, save: lineCost[line]})
	}
	return steps
}

// render writes the pack as cut leaves it and returns it with its token
// count. The report states the count of the text it is part of, so the
// number is settled by recounting until it no longer changes, which it
// does at once unless its own digits change the count.
func (d *packDoc) render(c *packCut, budget int, alloc [packSections]int, count func(string) int) (string, int) {
	secs := [packSections]string{
		d.task,
		d.workspace(c.terminal),
		d.ace,
		d.evidenceSection(c.dropped),
		d.historySection(c.history),
	}
	var (
		used [packSections]int
		body strings.Builder
		sum  int
	)
	for i, s := range secs {
		used[i] = count(s)
		sum += used[i]
		body.WriteString(s)
	}
	n := sum + count(packReport(c, budget, alloc, used, sum))
	var text string
	total := 0
	for range 4 {
		text = body.String() + packReport(c, budget, alloc, used, n)
		total = count(text)
		if total == n {
			break
		}
		n = total
	}
	return text, total
}

// packReport renders the budget section: the limit, the tokens used by
// the whole pack, the allocation and use of each section, what was
// dropped, and over_budget when the parts that are never dropped do not
// fit.
func packReport(c *packCut, budget int, alloc, used [packSections]int, total int) string {
	var b strings.Builder
	b.WriteString("budget:\n")
	yamlRaw(&b, 2, "limit", strconv.Itoa(budget))
	yamlRaw(&b, 2, "used", strconv.Itoa(total))
	yamlRaw(&b, 2, "allocation", packFlowMap(alloc))
	yamlRaw(&b, 2, "sections", packFlowMap(used))
	if c.history > 0 || c.terminal > 0 || len(c.ids) > 0 {
		yamlKey(&b, 2, "dropped")
		if c.history > 0 {
			yamlRaw(&b, 4, "history", strconv.Itoa(c.history))
		}
		if c.terminal > 0 {
			yamlRaw(&b, 4, "terminal_lines", strconv.Itoa(c.terminal))
		}
		if len(c.ids) > 0 {
			yamlRaw(&b, 4, "evidence", yamlFlowSeq(c.ids))
		}
	}
	if c.over {
		yamlRaw(&b, 2, "over_budget", "true")
	}
	return b.String()
}

// packFlowMap renders per-section numbers on one line:
// "{task: 500, workspace: 1000, ...}".
func packFlowMap(v [packSections]int) string {
	var b strings.Builder
	b.WriteString("{")
	for i, name := range packSectionNames() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(strconv.Itoa(v[i]))
	}
	b.WriteString("}")
	return b.String()
}
