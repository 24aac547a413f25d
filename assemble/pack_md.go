package assemble

import "strings"

// This file reads the little structure the context pack needs out of the
// markdown of system and user parts. It is line oriented on purpose: the
// parts are hand-written notes, and anything it does not recognise stays
// in the text it came from rather than being lost.

// packCriteria is what the task section lifts out of the parts.
type packCriteria struct {
	acceptance  []string
	constraints []string
}

// splitCriteria lifts the bullet lists under an "acceptance…" or
// "constraint…" heading out of text. A heading is a markdown heading or a
// line ending in a colon ("Acceptance criteria:", "**Constraints:**",
// "acceptance_criteria:") whose words start with one of those; text after
// the colon is a first item ("Constraints: keep the API"). The list runs
// over bullets, their indented continuation lines and blank lines, and
// ends at the first other line. rest is text without the lifted lines; a
// heading with no bullets after it stays in rest. Fenced code is skipped.
func splitCriteria(text string, c *packCriteria) (rest string) {
	var (
		keep    []string
		pending []string // blank lines inside a list, kept if it ends
		fence   string
		list    *[]string
		items   int // items in the current list
		headAt  int // index in keep of the current list's heading
	)
	// flush ends a list: one of the blank lines inside it stays, unless
	// the kept text already ends with one, so lifting a list out leaves a
	// single paragraph break behind.
	flush := func() {
		if len(pending) > 0 && (len(keep) == 0 || strings.TrimSpace(keep[len(keep)-1]) != "") {
			keep = append(keep, pending[0])
		}
		pending = pending[:0]
	}
	add := func(item string) {
		if item == "" {
			return
		}
		if items == 0 {
			keep = keep[:headAt] // the heading goes with its first item
		}
		*list = append(*list, item)
		items++
		pending = pending[:0]
	}
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		if fence != "" {
			keep = append(keep, raw)
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if kind, inline := criteriaHeading(line); kind != "" {
			flush()
			list, items, headAt = &c.acceptance, 0, len(keep)
			if kind == "constraints" {
				list = &c.constraints
			}
			keep = append(keep, raw)
			add(inline)
			continue
		}
		if list != nil {
			if line == "" {
				pending = append(pending, raw)
				continue
			}
			if item, ok := bulletText(line); ok {
				add(item)
				continue
			}
			if items > 0 && (line[0] == ' ' || line[0] == '\t') {
				l := *list
				l[len(l)-1] += " " + strings.TrimSpace(line)
				pending = pending[:0]
				continue
			}
			list = nil
			flush()
		}
		if f := fenceOf(line); f != "" {
			fence = f
		}
		keep = append(keep, raw)
	}
	return strings.Join(keep, "\n")
}

// criteriaHeading reports which list a line opens ("acceptance",
// "constraints" or "") and the item that follows its colon, if any.
func criteriaHeading(line string) (kind, inline string) {
	t := strings.TrimSpace(line)
	heading := isHeading(t)
	if heading {
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	}
	label := strings.ToLower(strings.TrimSpace(strings.ReplaceAll(t, "*", "")))
	switch {
	case strings.HasPrefix(label, "acceptance"):
		kind = "acceptance"
	case strings.HasPrefix(label, "constraint"):
		kind = "constraints"
	default:
		return "", ""
	}
	colon := strings.IndexByte(t, ':')
	if heading {
		return kind, ""
	}
	// A colon close to the start marks a label; a long lead-in is a
	// sentence that merely starts with the word.
	if colon < 0 || colon > 32 {
		return "", ""
	}
	return kind, strings.TrimSpace(strings.TrimLeft(t[colon+1:], "*"))
}

// bulletText returns the text of a "- ", "* ", "+ ", "1. " or "1) " item.
func bulletText(line string) (string, bool) {
	t := strings.TrimLeft(line, " \t")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimSpace(t[2:]), true
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t') {
		return strings.TrimSpace(t[i+2:]), true
	}
	return "", false
}

// fenceOf returns the fence a line opens ("```", "~~~~"), or "".
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	n := 0
	for n < len(t) && (t[n] == '`' || t[n] == '~') && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a block opened by fence: the
// same character, at least as many, and nothing else.
func closesFence(line, fence string) bool {
	f := fenceOf(line)
	return f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(line) == f
}

// isHeading reports whether a trimmed line is a markdown heading, not a
// "#tag" line.
func isHeading(t string) bool {
	return strings.HasPrefix(t, "#") && (len(t) == 1 || t[1] == '#' || t[1] == ' ')
}

// mdItems splits an ACE part into items: each bullet with its indented
// continuation lines, each paragraph, and each fenced block kept whole.
// An unindented line after a bullet starts an item of its own, since
// these files are notes rather than typeset markdown. Headings are labels
// of the file, not rules, and are left out.
func mdItems(text string) []string {
	const (
		none = iota
		inBullet
		inParagraph
	)
	var (
		items []string
		open  = none // what the last item is, if the next line continues it
		fence string
		block []string
	)
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		if fence != "" {
			block = append(block, line)
			if closesFence(line, fence) {
				items = append(items, strings.Join(block, "\n"))
				fence, block = "", nil
			}
			continue
		}
		if f := fenceOf(line); f != "" {
			fence, block, open = f, []string{strings.TrimLeft(line, " ")}, none
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" || isHeading(t) {
			open = none
			continue
		}
		if item, ok := bulletText(line); ok {
			open = none
			if item != "" {
				items = append(items, item)
				open = inBullet
			}
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if open == inParagraph || open == inBullet && indented {
			items[len(items)-1] += " " + t
			continue
		}
		items = append(items, t)
		open = inParagraph
	}
	if len(block) > 0 { // an unclosed fence still carries its lines
		items = append(items, strings.Join(block, "\n"))
	}
	return items
}

// runbookEntry splits a runbook item such as "test: npm test",
// "`lint`: `npm run lint`" or "**build:** make" into a name and a
// command. Names are short labels (letters, digits, space, _ . / -), so a
// URL or a sentence with a colon late in it is not taken for an entry.
func runbookEntry(item string) (name, cmd string, ok bool) {
	if strings.Contains(item, "\n") {
		return "", "", false
	}
	i := strings.IndexByte(item, ':')
	if i <= 0 {
		return "", "", false
	}
	name = strings.Trim(strings.TrimSpace(item[:i]), "*`")
	cmd = strings.TrimSpace(strings.TrimLeft(item[i+1:], "*"))
	if len(cmd) >= 2 && cmd[0] == '`' && cmd[len(cmd)-1] == '`' && strings.Count(cmd, "`") == 2 {
		cmd = cmd[1 : len(cmd)-1]
	}
	if cmd == "" || strings.HasPrefix(cmd, "//") || !runbookName(name) {
		return "", "", false
	}
	return name, cmd, true
}

func runbookName(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune(" _./-", rune(c))) {
			return false
		}
	}
	return true
}
