package related

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

func importsOf(x *Expansion) []string {
	var out []string
	for _, imp := range x.Imports {
		to := "external"
		switch {
		case imp.Dir != "":
			to = imp.Dir + "/ " + strings.Join(imp.Paths, ",")
		case len(imp.Paths) > 0:
			to = strings.Join(imp.Paths, ",")
		}
		out = append(out, fmt.Sprintf("%d %s -> %s", imp.Line, imp.Spec, to))
	}
	return out
}

func importersOf(x *Expansion) []string {
	var out []string
	for _, r := range x.Importers {
		out = append(out, fmt.Sprintf("%s:%d %s", r.Path, r.Line, r.Name))
	}
	return out
}

func testsOf(x *Expansion) []string {
	var out []string
	for _, r := range x.Tests {
		out = append(out, r.Path+" "+r.Role)
	}
	return out
}

func calleesOf(x *Expansion) []string {
	var out []string
	for _, r := range x.Callees {
		out = append(out, fmt.Sprintf("%s:%d %s (%s) <- %d", r.Path, r.Line, r.Symbol, r.Kind, r.CallLine))
	}
	return out
}

func callersOf(x *Expansion) []string {
	var out []string
	for _, r := range x.Callers {
		out = append(out, fmt.Sprintf("%s:%d %s (%s) calls %s", r.Path, r.Line, r.Symbol, r.Kind, r.Name))
	}
	return out
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestGoFile(t *testing.T) {
	db := fixture(t)
	x := expand(t, db, "cart/cart.go")
	if !x.Target.WholeFile || x.Target.StartLine != 1 || x.Target.EndLine != 28 || x.Target.Language != "go" {
		t.Errorf("target %+v", x.Target)
	}
	check(t, "imports", importsOf(x), []string{"4 fmt -> external", "6 example.com/shop/money -> money/ money/money.go"})
	check(t, "importers", importersOf(x), []string{"cmd/shop/main.go:6 example.com/shop/cart"})
	check(t, "tests", testsOf(x), []string{"cart/cart_test.go test"})
	// money.Sum and money.Format resolve through the import; fmt.Sprint is
	// external, append and len are builtins.
	check(t, "callees", calleesOf(x), []string{
		"money/money.go:8 Sum (function) <- 18",
		"money/money.go:11 Format (function) <- 23",
		"cart/half.go:5 Cart.half (method) <- 28",
	})
	// The test calls Total unqualified (same package), main calls
	// cart.Total and the method c.Add.
	check(t, "callers", callersOf(x), []string{
		"cart/cart_test.go:7 TestAdd (function) calls Add",
		"cart/cart_test.go:8 TestAdd (function) calls Total",
		"cmd/shop/main.go:12 main (function) calls Add",
		"cmd/shop/main.go:13 main (function) calls Total",
	})
	if x.Callers[0].ChunkID == "" || x.Callers[0].Text != `c.Add("x", 1)` || x.Callees[0].ChunkID == "" {
		t.Errorf("refs lack chunk or text: %+v %+v", x.Callers[0], x.Callees[0])
	}
	if len(x.Notes) != 0 || len(x.Omitted) != 0 {
		t.Errorf("notes %q omitted %v", x.Notes, x.Omitted)
	}
}

func TestGoSymbol(t *testing.T) {
	db := fixture(t)
	x := expand(t, db, "money/money.go::@Sum")
	if x.Target.WholeFile || x.Target.StartLine != 8 || x.Target.EndLine != 9 || len(x.Target.Chunks) != 1 || x.Target.Chunks[0].Symbol != "Sum" {
		t.Errorf("target %+v", x.Target)
	}
	// main.go imports money as m; the comment in Format is no call.
	check(t, "importers", importersOf(x), []string{"cart/cart.go:6 example.com/shop/money", "cmd/shop/main.go:7 example.com/shop/money"})
	check(t, "callers", callersOf(x), []string{"cart/cart.go:18 Cart.Add (method) calls Sum"})
	check(t, "callees", calleesOf(x), nil)

	// Go hides money's unexported half from cart, so cart's c.half() is
	// not a call of it.
	x = expand(t, db, "money/money.go")
	check(t, "file callers", callersOf(x), []string{
		"cart/cart.go:18 Cart.Add (method) calls Sum",
		"cart/cart.go:23 Total (function) calls Format",
		"cmd/shop/main.go:13 main (function) calls Format",
	})

	// The alias m qualifies calls into money.
	x = expand(t, db, "money/money.go::@Format")
	check(t, "alias callers", callersOf(x), []string{
		"cart/cart.go:23 Total (function) calls Format",
		"cmd/shop/main.go:13 main (function) calls Format",
	})
}

func TestPythonFile(t *testing.T) {
	db := fixture(t)
	x := expand(t, db, "py/shop/pricing.py")
	check(t, "imports", importsOf(x), []string{"1 math -> external", "2 .util -> py/shop/util.py"})
	// "from . import pricing" names the module as a member of its package;
	// the test imports it absolutely from another source root.
	check(t, "importers", importersOf(x), []string{
		"py/shop/__init__.py:1 .pricing",
		"py/shop/checkout.py:1 .",
		"py/tests/test_pricing.py:1 shop.pricing",
	})
	check(t, "tests", testsOf(x), []string{"py/tests/test_pricing.py test"})
	check(t, "callees", calleesOf(x), []string{"py/shop/util.py:1 clamp (function) <- 7"})
	check(t, "callers", callersOf(x), []string{
		"py/shop/checkout.py:6 checkout (function) calls Pricer",
		"py/shop/checkout.py:7 checkout (function) calls price",
		"py/shop/checkout.py:7 checkout (function) calls quote",
		"py/tests/test_pricing.py:5 test_price (function) calls price",
	})
}

func TestPythonMethod(t *testing.T) {
	db := fixture(t)
	x := expand(t, db, "py/shop/pricing.py::@Pricer.quote")
	if x.Target.StartLine != 11 || x.Target.EndLine != 12 {
		t.Errorf("target %+v", x.Target)
	}
	// Callees outside the selection but in the same file come first.
	check(t, "callees", calleesOf(x), []string{
		"py/shop/pricing.py:5 price (function) <- 12",
		"py/shop/pricing.py:14 Pricer.fee (method) <- 12",
	})
	check(t, "callers", callersOf(x), []string{"py/shop/checkout.py:7 checkout (function) calls quote"})
}

func TestTypeScript(t *testing.T) {
	db := fixture(t)
	x := expand(t, db, "web/src/calc.ts")
	// ./util is a directory with an index.ts; main.js imports ./calc.js,
	// which TypeScript's ESM convention maps to calc.ts.
	check(t, "imports", importsOf(x), []string{"1 ./math -> web/src/math.ts", "2 ./util -> web/src/util/index.ts"})
	check(t, "importers", importersOf(x), []string{"web/src/main.js:1 ./calc.js", "web/tests/calc.test.ts:1 ../src/calc"})
	check(t, "tests", testsOf(x), []string{"web/tests/calc.test.ts test"})
	check(t, "callees", calleesOf(x), []string{
		"web/src/math.ts:1 add (function) <- 7",
		"web/src/util/index.ts:1 clamp (function) <- 7",
		"web/src/math.ts:5 double (function) <- 13",
	})
	check(t, "callers", callersOf(x), []string{
		"web/src/main.js:3 c (const) calls Calc",
		"web/src/main.js:4  (top_level) calls push",
		"web/src/main.js:4  (top_level) calls twice",
		"web/tests/calc.test.ts:4  (top_level) calls twice",
	})

	x = expand(t, db, "web/src/calc.ts::12,14")
	if len(x.Target.Chunks) != 1 || x.Target.Chunks[0].Symbol != "twice" {
		t.Errorf("range chunks %+v", x.Target.Chunks)
	}
	check(t, "range callees", calleesOf(x), []string{"web/src/math.ts:5 double (function) <- 13"})
	check(t, "range callers", callersOf(x), []string{
		"web/src/main.js:4  (top_level) calls twice",
		"web/tests/calc.test.ts:4  (top_level) calls twice",
	})
}

func TestLimitAndOrder(t *testing.T) {
	db := fixture(t)
	target, _ := ParseTarget("cart/cart.go")
	var x *Expansion
	err := db.View(func(tx *store.Tx) error {
		var err error
		x, err = Expand(tx, target, Options{Limit: 1})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Callers) != 1 || x.Omitted["callers"] != 3 || len(x.Callees) != 1 || x.Omitted["callees"] != 2 {
		t.Errorf("limit 1: callers %d callees %d omitted %v", len(x.Callers), len(x.Callees), x.Omitted)
	}
	// The same query twice gives the same answer.
	a, b := expand(t, db, "cart/cart.go"), expand(t, db, "cart/cart.go")
	if !reflect.DeepEqual(a, b) {
		t.Error("two expansions differ")
	}
}

func TestTargetErrors(t *testing.T) {
	db := fixture(t)
	for sel, want := range map[string]error{
		"nope.go":                ErrNotIndexed,
		"money/money.go::18":     ErrPastEOF,
		"money/money.go::999c":   ErrPastEOF,
		"money/money.go::@Nope":  ErrNoSymbol,
		"money/money.go::@X.Sum": ErrNoSymbol,
	} {
		target, err := ParseTarget(sel)
		if err != nil {
			t.Fatal(err)
		}
		err = db.View(func(tx *store.Tx) error {
			_, err := Expand(tx, target, Options{})
			return err
		})
		if !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", sel, err, want)
		}
	}
	// A range past the end is clipped, not refused.
	if x := expand(t, db, "money/money.go::12,400"); x.Target.EndLine != 17 {
		t.Errorf("clipped range ends at %d", x.Target.EndLine)
	}
}

// TestNoExtractorSaysSo: a file of a language indexed as text gets no
// callees or callers by name matching, and a note says why.
func TestNoExtractorSaysSo(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"app/Main.kt": "fun main() {\n    greet()\n}\n\nfun greet() = println(\"hi\")\n",
	})
	x := expand(t, db, "app/Main.kt")
	if len(x.Callees) != 0 || len(x.Callers) != 0 {
		t.Errorf("callees %v, callers %v: want none", x.Callees, x.Callers)
	}
	if !slices.ContainsFunc(x.Notes, func(n string) bool { return strings.Contains(n, "no reference extractor for kotlin") }) {
		t.Errorf("notes %q lack the reason", x.Notes)
	}
}
