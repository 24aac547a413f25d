package xref

import (
	"slices"
	"testing"
)

const cCart = `#include <stdio.h>
#include "util.h"

#define MAX_ITEMS 50

typedef struct cart {
    int n;
    struct store *store;
} cart_t;

enum state { OPEN, CLOSED };

static int carts_made = 0;

int cart_add(cart_t *c, int x);

/* cart_add(c, 1) in a comment is no call */
int cart_add(cart_t *c, int x) {
    int (*hook)(int) = util_hook;
    c->n += util_add(x, 1);
    store_save(c->store);
    hook(x);
    printf("%d\n", c->n);
    return c->n;
}
`

func TestCCart(t *testing.T) {
	f := parseOK(t, "c", cCart)
	if got, want := importStrings(f), []string{"*=stdio.h:@1", "*=util.h:@2"}; !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
	wantDefs(t, cCart, f,
		"const MAX_ITEMS",
		"struct cart",
		"field cart.n",
		"field cart.store :store",
		"type cart_t :cart <cart>",
		"enum state",
		"const state.OPEN :state",
		"const state.CLOSED :state",
		"var carts_made",
		// the prototype is a declaration, not a definition
		"function cart_add",
	)
	wantRefs(t, cCart, f,
		"20 n type cart_t",
		"20 util_add bare call",
		"21 store_save bare call",
		"21 store type cart_t",
		"19 util_hook bare",
	)
	noRefs(t, cCart, f, 17, "cart_add")
	noRefs(t, cCart, f, 22, "hook") // a function pointer is a local
	checkIn(t, f)
}

const cppCart = `#include <memory>
#include "store.hpp"

namespace shop {

class Cart : public Base {
public:
    explicit Cart(Store *s) : store_(s) {}
    void add(int x) {
        store_->save(x);
        this->total();
        total();
        Base::reset();
    }
    int total() const;

private:
    Store *store_;
};

int Cart::total() const { return helper(1); }

}  // namespace shop

void run() {
    shop::Cart c(new Store());
    c.add(1);
    auto p = std::make_unique<shop::Cart>(nullptr);
    p->add(2);
    Store s;
    s.flush();
}
`

func TestCPPCart(t *testing.T) {
	f := parseOK(t, "cpp", cppCart)
	wantDefs(t, cppCart, f,
		"class Cart <Base>",
		"method Cart.Cart",
		"method Cart.add",
		"field Cart.store_ :Store",
		"method Cart.total",
		"function run",
	)
	wantRefs(t, cppCart, f,
		"10 save self [store_] call",
		"11 total self call",
		"12 total self call",
		"13 reset type Base call",
		"21 helper bare call",
		"26 Store bare call",
		"27 add type shop::Cart call",
		"29 add type shop::Cart call",
		"31 flush type Store call",
	)
	checkIn(t, f)
}
