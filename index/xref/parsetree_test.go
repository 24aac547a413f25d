package xref

import (
	"context"
	"reflect"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/grammar"
	"github.com/dossierhq/dossier/index/lang"
)

// TestParseTreeReadsTheGivenTree: the indexer hands xref the chunker's
// tree rather than parsing each file twice; what it reads from that tree
// is what Parse reads from its own, in every language, and the given
// tree is left open for its owner.
func TestParseTreeReadsTheGivenTree(t *testing.T) {
	cases := map[string]string{
		lang.Go:         "package p\n\nimport \"strings\"\n\nfunc A(s string) string { return B(strings.TrimSpace(s)) }\n\nfunc B(s string) string { return s }\n",
		lang.Python:     "import os\n\ndef a(x):\n    return b(os.path.join(x))\n\ndef b(y):\n    return y\n",
		lang.JavaScript: "import { c } from './c'\nexport function a(x) { return b(c(x)) }\nfunction b(y) { return y }\n",
		lang.TypeScript: "import { c } from './c'\nexport function a(x: string): string { return b(c(x)) }\nfunction b(y: string) { return y }\n",
		lang.Java:       "package p;\nclass A {\n  int a(int x) { return b(x, \"s\"); }\n  int b(int y, String s) { return y; }\n}\n",
		lang.Rust:       "fn a(x: u32) -> u32 { b(x) }\nfn b(y: u32) -> u32 { y }\n",
		lang.C:          "int b(int y) { return y; }\nint a(int x) { return b(x); }\n",
		lang.CPP:        "struct S { int b(int y) { return y; } };\nint a(S s) { return s.b(1); }\n",
		lang.CSharp:     "class A { int B(int y) { return y; } int C() { return B(1); } }\n",
		lang.PHP:        "<?php\nfunction b($y) { return $y; }\nfunction a($x) { return b($x); }\n",
		lang.Ruby:       "def b(y)\n  y\nend\n\ndef a(x)\n  b(x)\nend\n",
		lang.Bash:       "b() { echo \"$1\"; }\na() { b \"$1\"; }\n",
	}
	for language, src := range cases {
		if !Supported(language) {
			t.Fatalf("%s: no extractor", language)
		}
		want, err := Parse(language, []byte(src))
		if err != nil {
			t.Fatalf("%s: Parse: %v", language, err)
		}
		if len(want.Refs) == 0 {
			t.Fatalf("%s: the case makes no reference: it proves nothing", language)
		}
		p := sitter.NewParser()
		p.SetLanguage(grammar.Of(language))
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseTree(language, tree.RootNode(), []byte(src))
		if err != nil {
			t.Fatalf("%s: ParseTree: %v", language, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ParseTree read\n%+v\nParse read\n%+v", language, got, want)
		}
		if tree.RootNode().ChildCount() == 0 { // still open: its owner closes it
			t.Errorf("%s: the given tree was spoiled", language)
		}
		tree.Close()
		p.Close()
	}
}
