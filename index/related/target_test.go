package related

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{
		"a/b.go":              {Path: "a/b.go"},
		"a/b.go::100,200":     {Path: "a/b.go", Start: 100, End: 200},
		"a/b.go::100":         {Path: "a/b.go", Start: 100},
		"a/b.go::100c,500c":   {Path: "a/b.go", Start: 100, End: 500, Bytes: true},
		"a/b.go::0c":          {Path: "a/b.go", Bytes: true},
		"a/b.go::@ServeHTTP":  {Path: "a/b.go", Symbol: "ServeHTTP"},
		"a/b.go::@Server.Run": {Path: "a/b.go", Symbol: "Server.Run"},
		"a/b.go::10,20#bug,x": {Path: "a/b.go", Start: 10, End: 20, Tags: []string{"bug", "x"}},
	} {
		got, err := ParseTarget(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", in, got, want)
		}
		if got.String() != in {
			t.Errorf("%s: String() = %s", in, got.String())
		}
	}
}

// A JavaScript private member is a name, not the tags, and is named
// without its '#' as the symbol map names it.
func TestParseTargetPrivate(t *testing.T) {
	for in, want := range map[string]Target{
		"a/b.ts::@Hono.#dispatch":     {Path: "a/b.ts", Symbol: "Hono.dispatch"},
		"a/b.ts::@#dispatch#bug":      {Path: "a/b.ts", Symbol: "dispatch", Tags: []string{"bug"}},
		"a/b.ts::@Hono.#dispatch#bug": {Path: "a/b.ts", Symbol: "Hono.dispatch", Tags: []string{"bug"}},
		"a/b.ts::@Hono.dispatch#bug":  {Path: "a/b.ts", Symbol: "Hono.dispatch", Tags: []string{"bug"}},
		"a/b.ts::@Hono#bug":           {Path: "a/b.ts", Symbol: "Hono", Tags: []string{"bug"}},
	} {
		got, err := ParseTarget(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", in, got, want)
		}
		if back, err := ParseTarget(got.String()); err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("%s: %s reads back as %+v, %v", in, got, back, err)
		}
	}
}

func TestParseTargetErrors(t *testing.T) {
	for in, col := range map[string]int{
		"::10":              1,
		"a.go::":            7,
		"a.go::abc":         7,
		"a.go::12x":         9,
		"a.go::10,":         10,
		"a.go::,5":          7,
		"a.go::0":           7,
		"a.go::20,10":       10,
		"a.go::10,20c":      10,
		"a.go::@":           8,
		"a.go::@a b":        9,
		"a.go::1,2,3":       10,
		"a.go::99999999999": 7,
	} {
		_, err := ParseTarget(in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: err %v, want a SyntaxError", in, err)
			continue
		}
		if se.Offset+1 != col {
			t.Errorf("%s: column %d, want %d (%v)", in, se.Offset+1, col, err)
		}
		// The message shows the input with a caret under the column.
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 3 || strings.Index(lines[2], "^") != strings.Index(lines[1], in)+se.Offset {
			t.Errorf("%s: caret misplaced:\n%s", in, err)
		}
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"a.go", "a.go::1,2", "a.go::3", "a.go::1c,9c", "a.go::@X", "a.go::1#t", "::", "a::b::c", "a.ts::@H.#d#t", "a.ts::@H.##x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if tg.Path == "" || tg.End != 0 && tg.End < tg.Start {
			t.Fatalf("%q: %+v", s, tg)
		}
		again, err := ParseTarget(tg.String())
		if err != nil || !reflect.DeepEqual(again, tg) {
			t.Fatalf("%q -> %q -> %+v, %v", s, tg.String(), again, err)
		}
	})
}
