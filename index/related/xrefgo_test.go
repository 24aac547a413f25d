package related

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// tuiFiles is shaped like the Go TUI app of issue 14: models with update
// and String methods, a field chain m.stash.update(msg), a url.URL whose
// String is the standard library's, and a main package.
var tuiFiles = map[string]string{
	"go.mod": "module example.com/tui\n\ngo 1.22\n",
	"ui/pager.go": `package ui

import tea "github.com/charmbracelet/bubbletea"

type pagerModel struct{ height int }

func (m pagerModel) update(msg tea.Msg) (pagerModel, tea.Cmd) {
	return m, nil
}

// String renders the pager.
func (m pagerModel) String() string { return "pager" }
`,
	"ui/stash.go": `package ui

import tea "github.com/charmbracelet/bubbletea"

type stashModel struct{ cursor int }

func (m stashModel) update(msg tea.Msg) (stashModel, tea.Cmd) {
	return m, nil
}

func (m stashModel) String() string { return "stash" }
`,
	"ui/ui.go": `package ui

import (
	"net/url"

	tea "github.com/charmbracelet/bubbletea"
)

type model struct {
	stash stashModel
	pager pagerModel
}

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	// m.pager.update(msg) is called below, not here.
	m.stash, _ = m.stash.update(msg)
	return m, nil
}

func (m *model) updatePager(msg tea.Msg) {
	m.pager, _ = m.pager.update(msg)
}

// link prints a URL: u.String() is net/url's, not a model's.
func link(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	var base url.URL
	return u.String() + base.String()
}

func show(p *pagerModel) string { return p.String() }
`,
	"main.go": `package main

import "example.com/tui/ui"

// main starts the program; main() in a comment is not a call.
func main() {
	_ = "main()"
	run()
}

func run() { ui.Start() }
`,
	"ui/start.go": "package ui\n\n// Start runs the program.\nfunc Start() {}\n",
}

func TestGoReceiverTypes(t *testing.T) {
	db := fixtureOf(t, tuiFiles)

	x := expand(t, db, "ui/ui.go::@link")
	check(t, "link callees", calleesOf(x), nil)

	x = expand(t, db, "ui/pager.go::@pagerModel.update")
	check(t, "pagerModel.update callers", callersOf(x), []string{"ui/ui.go:21 model.updatePager (method) calls update"})
	x = expand(t, db, "ui/stash.go::@stashModel.update")
	check(t, "stashModel.update callers", callersOf(x), []string{"ui/ui.go:16 model.Update (method) calls update"})

	x = expand(t, db, "ui/pager.go::@pagerModel.String")
	check(t, "pagerModel.String callers", callersOf(x), []string{"ui/ui.go:34 show (function) calls String"})
	x = expand(t, db, "ui/stash.go::@stashModel.String")
	check(t, "stashModel.String callers", callersOf(x), nil)

	x = expand(t, db, "ui/ui.go::@model.Update")
	check(t, "Update callees", calleesOf(x), []string{"ui/stash.go:7 stashModel.update (method) <- 16"})
}

func TestGoDefinitionsCommentsPackageClause(t *testing.T) {
	db := fixtureOf(t, tuiFiles)
	x := expand(t, db, "main.go::@main")
	check(t, "main callers", callersOf(x), nil)
	check(t, "main callees", calleesOf(x), []string{"main.go:11 run (function) <- 8"})
	x = expand(t, db, "main.go::@run")
	check(t, "run callers", callersOf(x), []string{"main.go:8 main (function) calls run"})
	check(t, "run callees", calleesOf(x), []string{"ui/start.go:3 Start (function) <- 11"})
}

// TestGoBigFileCallers: both same-file callers of a helper in a file of
// 5,000 lines, far from it and from each other, are found.
func TestGoBigFileCallers(t *testing.T) {
	var b strings.Builder
	b.WriteString("package big\n\nfunc helper(n int) int { return n + 1 }\n\n")
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&b, "// f%d is filler.\nfunc f%d(x int) int {\n\ty := x * %d\n\tif y > 10 {\n\t\treturn y\n\t}\n\treturn f%d(y)\n}\n\n", i, i, i, max(i-1, 0))
		if i == 150 {
			b.WriteString("func first() int { return helper(1) }\n\n")
		}
		if i == 550 {
			b.WriteString("type server struct{}\n\nfunc (s *server) second() int {\n\treturn helper(2)\n}\n\n")
		}
	}
	text := b.String()
	if n := strings.Count(text, "\n"); n < 5000 {
		t.Fatalf("the file has %d lines", n)
	}
	db := fixtureOf(t, map[string]string{"go.mod": "module example.com/big\n", "big/big.go": text})
	x := expand(t, db, "big/big.go::@helper")
	var got []string
	for _, r := range x.Callers {
		got = append(got, r.Symbol)
	}
	check(t, "helper callers", got, []string{"first", "server.second"})
}

// TestGoCallersLimit: a list that reaches its limit stops the search, and
// what it holds is the head of the full list.
func TestGoCallersLimit(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/lim\n", "lib/lib.go": "package lib\n\n// F is called everywhere.\nfunc F() {}\n"}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("c%02d/c.go", i)] = fmt.Sprintf("package c%02d\n\nimport \"example.com/lim/lib\"\n\nfunc G() { lib.F() }\n", i)
	}
	db := fixtureOf(t, files)
	full := expand(t, db, "lib/lib.go::@F")
	if len(full.Callers) != 40 || len(full.Notes) != 0 {
		t.Fatalf("%d callers, notes %q", len(full.Callers), full.Notes)
	}
	target, _ := ParseTarget("lib/lib.go::@F")
	var x *Expansion
	err := db.View(func(tx *store.Tx) (err error) {
		x, err = Expand(tx, target, Options{Limit: 3})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "limited callers", callersOf(x), callersOf(full)[:3])
	if x.Omitted["callers"] == 0 || len(x.Notes) != 1 || !strings.Contains(x.Notes[0], "raise the limit") {
		t.Errorf("omitted %v, notes %q", x.Omitted, x.Notes)
	}
}

// TestGoCallerWithoutImport: a file calls a method through a field whose
// type it does not import (its package's other file does).
func TestGoCallerWithoutImport(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"go.mod":         "module example.com/w\n",
		"store/store.go": "package store\n\n// Tx is a transaction.\ntype Tx struct{}\n\n// Each walks.\nfunc (t *Tx) Each() {}\n",
		"rel/a.go":       "package rel\n\nimport \"example.com/w/store\"\n\ntype exp struct{ tx *store.Tx }\n",
		"rel/b.go":       "package rel\n\nfunc (e *exp) run() {\n\te.tx.Each()\n}\n",
	})
	x := expand(t, db, "store/store.go::@Tx.Each")
	check(t, "Tx.Each callers", callersOf(x), []string{"rel/b.go:4 exp.run (method) calls Each"})
}

// TestGoConstructsAreNoCalls: a composite literal and a conversion of a
// package's types run none of their code: they are listed as constructs,
// apart from the one real callee.
func TestGoConstructsAreNoCalls(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"go.mod": "module example.com/c\n",
		"ev/ev.go": `package ev

type EventType int

type sizeSpec struct{ w, h int }

func parse(s string) int { return len(s) }

func build(x int) (sizeSpec, EventType) {
	return sizeSpec{w: parse("a"), h: x}, EventType(x)
}
`,
	})
	x := expand(t, db, "ev/ev.go::@build")
	check(t, "build callees", calleesOf(x), []string{"ev/ev.go:7 parse (function) <- 10"})
	var got []string
	for _, r := range x.Constructs {
		got = append(got, fmt.Sprintf("%s:%d %s (%s) <- %d", r.Path, r.Line, r.Symbol, r.Kind, r.CallLine))
	}
	check(t, "build constructs", got, []string{"ev/ev.go:5 sizeSpec (struct) <- 10", "ev/ev.go:3 EventType (type) <- 10"})
}
