package segment

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// markdown splits a document at H1-H3 headings (H4 and deeper stay inside
// their section). Fenced code is never mistaken for headings. A heading with
// no body of its own joins the section that follows it. Each section carries
// up to ProseOverlap tokens of the previous section as search context; a
// section over MaxTokens is cut into windows that overlap by ProseOverlap.
func markdown(src []byte) []Segment {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	ls := newLines(src)
	type head struct {
		off, level int
		title      string
	}
	var heads []head
	fence := ""
	for i, off := range ls {
		end := len(src)
		if i+1 < len(ls) {
			end = ls[i+1]
		}
		line := strings.TrimRight(string(src[off:end]), "\r\n")
		trim := strings.TrimLeft(line, " ")
		if len(line)-len(trim) <= 3 {
			if f := fenceMarker(trim); f != "" {
				switch {
				case fence == "":
					fence = f
				case strings.HasPrefix(trim, fence) && strings.TrimSpace(strings.TrimLeft(trim, fence[:1])) == "":
					fence = ""
				}
				continue
			}
		}
		if fence != "" || !strings.HasPrefix(line, "#") {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level > 3 || (len(line) > level && line[level] != ' ' && line[level] != '\t') {
			continue
		}
		title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
		heads = append(heads, head{off, level, title})
	}
	type sec struct {
		start, end int
		title      string
		parents    []string
		key        string
	}
	var secs []sec
	if len(heads) == 0 || heads[0].off > 0 {
		end := len(src)
		if len(heads) > 0 {
			end = heads[0].off
		}
		if len(bytes.TrimSpace(src[:end])) > 0 {
			secs = append(secs, sec{start: 0, end: end, key: "preamble"})
		}
	}
	var stack []head
	for i, h := range heads {
		end := len(src)
		if i+1 < len(heads) {
			end = heads[i+1].off
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		var parents, slugs []string
		for _, p := range stack {
			parents = append(parents, p.title)
			slugs = append(slugs, slug(p.title))
		}
		stack = append(stack, h)
		slugs = append(slugs, slug(h.title))
		secs = append(secs, sec{start: h.off, end: end, title: h.title, parents: parents, key: strings.Join(slugs, "/")})
	}
	// A heading with nothing under it joins the next section.
	for i := 0; i+1 < len(secs); i++ {
		body := src[secs[i].start:secs[i].end]
		if nl := bytes.IndexByte(body, '\n'); nl >= 0 && secs[i].title != "" {
			body = body[nl+1:]
		} else if secs[i].title != "" {
			body = nil
		}
		if len(bytes.TrimSpace(body)) == 0 {
			secs[i+1].start = secs[i].start
			secs = append(secs[:i], secs[i+1:]...)
			i--
		}
	}
	var out []Segment
	prevStart := 0
	for _, s := range secs {
		seg := span(src, ls, Section, s.start, s.end)
		seg.Name, seg.Parents, seg.Key = s.title, s.parents, s.key
		if s.start > 0 {
			// The context is the tail of the previous section only,
			// starting at a line boundary.
			from := max(s.start-ProseOverlap*4, prevStart)
			if nl := bytes.IndexByte(src[from:s.start], '\n'); from > 0 && src[from-1] != '\n' && nl >= 0 {
				from += nl + 1
			}
			seg.Context = string(src[from:s.start])
		}
		prevStart = s.start
		out = emitSplit(out, src, ls, seg, ProseOverlap)
	}
	return out
}

func fenceMarker(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			n := len(line) - len(strings.TrimLeft(line, f[:1]))
			return line[:n]
		}
	}
	return ""
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// slug turns a heading or key into a lower-case section key segment.
func slug(s string) string {
	s = strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "untitled"
	}
	return s
}

// keyed is one key's span in a config file.
type keyed struct {
	start, end int
	name       string
}

// emitKeys turns key spans into segments: tiny neighbours merge until they
// reach MinTokens, big ones are split by split (when given) or by lines.
// Keys for which always holds are split whatever their size, into one
// segment per child key (an OpenAPI path is one endpoint, never merged).
func emitKeys(src []byte, ls lines, keys []keyed, prefix []string, split func(k keyed) []keyed, always func(k keyed) bool, single bool) []Segment {
	var out []Segment
	var group []keyed
	flush := func() {
		if len(group) == 0 {
			return
		}
		names := make([]string, len(group))
		for i, g := range group {
			names[i] = g.name
		}
		seg := span(src, ls, ConfigKey, group[0].start, group[len(group)-1].end)
		seg.Name = strings.Join(names, ", ")
		seg.Parents = prefix
		seg.Key = keyPath(prefix, strings.Join(names, "+"))
		out = emitSplit(out, src, ls, seg, 0)
		group = nil
	}
	for _, k := range keys {
		size := EstimateTokens(k.end - k.start)
		isAlways := always != nil && always(k)
		if split != nil && (size > MaxTokens || isAlways) {
			if subs := split(k); len(subs) > 1 {
				flush()
				out = append(out, emitKeys(src, ls, subs, append(append([]string(nil), prefix...), k.name), split, nil, isAlways)...)
				continue
			}
		}
		if size >= MinTokens || single {
			flush()
			group = []keyed{k}
			flush()
			continue
		}
		if len(group) > 0 && EstimateTokens(k.end-group[0].start) > MinTokens {
			flush()
		}
		group = append(group, k)
	}
	flush()
	return out
}

func keyPath(prefix []string, name string) string {
	parts := make([]string, 0, len(prefix)+1)
	for _, p := range prefix {
		parts = append(parts, slug(p))
	}
	return strings.Join(append(parts, slug(name)), ".")
}

// jsonKeys chunks a JSON object by key; anything else becomes windows.
// OpenAPI documents always get one chunk per path.
func jsonKeys(src []byte, openAPI bool) []Segment {
	keys, ok := jsonObjectKeys(src, 0, len(src))
	if !ok {
		return windows(src, 0)
	}
	split := func(k keyed) []keyed {
		// The value starts after the colon that follows the quoted key
		// (which may itself contain ':').
		i := k.start + 1
		for i < k.end && src[i] != '"' {
			if src[i] == '\\' {
				i++
			}
			i++
		}
		colon := bytes.IndexByte(src[min(i, k.end):k.end], ':')
		if colon < 0 {
			return nil
		}
		subs, ok := jsonObjectKeys(src, i+colon+1, k.end)
		if !ok {
			return nil
		}
		return subs
	}
	always := func(k keyed) bool { return openAPI && k.name == "paths" }
	return emitKeys(src, newLines(src), keys, nil, split, always, false)
}

// jsonObjectKeys finds the keys of the object in src[from:to]; each span
// runs from the key's quote to the end of its value.
func jsonObjectKeys(src []byte, from, to int) ([]keyed, bool) {
	dec := json.NewDecoder(bytes.NewReader(src[from:to]))
	tok, err := dec.Token()
	if d, isDelim := tok.(json.Delim); err != nil || !isDelim || d != '{' {
		return nil, false
	}
	var keys []keyed
	for dec.More() {
		before := int(dec.InputOffset())
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := t.(string)
		start := before
		for start < to-from && src[from+start] != '"' {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		keys = append(keys, keyed{start: from + start, end: from + int(dec.InputOffset()), name: name})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return keys, len(keys) > 0
}

var (
	yamlTopKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:"[^"]*"|'[^']*'|[^\s#\-"'][^:#]*?)\s*:(?:\s|$)`) })
	tomlKey    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:\[\[?[^\]]+\]\]?|[A-Za-z0-9_"'.\-]+\s*=)`) })
)

// lineKeys finds keys that start lines at indentation indent in src[from:to];
// comment lines directly above a key belong to it.
func lineKeys(src []byte, ls lines, from, to, indent int, isKey func(line string) (string, bool)) []keyed {
	var keys []keyed
	commentStart := -1
	for i, off := range ls {
		if off < from || off >= to {
			continue
		}
		end := to
		if i+1 < len(ls) && ls[i+1] < to {
			end = ls[i+1]
		}
		line := strings.TrimRight(string(src[off:end]), "\r\n")
		body := strings.TrimLeft(line, " ")
		if strings.TrimSpace(line) == "" {
			commentStart = -1
			continue
		}
		if len(line)-len(body) != indent {
			if len(line)-len(body) < indent {
				commentStart = -1
			}
			continue
		}
		if strings.HasPrefix(body, "#") {
			if commentStart < 0 {
				commentStart = off
			}
			continue
		}
		if name, ok := isKey(body); ok {
			start := off
			if commentStart >= 0 {
				start = commentStart
			}
			if len(keys) > 0 {
				keys[len(keys)-1].end = start
			}
			keys = append(keys, keyed{start: start, end: to, name: name})
		}
		commentStart = -1
	}
	if len(keys) > 0 && keys[0].start > from && len(bytes.TrimSpace(src[from:keys[0].start])) > 0 && indent == 0 {
		keys = append([]keyed{{start: from, end: keys[0].start, name: "header"}}, keys...)
	}
	return keys
}

func yamlKeyName(line string) (string, bool) {
	m := yamlTopKey().FindString(line)
	if m == "" || strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...") {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m), ":")), `"'`), true
}

// yamlKeys chunks YAML by top-level key, splitting big keys by their child
// keys; OpenAPI documents always get one chunk per path.
func yamlKeys(src []byte, openAPI bool) []Segment {
	ls := newLines(src)
	keys := lineKeys(src, ls, 0, len(src), 0, yamlKeyName)
	if len(keys) == 0 {
		return windows(src, 0)
	}
	split := func(k keyed) []keyed {
		// The key line follows the comments above it; child keys sit at
		// the first indentation found under the key line.
		head := k.start
		for bytes.HasPrefix(bytes.TrimLeft(src[head:k.end], " "), []byte("#")) {
			nl := bytes.IndexByte(src[head:k.end], '\n')
			if nl < 0 {
				return nil
			}
			head += nl + 1
		}
		first := bytes.IndexByte(src[head:k.end], '\n')
		if first < 0 {
			return nil
		}
		rest := src[head+first+1 : k.end]
		indent := -1
		for _, l := range bytes.Split(rest, []byte("\n")) {
			t := bytes.TrimLeft(l, " ")
			if len(bytes.TrimSpace(l)) > 0 && !bytes.HasPrefix(t, []byte("#")) {
				indent = len(l) - len(t)
				break
			}
		}
		if indent <= 0 {
			return nil
		}
		return lineKeys(src, ls, head+first+1, k.end, indent, yamlKeyName)
	}
	always := func(k keyed) bool { return openAPI && k.name == "paths" }
	return emitKeys(src, ls, keys, nil, split, always, false)
}

// tomlKeys chunks TOML by table header and top-level key.
func tomlKeys(src []byte) []Segment {
	ls := newLines(src)
	inTable := false
	keys := lineKeys(src, ls, 0, len(src), 0, func(line string) (string, bool) {
		m := tomlKey().FindString(line)
		if m == "" {
			return "", false
		}
		if strings.HasPrefix(m, "[") {
			inTable = true
		} else if inTable {
			// TOML keys are not indented: a key after a table header
			// belongs to that table.
			return "", false
		}
		return strings.Trim(strings.TrimSpace(strings.TrimSuffix(m, "=")), `[]"'`), true
	})
	if len(keys) == 0 {
		return windows(src, 0)
	}
	return emitKeys(src, ls, keys, nil, nil, nil, false)
}
