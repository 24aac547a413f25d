package xref

import (
	"slices"
	"testing"
)

const rustCart = `use std::collections::HashMap;
use crate::store::{self, Store, open as open_store};
use super::util::*;

/// A cart. self.store.save(it) in a comment is no call.
pub struct Cart {
    items: Vec<Item>,
    store: Store,
}

pub enum State { Open, Closed(u32) }

pub const MAX_ITEMS: usize = 50;

impl Cart {
    pub fn new(store: Store) -> Self {
        Cart { items: Vec::new(), store }
    }

    pub fn add(&mut self, it: Item) -> Result<&mut Self, Error> {
        self.store.save(&it)?;
        self.total();
        Self::check(&it);
        let s = Store::open("db")?;
        s.flush();
        let c = Cart::new(s);
        c.total();
        let idx: HashMap<String, Item> = HashMap::new();
        idx.len();
        open_store().sync();
        store::reset();
        let double = |n: u32| n * 2;
        double(2);
        helper(1);
        Ok(self)
    }

    fn total(&self) -> u32 { 0 }
    fn check(it: &Item) {}
}

impl Priced for Cart {
    fn price(&self) -> u32 { self.total() }
}

fn helper(n: u32) -> u32 { n }
`

func TestRustCart(t *testing.T) {
	f := parseOK(t, "rust", rustCart)
	wantImports := []string{"HashMap=std::collections::HashMap:HashMap@1", "store=crate::store:store@2",
		"Store=crate::store::Store:Store@2", "open_store=crate::store::open:open@2", "*=super::util::*:@3"}
	if got := importStrings(f); !slices.Equal(got, wantImports) {
		t.Errorf("imports %q, want %q", got, wantImports)
	}
	wantDefs(t, rustCart, f,
		"struct Cart <Priced>",
		"field Cart.items :Vec",
		"field Cart.store :Store",
		"enum State",
		"const State.Open :State",
		"const State.Closed :State",
		"const MAX_ITEMS",
		"method Cart.new :Cart",
		"method Cart.add :Cart",
		"method Cart.total",
		"method Cart.check",
		"method Cart.price",
		"function helper",
	)
	wantRefs(t, rustCart, f,
		"17 Cart bare call",
		"21 save self [store] call",
		"22 total self call",
		"23 check self call",
		"24 open type Store call",
		"25 flush type Store [open] call",
		"26 new type Cart call",
		"27 total type Cart [new] call",
		"29 len type HashMap call",
		"30 open_store bare call",
		"31 reset package store call",
		"34 helper bare call",
		"20 Item bare",
	)
	noRefs(t, rustCart, f, 5, "save", "store")
	noRefs(t, rustCart, f, 33, "double") // a closure is a local
	checkIn(t, f)
}
