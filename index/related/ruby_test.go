package related

import "testing"

var rubyFiles = map[string]string{
	"lib/shop/order.rb":   "class Order\n  def save\n    true\n  end\nend\n",
	"lib/shop/invoice.rb": "class Invoice\n  def save\n    true\n  end\nend\n",
	"lib/shop/checkout.rb": `require_relative "order"

class Checkout
  def run
    order = Order.new
    order.save
    finish
  end

  def finish; end
end
`,
}

func TestRubyReceiverTypedByNew(t *testing.T) {
	db := fixtureOf(t, rubyFiles)
	// order is an Order.new: Invoice#save, as near, is not called.
	x := expand(t, db, "lib/shop/checkout.rb::@Checkout.run")
	check(t, "callees", calleesOf(x), []string{
		"lib/shop/order.rb:1 Order (class) <- 5",
		"lib/shop/order.rb:2 Order.save (method) <- 6",
		"lib/shop/checkout.rb:10 Checkout.finish (method) <- 7",
	})
	x = expand(t, db, "lib/shop/invoice.rb::@Invoice.save")
	check(t, "callers", callersOf(x), nil)
}
