package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// counted are, per ctags language, the kinds that are functions, methods
// and types (ctags --list-kinds-full=LANG). Interface and trait method
// signatures count: the index lists body-less methods in their type's
// outline.
var counted = map[string]map[string]bool{
	"Go":         set("func", "methodSpec", "type", "struct", "interface", "talias"),
	"Python":     set("function", "member", "class"),
	"TypeScript": set("function", "generator", "method", "class", "interface", "enum", "alias"),
	"JavaScript": set("function", "generator", "method", "getter", "setter", "class"),
	"Rust":       set("function", "method", "struct", "enum", "interface", "typedef"),
	"Java":       set("method", "class", "interface", "enum", "annotation"),
	"C":          set("function", "struct", "union", "enum", "typedef"),
	"C++":        set("function", "class", "struct", "union", "enum", "typedef"),
	"C#":         set("method", "class", "interface", "struct", "enum"),
	"PHP":        set("function", "class", "interface", "trait"),
	"Ruby":       set("method", "singletonMethod", "class", "module"),
	"Sh":         set("function"),
}

func set(ks ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range ks {
		m[k] = true
	}
	return m
}

func languages() []string {
	var ls []string
	for l := range counted {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return ls
}

// tag is one line of ctags' JSON output.
type tag struct {
	Type      string `json:"_type"`
	Name      string `json:"name"`
	Path      string `json:"path"`
	Pattern   string `json:"pattern"`
	Line      int    `json:"line"`
	Kind      string `json:"kind"`
	Scope     string `json:"scope"`
	ScopeKind string `json:"scopeKind"`
}

// runCtags runs ctags over root for one language and returns its tags and
// its version line.
func runCtags(root, language string) ([]tag, string, error) {
	ver, err := exec.Command("ctags", "--version").Output()
	if err != nil {
		return nil, "", fmt.Errorf("ctags --version: %w (install Universal Ctags: apt-get install universal-ctags)", err)
	}
	version, _, _ := strings.Cut(string(ver), ",")
	if !strings.HasPrefix(version, "Universal Ctags") {
		return nil, "", fmt.Errorf("ctags is %q, not Universal Ctags (apt-get install universal-ctags)", version)
	}
	cmd := exec.Command("ctags", "-R", "--languages="+language, "--exclude=.dossier", "--exclude=.git",
		"--output-format=json", "--fields=+nKZ", "-f", "-", ".")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("ctags in %s: %w: %s", root, err, strings.TrimSpace(stderr.String()))
	}
	var tags []tag
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var t tag
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, "", fmt.Errorf("ctags output %q: %w", firstBytes(sc.Text(), 80), err)
		}
		if t.Type == "tag" {
			t.Path = strings.TrimPrefix(t.Path, "./")
			tags = append(tags, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	if len(tags) == 0 {
		return nil, "", errors.New("ctags found no " + language + " tags in " + root)
	}
	return tags, strings.TrimSpace(version), nil
}

func firstBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Reasons a counted kind's tag is left out of the figure.
const (
	leftLocal    = "local definitions (in a function or method body)"
	leftArgument = "named function expressions in a call's arguments (the name binds in the function's own body only)"
	leftObject   = "ctags errors: object literals read as classes (the index has them as constants)"
	leftArray    = "ctags errors: Bash array assignments (`local -a x=()`) read as functions named `x=`"
	leftWhere    = "ctags errors: C# type parameters of a `where T : I` clause read as interfaces named T"
	leftAnon     = "names ctags makes up for anonymous functions and types (AnonymousFunction…, AnonymousClass…, __anon…)"
	leftSkipped  = "in files the index skips (.gitignore, .dossierignore, build output such as bin/ and dist/; see index -v)"
	leftAlias    = "ctags errors: lines that declare no type alias read as one (import lists, keyof, instanceof)"
)

// compare scores tags against the index's symbols.
// local gives the reason a tag is no module-level definition (see
// localTags), files are the files the index holds.
func compare(tags []tag, local map[int]string, files map[string]bool, syms map[[2]string][]span, language string) *Report {
	rep := &Report{Lang: language, ByKind: map[string][2]int{}, Left: map[string][2]int{}}
	for i, t := range tags {
		if !counted[language][t.Kind] {
			continue
		}
		found := holds(syms[[2]string{t.Path, unspaced(t.Name)}], t.Line)
		var why string
		switch {
		case !files[t.Path]:
			why = leftSkipped
		case strings.HasPrefix(t.Name, "AnonymousFunction") || strings.HasPrefix(t.Name, "AnonymousClass") ||
			strings.HasPrefix(t.Name, "__anon"):
			why = leftAnon
		case language == "Sh" && strings.HasSuffix(t.Name, "="):
			why = leftArray
		case language == "C#" && strings.Contains(t.Pattern, "where "+t.Name+" "):
			why = leftWhere
		case local[i] != "":
			why = local[i]
		case (language == "JavaScript" || language == "TypeScript") && t.Kind == "class" &&
			(strings.Contains(t.Pattern, t.Name+": {") || strings.Contains(t.Pattern, t.Name+" = {")):
			// ctags reads an object literal (`env: {`, `const BODY = {`) as a class.
			why = leftObject
		case t.Kind == "alias" && !aliasLine(t.Pattern, t.Name):
			// ctags 5.9 reads the names of an import or export list
			// (`import {\n type A,\n B } from`, `type A as B,`) and words
			// after `keyof` or `instanceof` as type aliases.
			why = leftAlias
		}
		if why != "" {
			rep.Left[why] = add(rep.Left[why], found)
			continue
		}
		rep.ByKind[t.Kind] = add(rep.ByKind[t.Kind], found)
		rep.Tags++
		if found {
			rep.Found++
		} else {
			scope := ""
			if t.Scope != "" {
				scope = " in " + t.ScopeKind + " " + t.Scope
			}
			rep.Misses = append(rep.Misses, fmt.Sprintf("%s:%d %s %s%s", t.Path, t.Line, t.Kind, t.Name, scope))
		}
	}
	rep.Coverage = 1
	if rep.Tags > 0 {
		rep.Coverage = float64(rep.Found) / float64(rep.Tags)
	}
	return rep
}

func add(c [2]int, found bool) [2]int {
	if found {
		c[0]++
	}
	c[1]++
	return c
}

// holds reports whether one of the spans holds line.
func holds(spans []span, line int) bool {
	for _, s := range spans {
		if s.start <= line && line <= max(s.end, s.start) {
			return true
		}
	}
	return false
}

// aliasLine reports whether pattern, ctags' copy of an alias tag's line,
// declares the type alias name: `type Name =`, `export type Name<T> =`, or
// `type Name` with the rest on the next line.
func aliasLine(pattern, name string) bool {
	p := strings.TrimSuffix(strings.TrimPrefix(pattern, "/^"), "$/")
	re := regexp.MustCompile(`^\s*(export\s+)?(declare\s+)?type\s+` + regexp.QuoteMeta(name) + `\s*(<|=|$)`)
	return re.MatchString(p)
}
