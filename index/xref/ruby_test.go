package xref

import (
	"slices"
	"testing"
)

const rubyOrder = `require "json"
require_relative "shop/cart"

module Shop
  # An order. @cart.add(1) in a comment is no call.
  class Order < Base
    include Comparable
    attr_reader :items
    MAX_ITEMS = 50

    def initialize(repo)
      @repo = repo
      @cart = Cart.new
    end

    def place(user)
      validate
      self.total
      @cart.add(1)
      Cart.create(user: user)
      Shop::Pricing.quote(items)
      super
      user.notify
      items.each { |line| line.touch }
      log_event("placed")
    end

    def self.build
      new
    end

    private

    def validate; end

    def total
      0
    end
  end
end

def log_event(name)
  puts name
end
`

func TestRubyOrder(t *testing.T) {
	f := parseOK(t, "ruby", rubyOrder)
	wantImports := []string{"=json:@1", "=shop/cart:@2"}
	if got := importStrings(f); !slices.Equal(got, wantImports) {
		t.Errorf("imports %q, want %q", got, wantImports)
	}
	wantDefs(t, rubyOrder, f,
		"module Shop",
		"class Order <Base,Comparable>",
		"field Order.items",
		"const Order.MAX_ITEMS",
		"method Order.initialize",
		"method Order.place",
		"method Order.build",
		"method Order.validate",
		"method Order.total",
		"function log_event",
	)
	wantRefs(t, rubyOrder, f,
		"13 Cart bare call",
		"17 validate self call",
		"18 total self call",
		"19 add type Cart call", // @cart is a Cart.new
		"20 create type Cart call",
		"21 quote type Shop::Pricing call",
		"21 items self call",
		"22 place super call",
		"23 notify unknown call",
		"24 each self [items] call",
		"24 touch unknown call",
		"25 log_event bare call",
		"29 Order bare call",
	)
	noRefs(t, rubyOrder, f, 5, "add")
	noRefs(t, rubyOrder, f, 32, "private")
	checkIn(t, f)
}
