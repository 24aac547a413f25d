package related

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
)

// fixtureFiles is a small polyglot workspace: a Go module with two
// packages, a command and a test; a Python package with relative imports
// and a test; a TypeScript project with a JS entry point and a test.
var fixtureFiles = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"cart/cart.go": `package cart

import (
	"fmt"

	"example.com/shop/money"
)

// Cart holds items.
type Cart struct {
	Items []string
	total money.Cents
}

// Add puts an item in the cart.
func (c *Cart) Add(item string, p money.Cents) {
	c.Items = append(c.Items, item)
	c.total = money.Sum(c.total, p)
}

// Total formats the cart's total.
func Total(c *Cart) string {
	return fmt.Sprint(len(c.Items)) + " " + money.Format(c.total)
}

// Half calls its own package's method half, not the function half, and
// neither money's half nor its trim: Go hides unexported names.
func (c *Cart) Half() int { return c.half() + c.trim() }
`,
	"cart/cart_test.go": `package cart

import "testing"

func TestAdd(t *testing.T) {
	c := &Cart{}
	c.Add("x", 1)
	if Total(c) == "" {
		t.Fatal("empty")
	}
}
`,
	"cart/half.go": "package cart\n\nfunc half(n int) int { return n / 2 }\n\nfunc (c *Cart) half() int { return half(len(c.Items)) }\n",
	"money/money.go": `package money

import "strconv"

// Cents is an amount of money.
type Cents int

// Sum adds two amounts.
func Sum(a, b Cents) Cents { return a + b }

// Format renders an amount.
func Format(c Cents) string {
	return strconv.Itoa(int(c)) // Sum(a, b) in a comment is not a call
}

func (c Cents) half() Cents { return c / 2 }
func (c Cents) trim() Cents { return c }
`,
	"cmd/shop/main.go": `package main

import (
	"fmt"

	"example.com/shop/cart"
	m "example.com/shop/money"
)

func main() {
	c := &cart.Cart{}
	c.Add("apple", m.Cents(3))
	fmt.Println(cart.Total(c), m.Format(1))
}
`,
	"py/shop/__init__.py": "from .pricing import price\n",
	"py/shop/util.py":     "def clamp(x, lo=0):\n    return max(lo, x)\n",
	"py/shop/pricing.py": `import math
from .util import clamp


def price(x):
    """Round a price up, never below zero."""
    return clamp(math.ceil(x))


class Pricer:
    def quote(self, x):
        return price(x) + self.fee()

    def fee(self):
        return 1
`,
	"py/shop/checkout.py": `from . import pricing
from .pricing import Pricer


def checkout(items):
    p = Pricer()
    return sum(pricing.price(i) for i in items) + p.quote(1)
`,
	"py/tests/test_pricing.py": "from shop.pricing import price\n\n\ndef test_price():\n    assert price(1.2) == 2\n",
	"web/src/math.ts": `export function add(a: number, b: number): number {
  return a + b;
}

export function double(a: number): number {
  return add(a, a);
}
`,
	"web/src/util/index.ts": "export function clamp(n: number): number {\n  return Math.max(0, n);\n}\n",
	"web/src/calc.ts": `import { add, double } from './math';
import * as util from './util';

export class Calc {
  total = 0;
  push(n: number): number {
    this.total = add(this.total, util.clamp(n));
    return this.total;
  }
}

export function twice(n: number): number {
  return double(n);
}
`,
	"web/src/main.js":        "import { Calc, twice } from './calc.js';\n\nconst c = new Calc();\nc.push(twice(2));\n\n// A method named like a function is no call of it.\nclass Stack {\n  twice(x) {\n    return x;\n  }\n}\n",
	"web/tests/calc.test.ts": "import { twice } from '../src/calc';\n\ntest('twice', () => {\n  expect(twice(2)).toBe(4);\n});\n",
	"README.md":              "# Shop\n\nA shop.\n",
}

// fixture writes fixtureFiles into a temporary directory, indexes it with
// the real indexer and opens the index read-only.
func fixture(t *testing.T) *store.DB {
	t.Helper()
	return fixtureOf(t, fixtureFiles)
}

// fixtureOf indexes files in a temporary workspace.
func fixtureOf(t *testing.T, files map[string]string) *store.DB {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := index.Open(index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// expand parses sel and expands it in db.
func expand(t *testing.T, db *store.DB, sel string) *Expansion {
	t.Helper()
	target, err := ParseTarget(sel)
	if err != nil {
		t.Fatal(err)
	}
	var x *Expansion
	err = db.View(func(tx *store.Tx) error {
		x, err = Expand(tx, target, Options{})
		return err
	})
	if err != nil {
		t.Fatalf("expand %s: %v", sel, err)
	}
	return x
}
