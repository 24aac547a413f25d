package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/ui/termsafe"
)

type relatedOptions struct {
	*globals
	json  bool
	limit int
}

func newRelatedCmd(g *globals) *cobra.Command {
	o := &relatedOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "related PATH[::RANGE] | route:NAME|URI|\"METHOD URI\" | table:NAME | model:Name | controller:Name[@method]",
		Short: "Print a file's imports, importers, tests, callees and callers",
		Long: "Print the dependency expansion of a file, a range of it or a symbol in it: its imports\n" +
			"resolved to workspace files, the files importing it, its tests, the definitions it calls\n" +
			"and the chunks that call it.\n\n" +
			"PATH is relative to the workspace root (or the current directory, or absolute).\n" +
			"RANGE: ::100,200 lines 100-200, ::100 line 100 to the end, ::100c,500c bytes,\n" +
			"::@Name the chunks of a function, method or type (::@Type.Method for one method).\n\n" +
			"Calls are resolved by each language's scoping rules, not by name: a tree-sitter parse\n" +
			"gives each call how its name is reached (imports and aliases, the same package or\n" +
			"module, a receiver, field or variable of a declared type, this/self), and a call on a\n" +
			"value whose type the syntax does not show is left out rather than guessed. Where a\n" +
			"language has a global namespace (C/C++ without the header, Ruby, Bash, PHP functions),\n" +
			"a unique global name may be used: such lines end with \"(guess: by name)\". A Go function\n" +
			"defined once per platform (x_windows.go, //go:build lines) is listed once per variant the\n" +
			"caller can be built with, each line ending with \"[build: CONSTRAINT]\".\n\n" +
			"In a Laravel, Django, Express or Next.js application, graph targets walk the application:\nroute:NAME, route:URI or " +
			"\"route:METHOD URI\" -> controller method -> models it uses -> tables; table:NAME -> the\n" +
			"migrations that create or alter it (in order) -> its model -> related models;\n" +
			"model:Name -> relations, table, controllers that use it; controller:Name[@method] ->\n" +
			"routes, models, tables. --json gives every node with its type, path and lines.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: related takes one PATH[::RANGE], got %d arguments", errUsage, len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, _, err := o.workspace()
			if err != nil {
				return err
			}
			if o.limit <= 0 {
				return fmt.Errorf("%w: --limit %d: give a positive number of results per list", errUsage, o.limit)
			}
			if appgraph.IsTarget(args[0]) {
				return relatedGraph(cmd, root, args[0], o.json)
			}
			t, err := related.ParseTarget(args[0])
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			if t.Path, err = workspacePath(root, t.Path); err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			x, err := expand(cmd.Context(), root, t, o.limit)
			if err != nil {
				return err
			}
			if o.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(x)
			}
			printExpansion(cmd.OutOrStdout(), t, x)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object")
	cmd.Flags().IntVar(&o.limit, "limit", related.DefaultLimit, "results per list")
	return cmd
}

// expand is related.ExpandRoot with a limit.
func expand(ctx context.Context, root string, t related.Target, limit int) (*related.Expansion, error) {
	return related.ExpandRoot(ctx, root, t, related.Options{Limit: limit})
}

// workspacePath turns a command-line path into the index's form: slash
// separated and relative to root. A relative path is taken from the root
// when the file is there, else from the current directory.
func workspacePath(root, p string) (string, error) {
	if !filepath.IsAbs(p) {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			// Found from the root, but ../ may lead out of it: checked below.
			return insideRoot(root, filepath.Join(root, p))
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return path.Clean(filepath.ToSlash(p)), nil // reported as missing later
		}
		p = abs
	}
	return insideRoot(root, p)
}

// insideRoot is the absolute path p relative to root, slash separated; a
// path outside root is an error that says so.
func insideRoot(root, p string) (string, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the workspace root %s: pass --root or a path inside it", p, root)
	}
	return filepath.ToSlash(rel), nil
}

// printExpansion writes the human form: one section per list, each entry
// as path:line  symbol  (kind).
func printExpansion(w io.Writer, t related.Target, x *related.Expansion) {
	s := x.Target
	what := "whole file"
	if !s.WholeFile {
		what = fmt.Sprintf("lines %d-%d, %d chunk%s", s.StartLine, s.EndLine, len(s.Chunks), plural(len(s.Chunks)))
	}
	fmt.Fprintf(w, "%s  (%s, %s)\n", t, s.Language, what)
	section := func(title string, n int, list string) {
		head := fmt.Sprintf("\n%s (%d", title, n)
		if more := x.Omitted[list]; more > 0 {
			head += fmt.Sprintf(" of %d", n+more)
		}
		fmt.Fprintln(w, head+")")
		if n == 0 {
			fmt.Fprintln(w, "  none")
		}
	}
	section("Imports", len(x.Imports), "imports")
	for _, imp := range x.Imports {
		to := "external"
		switch {
		case imp.Dir != "":
			to = fmt.Sprintf("%s/ (%d file%s)", imp.Dir, len(imp.Paths), plural(len(imp.Paths)))
		case len(imp.Paths) > 0:
			to = strings.Join(imp.Paths, ", ")
		}
		fmt.Fprintf(w, "  %s:%d  %s  -> %s\n", termsafe.Line(s.Path), imp.Line, imp.Spec, to)
	}
	section("Importers", len(x.Importers), "importers")
	for _, r := range x.Importers {
		fmt.Fprintf(w, "  %s:%d  imports %s\n", termsafe.Line(r.Path), r.Line, r.Name)
	}
	section("Tests", len(x.Tests), "tests")
	for _, r := range x.Tests {
		fmt.Fprintf(w, "  %s  (%s)\n", termsafe.Line(r.Path), r.Role)
	}
	section("Callees", len(x.Callees), "callees")
	for _, r := range x.Callees {
		fmt.Fprintf(w, "  %s:%d  %s  (%s)  <- line %d%s%s\n", termsafe.Line(r.Path), r.Line, r.Symbol, r.Kind, r.CallLine, guessMark(r), buildMark(r))
	}
	if len(x.Constructs) > 0 {
		section("Constructs (literals and conversions, not calls)", len(x.Constructs), "constructs")
		for _, r := range x.Constructs {
			fmt.Fprintf(w, "  %s:%d  %s  (%s)  <- line %d\n", termsafe.Line(r.Path), r.Line, r.Symbol, r.Kind, r.CallLine)
		}
	}
	section("Callers", len(x.Callers), "callers")
	for _, r := range x.Callers {
		sym := r.Symbol
		if sym == "" {
			sym = "(top level)"
		}
		fmt.Fprintf(w, "  %s:%d  %s  (%s)  calls %s%s%s\n", termsafe.Line(r.Path), r.Line, sym, r.Kind, r.Name, guessMark(r), buildMark(r))
		fmt.Fprintf(w, "      %s\n", r.Text)
	}
	for _, n := range x.Notes {
		fmt.Fprintln(w, "\nnote:", n)
	}
}

// guessMark ends the line of a callee or caller that only a unique global
// name resolved.
func guessMark(r related.Ref) string {
	if r.Guess {
		return "  (guess: by name)"
	}
	return ""
}

// buildMark ends the line of a callee or caller in a Go file built for
// some platforms only (one variant of a function defined per platform).
func buildMark(r related.Ref) string {
	if r.Build != "" {
		return "  [build: " + termsafe.Line(r.Build) + "]"
	}
	return ""
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// relatedGraph walks a graph target and prints its nodes.
func relatedGraph(cmd *cobra.Command, root, target string, asJSON bool) error {
	nodes, err := appgraph.WalkRoot(cmd.Context(), root, target)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Target string          `json:"target"`
			Nodes  []appgraph.Node `json:"nodes"`
		}{target, nodes})
	}
	fmt.Fprintf(out, "%s  (%d node%s)\n", termsafe.Line(target), len(nodes), plural(len(nodes)))
	for _, n := range nodes {
		loc := "-"
		if n.Path != "" {
			loc = fmt.Sprintf("%s:%d-%d", termsafe.Line(n.Path), n.StartLine, n.EndLine)
		}
		fmt.Fprintf(out, "  %-17s %s  %s\n", n.Type, termsafe.Line(n.Name), loc)
		if n.Via != "" || n.Detail != "" {
			fmt.Fprintf(out, "      %s\n", termsafe.Line(strings.TrimSpace(n.Via+"  "+n.Detail)))
		}
	}
	return nil
}
