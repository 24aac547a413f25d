package segment

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/lang"
)

// described lists res's named segments and member symbols as "kind
// Parent.name start-end".
func described(res Result) (segs, syms []string) {
	line := func(kind Kind, parents []string, name string, start, end int) string {
		return fmt.Sprintf("%s %s %d-%d", kind, strings.Join(append(append([]string(nil), parents...), name), "."), start, end)
	}
	for _, s := range res.Segments {
		if s.Name != "" {
			segs = append(segs, line(s.Kind, s.Parents, s.Name, s.StartLine, s.EndLine))
		}
	}
	for _, s := range res.Symbols {
		if s.Kind == Function || s.Kind == Method || s.Kind == Struct || s.Kind == Enum {
			syms = append(syms, line(s.Kind, s.Parents, s.Name, s.StartLine, s.EndLine))
		}
	}
	return segs, syms
}

// TestRepairedParses checks the definitions a parse loses to what the
// grammar cannot read: C and C++ macros between the type and the name
// (`int CJSON_CDECL main`, a function that came out named `void`) and on
// a line of their own above a method (`CXXOPTS_NODISCARD`, a method that
// came out nameless), conversion operators (named "operator bool" as
// ctags names them), the tag of a typedef'd struct, and the functions of
// a shell script after one whose quotes tree-sitter-bash cannot pair (the
// rest of the file was one ERROR node). The shell script is still a parse
// error, at the line of the first one.
func TestRepairedParses(t *testing.T) {
	tests := []struct {
		file, language string
		segs, syms     []string
		errorLine      int
	}{
		{"nested/cdecl.c", lang.C, []string{"function main 1-5", "function helper 7-10", "struct Guard 12-15"},
			[]string{"struct GuardBytes 12-15"}, 0},
		{"nested/nodiscard.cpp", lang.CPP, []string{"class Details 1-18", "method Details.make_storage 3-8",
			"method Details.short_name 10-15", "method Details.operator bool 17-17", "method Details.operator std::string 20-20", "function version 22-27"},
			nil, 0},
		{"nested/broken.sh", lang.Bash, []string{"function first 3-5", "function append_args 7-15", "function after 17-19",
			"function last 21-23"}, nil, 8},
	}
	p := NewParsers()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, res := readFixture(t, p, tt.file, tt.language)
			segs, syms := described(res)
			if !reflect.DeepEqual(segs, tt.segs) || !reflect.DeepEqual(syms, tt.syms) {
				t.Errorf("named segments:\n got %q\nwant %q\nsymbols:\n got %q\nwant %q", segs, tt.segs, syms, tt.syms)
			}
			if res.ParseError != (tt.errorLine > 0) || res.ErrorLine != tt.errorLine {
				t.Errorf("parse error %v at line %d, want one at line %d (0: none)", res.ParseError, res.ErrorLine, tt.errorLine)
			}
			for _, s := range res.Segments {
				if strings.Contains(s.Doc, "NODISCARD") {
					t.Errorf("%s %s: the macro above it is its doc %q", s.Kind, s.Name, s.Doc)
				}
			}
			if err := checkSegments(src, res, true); err != nil {
				t.Error(err)
			}
		})
	}
}
