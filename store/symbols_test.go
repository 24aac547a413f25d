package store

import (
	"strconv"
	"strings"
	"testing"
)

// memberUpdate is a file with one class chunk holding two fields of one
// name (an outline may hold a field and a method's property of the same
// name in nested objects) and a constant.
func memberUpdate(path string) FileUpdate {
	id := "c" + PathHash(path) + "00000001"
	u := update(path, "class Server {\n  fetch = (r) => r;\n  static MAX = 3;\n}\nconst api = { fetch() {} };",
		Chunk{ID: id, Path: path, Kind: "class", Symbol: "Server", Hash: "hc", StartByte: 0, EndByte: 76, Part: 1, Parts: 1})
	u.Symbols = append(u.Symbols,
		Symbol{Name: "fetch", Kind: "method", Parent: "Server", Path: path, ChunkID: id, Line: 2, EndLine: 2, StartByte: 17, EndByte: 34},
		Symbol{Name: "MAX", Kind: "field", Parent: "Server", Path: path, ChunkID: id, Line: 3, EndLine: 3, StartByte: 37, EndByte: 52},
		Symbol{Name: "fetch", Kind: "method", Parent: "api", Path: path, ChunkID: id, Line: 5, EndLine: 5, StartByte: 69, EndByte: 79})
	return u
}

func TestSpanSymbols(t *testing.T) {
	db, _ := openTest(t)
	if err := db.Update(func(tx *Tx) error { return tx.ReplaceFile(memberUpdate("s.ts")) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		for sel, want := range map[string]string{
			"fetch":        "Server:17-34,api:69-79", // both: a key per symbol, not per chunk
			"Server.fetch": "Server:17-34",
			"api.fetch":    "api:69-79",
			"MAX":          "Server:37-52",
			"Server":       "", // the chunk's own symbol has no span of its own
			"Other.fetch":  "",
			"max":          "", // case matters
		} {
			syms, err := tx.SpanSymbols("s.ts", sel)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range syms {
				got = append(got, s.Parent+":"+strconv.Itoa(s.StartByte)+"-"+strconv.Itoa(s.EndByte))
			}
			if strings.Join(got, ",") != want {
				t.Errorf("SpanSymbols(%q) = %v, want %s", sel, got, want)
			}
		}
		return nil
	})
	// Replacing and deleting the file leave none of its member symbols.
	if err := db.Update(func(tx *Tx) error { return tx.ReplaceFile(memberUpdate("s.ts")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error { return tx.DeleteFile("s.ts") }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if c := tx.Counts(); c["symbols"] != 0 || c["symnames"] != 0 {
			t.Errorf("after delete: %d symbols, %d symbol-name lists", c["symbols"], c["symnames"])
		}
		return nil
	})
}

func TestSymbolNamed(t *testing.T) {
	s := Symbol{Name: "Max", Parent: "Shop.Cart"}
	for sel, want := range map[string]bool{
		"Max": true, "Cart.Max": true, "Shop.Cart.Max": true,
		"hop.Cart.Max": false, "Shop.Max": false, "max": false, "Cart.Min": false,
	} {
		if got := s.Named(sel); got != want {
			t.Errorf("Named(%q) = %v, want %v", sel, got, want)
		}
	}
}

// `var x, X int` declares two names that differ only in case at one start:
// both are kept.
func TestSpanSymbolsCase(t *testing.T) {
	db, _ := openTest(t)
	id := "c" + PathHash("v.go") + "00000001"
	u := update("v.go", "var x, X int", Chunk{ID: id, Path: "v.go", Kind: "top_level", Hash: "hv", StartByte: 0, EndByte: 12, Part: 1, Parts: 1})
	for _, name := range []string{"x", "X"} {
		u.Symbols = append(u.Symbols, Symbol{Name: name, Kind: "var", Path: "v.go", ChunkID: id, Line: 1, EndLine: 1, StartByte: 0, EndByte: 12})
	}
	if err := db.Update(func(tx *Tx) error { return tx.ReplaceFile(u) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		for _, name := range []string{"x", "X"} {
			if syms, err := tx.SpanSymbols("v.go", name); err != nil || len(syms) != 1 || syms[0].Name != name {
				t.Errorf("SpanSymbols(%s) = %+v, %v", name, syms, err)
			}
		}
		return nil
	})
	if err := db.Update(func(tx *Tx) error { return tx.DeleteFile("v.go") }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if n := tx.Counts()["symbols"]; n != 0 {
			t.Errorf("%d symbols outlive v.go", n)
		}
		return nil
	})
}
