package jsapp_test

import (
	"context"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/grammar"
	"github.com/dossierhq/dossier/index/jsapp"
	"github.com/dossierhq/dossier/index/lang"
)

// FuzzExtract runs both extractors on any source, parsed as TypeScript,
// under app/ and pages/ paths: they never panic, and every span they give
// lies in the source.
func FuzzExtract(f *testing.F) {
	for _, s := range malformed {
		f.Add(s)
	}
	f.Add("const r = require('express').Router();\nr.route('/a').get(h).post(x.y);\nmodule.exports = r;\n")
	f.Add("export async function GET(req) {}\nexport { h as POST };\nexport default function Page() {}\n")
	p := sitter.NewParser()
	p.SetLanguage(grammar.Of(lang.TypeScript))
	f.Fuzz(func(t *testing.T, src string) {
		tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
		if err != nil {
			return
		}
		defer tree.Close()
		for _, rel := range []string{"src/routes/x.ts", "app/api/[id]/route.ts", "app/(g)/page.tsx", "pages/api/x.ts"} {
			for _, fs := range []*jsappFacts{{jsapp.ExtractExpress(tree.RootNode(), []byte(src), rel)}, {jsapp.ExtractNext(tree.RootNode(), []byte(src), rel, ".")}} {
				fs.check(t, len(src))
			}
		}
	})
}

type jsappFacts struct{ f *appgraph.Facts }

func (j *jsappFacts) check(t *testing.T, n int) {
	t.Helper()
	var spans []appgraph.Span
	for _, r := range j.f.Routes {
		spans = append(spans, r.Span)
	}
	for _, c := range j.f.Classes {
		spans = append(spans, c.Span)
		for _, m := range c.Methods {
			spans = append(spans, m.Span)
		}
	}
	for _, s := range spans {
		if s.StartByte < 0 || s.EndByte > n || s.StartByte > s.EndByte || s.StartLine > s.EndLine {
			t.Fatalf("span %+v outside a source of %d bytes", s, n)
		}
	}
}
