package assemble

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// The context pack writes its block-style YAML itself instead of handing a
// yaml.Node tree to yaml.v3's encoder, for two reasons found by
// round-tripping code through it: the encoder drops a leading newline of a
// literal block ("\n\nx" comes back as "\nx"), and it writes a literal
// block whose first line starts with a tab without the indentation
// indicator that its own parser then needs. Go code starts with a tab more
// often than not. Writing the pieces here also gives every evidence entry
// and history message a text of its own to count. yaml.v3 still decides
// how a one-line scalar is quoted, since YAML's resolution rules (null,
// true, 012, 1e3, "- x") live there.

// yamlPad is the indentation of a line at column n.
func yamlPad(n int) string { return strings.Repeat(" ", n) }

// yamlScalar renders s as the value that follows "key:" or "-" on a line
// whose key or dash is at column indent: a space and a one-line scalar, or
// a literal block whose lines sit at indent+2. The result ends with a
// newline. Text a literal block cannot carry exactly is double-quoted.
func yamlScalar(s string, indent int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.Contains(s, "\n") {
		return " " + yamlInline(s) + "\n"
	}
	if literalSafe(s) {
		return literalBlock(s, indent)
	}
	return " " + strconv.Quote(s) + "\n"
}

// yamlInline renders a one-line string as a flow scalar: plain when YAML
// reads it back as the same string, quoted otherwise.
func yamlInline(s string) string {
	out, ok := yamlEncode(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s})
	if !ok || strings.HasPrefix(out, `"`) {
		// Go's quoting is valid YAML double-quoted text and keeps
		// printable non-ASCII (✕, 😀) readable where yaml.v3 escapes it.
		return strconv.Quote(s)
	}
	return out
}

// yamlFlowSeq renders short lists (tags, modified files, dropped ids) on
// one line: "[a, b]".
func yamlFlowSeq(items []string) string {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, it := range items {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.ToValidUTF8(it, "\uFFFD")})
	}
	out, ok := yamlEncode(seq)
	if !ok {
		quoted := make([]string, len(items))
		for i, it := range items {
			quoted[i] = strconv.Quote(strings.ToValidUTF8(it, "\uFFFD"))
		}
		return "[" + strings.Join(quoted, ", ") + "]"
	}
	return out
}

// yamlFlowMap renders a short mapping on one line: "{file: a.go, id: x}".
// A value the flow style cannot hold on one line is Go-quoted, which YAML
// reads as a double-quoted scalar.
func yamlFlowMap(pairs [][2]string) string {
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for _, kv := range pairs {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.ToValidUTF8(kv[1], "\uFFFD")})
	}
	if out, ok := yamlEncode(m); ok {
		return out
	}
	parts := make([]string, len(pairs))
	for i, kv := range pairs {
		parts[i] = kv[0] + ": " + strconv.Quote(strings.ToValidUTF8(kv[1], "\uFFFD"))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// yamlEncode encodes one node as a one-line document, without its final
// newline; ok is false when the encoder fails or needs more than a line.
func yamlEncode(n *yaml.Node) (string, bool) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		return "", false
	}
	if err := enc.Close(); err != nil {
		return "", false
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if out == "" || strings.Contains(out, "\n") {
		return "", false
	}
	return out, true
}

// literalSafe reports whether s reads back exactly from a literal block:
// it holds something besides line feeds, and no character YAML would
// normalise or reject (CR, NEL, the Unicode line separators, a BOM,
// control and other non-printing characters).
func literalSafe(s string) bool {
	if strings.Trim(s, "\n") == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == '\uFEFF' || !unicode.IsPrint(r):
			// IsPrint already excludes CR, NEL, U+2028 and U+2029.
			return false
		}
	}
	return true
}

// literalBlock writes s as "|" with its chomping indicator, and with an
// explicit indentation indicator when the first line starts with a blank
// or a space or tab, which a reader would otherwise take for indentation.
func literalBlock(s string, indent int) string {
	body := strings.TrimRight(s, "\n")
	trailing := len(s) - len(body)
	var b strings.Builder
	b.Grow(len(s) + (strings.Count(s, "\n")+1)*(indent+2) + 8)
	b.WriteString(" |")
	if c := s[0]; c == ' ' || c == '\t' || c == '\n' {
		b.WriteString("2") // relative to the key's or the dash's column
	}
	switch trailing {
	case 0:
		b.WriteString("-")
	case 1:
	default:
		b.WriteString("+")
	}
	b.WriteString("\n")
	pad := yamlPad(indent + 2)
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" {
			b.WriteString(pad)
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	for range trailing - 1 {
		b.WriteString("\n")
	}
	return b.String()
}

// yamlField writes "key: value" with the key at column indent.
func yamlField(b *strings.Builder, indent int, key, value string) {
	b.WriteString(yamlPad(indent))
	b.WriteString(key)
	b.WriteString(":")
	b.WriteString(yamlScalar(value, indent))
}

// yamlRaw writes "key: value" with value already YAML (a number, a flow
// list).
func yamlRaw(b *strings.Builder, indent int, key, value string) {
	b.WriteString(yamlPad(indent))
	b.WriteString(key)
	b.WriteString(": ")
	b.WriteString(value)
	b.WriteString("\n")
}

// yamlKey writes "key:" opening a nested block.
func yamlKey(b *strings.Builder, indent int, key string) {
	b.WriteString(yamlPad(indent))
	b.WriteString(key)
	b.WriteString(":\n")
}

// yamlList writes key and its items as a block sequence; nothing when
// there are no items.
func yamlList(b *strings.Builder, indent int, key string, items []string) {
	if len(items) == 0 {
		return
	}
	yamlKey(b, indent, key)
	for _, it := range items {
		b.WriteString(yamlPad(indent + 2))
		b.WriteString("-")
		b.WriteString(yamlScalar(it, indent+2))
	}
}

// yamlMapItem renders a mapping as a block sequence entry whose dash is at
// column indent: the mapping is written with its keys at indent+2 and the
// dash replaces the first key's indentation.
func yamlMapItem(indent int, write func(b *strings.Builder, indent int)) string {
	var b strings.Builder
	write(&b, indent+2)
	s := b.String()
	if len(s) < indent+2 {
		return yamlPad(indent) + "- {}\n"
	}
	return s[:indent] + "- " + s[indent+2:]
}
