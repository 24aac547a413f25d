package xref

import (
	"strings"
	"testing"
)

// BenchmarkLongChains parses one function holding a 400-link member chain
// (x.m().m()... and x.a.a...m(), as generated code writes them) in each
// language whose extractor types receivers through chains: the value of
// each link is worked out once, so the cost grows with the chain, not with
// its square or cube.
func BenchmarkLongChains(b *testing.B) {
	const k = 400
	chain := "x" + strings.Repeat(".m()", k)
	fields := "x" + strings.Repeat(".a", k) + ".m()"
	for _, c := range []struct{ name, lang, src string }{
		{"go-calls", "go", "package p\nfunc f(x T) { " + chain + " }\n"},
		{"go-fields", "go", "package p\nfunc f(x T) { " + fields + " }\n"},
		{"ts-calls", "typescript", "function f(x: T) { " + chain + "; }\n"},
		{"py-calls", "python", "def f(x):\n    " + chain + "\n"},
		{"py-fields", "python", "def f(x):\n    " + fields + "\n"},
		{"php-calls", "php", "<?php function f($x) { $" + strings.ReplaceAll(chain, ".", "->") + "; }\n"},
		{"java-calls", "java", "class A { void g(T x) { " + chain + "; } }\n"},
		{"rust-calls", "rust", "fn g(x: T) { " + chain + "; }\n"},
		{"csharp-calls", "csharp", "class A { void g(T x) { " + chain + "; } }\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(c.lang, []byte(c.src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
