package related

import "testing"

var csFiles = map[string]string{
	"src/Shop/Models/Order.cs": "namespace Shop.Models;\n\npublic class Order\n{\n    public void Ship() { }\n    public static Order Create() => new Order();\n}\n",
	// Next to the caller, in a namespace it does not use.
	"src/Shop/Services/Order.cs": "namespace Shop.Legacy;\n\npublic class Order\n{\n    public void Ship() { }\n}\n",
	"src/Shop/Services/OrderService.cs": `using Shop.Models;

namespace Shop.Services;

public class OrderService
{
    private readonly Order _order = Order.Create();

    public void Run()
    {
        _order.Ship();
        var fresh = Order.Create();
        fresh.Ship();
    }
}
`,
}

func TestCSharpUsingPicksTheNamespace(t *testing.T) {
	db := fixtureOf(t, csFiles)
	// Two classes are called Order: the using directive picks Shop.Models',
	// not the one next to the caller in another namespace.
	x := expand(t, db, "src/Shop/Services/OrderService.cs::@OrderService.Run")
	check(t, "callees", calleesOf(x), []string{
		"src/Shop/Models/Order.cs:5 Order.Ship (method) <- 11",
		"src/Shop/Models/Order.cs:6 Order.Create (method) <- 12",
	})
	x = expand(t, db, "src/Shop/Services/Order.cs::@Order.Ship")
	check(t, "callers", callersOf(x), nil)
}
