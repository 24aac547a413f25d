package xref

import (
	"fmt"
	"os"
	"testing"
)

func TestDebugDump(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("XREF_FILE"))
	f, err := Parse("go", src)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("pkg", f.Package, f.Imports)
	for i, d := range f.Defs {
		fmt.Printf("def %d %s %s in=%s type=%s bases=%v\n", i, d.Kind, d.Name, d.Container, d.Type, d.Bases)
	}
	for _, r := range f.Refs {
		fmt.Printf("ref %s call=%v via=%s qual=%s chain=%v in=%d line=%d\n", r.Name, r.Call, r.Via, r.Qual, r.Chain, r.In, 1+countNL(src[:r.Start]))
	}
}

func countNL(b []byte) int { n := 0; for _, c := range b { if c == '\n' { n++ } }; return n }
