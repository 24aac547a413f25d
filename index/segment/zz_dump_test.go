package segment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

func TestZZDump(t *testing.T) {
	l := os.Getenv("DUMP_LANG")
	if l == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(os.Getenv("DUMP_FILE"))
	p := sitter.NewParser()
	p.SetLanguage(specs[l].language())
	tree, _ := p.ParseCtx(t.Context(), nil, src)
	var walk func(n *sitter.Node, field string, d int)
	walk = func(n *sitter.Node, field string, d int) {
		txt := strings.ReplaceAll(n.Content(src), "\n", "⏎")
		if len(txt) > 50 {
			txt = txt[:50]
		}
		f := ""
		if field != "" {
			f = field + ": "
		}
		fmt.Printf("%s%s%s [%d] %q\n", strings.Repeat("  ", d), f, n.Type(), n.StartPoint().Row+1, txt)
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i), n.FieldNameForChild(indexOfNamed(n, i)), d+1)
		}
	}
	walk(tree.RootNode(), "", 0)
}

func indexOfNamed(n *sitter.Node, ni int) int {
	k := -1
	for i := 0; i < int(n.ChildCount()); i++ {
		if n.Child(i).IsNamed() {
			k++
			if k == ni {
				return i
			}
		}
	}
	return -1
}

func TestZZSyms(t *testing.T) {
	l := os.Getenv("DUMP_LANG")
	if l == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(os.Getenv("DUMP_FILE"))
	p := NewParsers()
	res := File(t.Context(), p, l, "source", src)
	for _, s := range res.Symbols {
		fmt.Printf("%-12s %-30s %d-%d %q\n", s.Kind, strings.Join(append(append([]string{}, s.Parents...), s.Name), "."), s.StartLine, s.EndLine, s.Signature)
	}
}

func BenchmarkZZSegmentGo(b *testing.B) {
	var srcs [][]byte
	for _, dir := range []string{"net/http", "go/types", "syscall", "runtime"} {
		ents, _ := os.ReadDir("/tmp/symbols-goroot-after/" + dir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".go") {
				s, _ := os.ReadFile("/tmp/symbols-goroot-after/" + dir + "/" + e.Name())
				srcs = append(srcs, s)
			}
		}
	}
	for _, off := range []bool{true, false} {
		b.Run(fmt.Sprintf("members=%v", !off), func(b *testing.B) {
			saved := specs["go"].members
			if off {
				specs["go"].members = nil
			}
			defer func() { specs["go"].members = saved }()
			p := NewParsers()
			n := 0
			for b.Loop() {
				for _, s := range srcs {
					n += len(File(b.Context(), p, "go", "source", s).Symbols)
				}
			}
			b.ReportMetric(float64(n)/float64(b.N), "syms/op")
		})
	}
}

func TestZZDupKeys(t *testing.T) {
	root := os.Getenv("DUP_ROOT")
	if root == "" {
		t.Skip()
	}
	p := NewParsers()
	n, dups := 0, 0
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, _ := os.ReadFile(path)
		res := File(t.Context(), p, "go", "code", src)
		seen := map[string]string{}
		for _, s := range res.Symbols {
			n++
			k := strings.ToLower(s.Name) + fmt.Sprint(s.StartByte)
			if prev, ok := seen[k]; ok {
				dups++
				if dups < 10 {
					fmt.Println(path, s.Name, s.StartLine, prev, strings.Join(s.Parents, "."))
				}
			}
			seen[k] = strings.Join(s.Parents, ".") + "." + s.Name
		}
		return nil
	})
	fmt.Println("symbols", n, "dup keys", dups)
}
