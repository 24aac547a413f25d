package xref

import (
	"slices"
	"testing"
)

const csService = `using System;
using System.Linq;
using Repo = Shop.Data.OrderRepository;

namespace Shop.Services;

/// <summary>Orders. _repo.Save(order) in a comment is no call.</summary>
public class OrderService : ServiceBase, IOrderService
{
    public const int MaxLines = 50;
    private readonly IOrderRepository _repo;
    public ILogger Log { get; init; }

    public OrderService(IOrderRepository repo) : base(repo)
    {
        _repo = repo;
    }

    public async Task<Order> PlaceAsync(Cart cart)
    {
        var order = new Order(cart.Id);
        Order draft = Order.Draft();
        _repo.Save(order);
        this._repo.Flush();
        Log.Info("placed");
        Validate(order);
        base.Audit(cart);
        draft?.Discard();
        foreach (Line line in order.Lines) { line.Touch(); }
        if (cart is PromoCart promo) { promo.Apply(); }
        return await _repo.FindAsync(order.Id);
    }

    private void Validate(Order order) { }
}

public enum Status { Open, Closed }
`

func TestCSharpService(t *testing.T) {
	f := parseOK(t, "csharp", csService)
	if f.Package != "Shop.Services" {
		t.Errorf("package %q", f.Package)
	}
	wantImports := []string{"*=System:@1", "*=System.Linq:@2", "Repo=Shop.Data.OrderRepository:@3"}
	if got := importStrings(f); !slices.Equal(got, wantImports) {
		t.Errorf("imports %q, want %q", got, wantImports)
	}
	wantDefs(t, csService, f,
		"class OrderService <ServiceBase,IOrderService>",
		"const OrderService.MaxLines",
		"field OrderService._repo :IOrderRepository",
		"field OrderService.Log :ILogger",
		"method OrderService.OrderService",
		"method OrderService.PlaceAsync :Task",
		"method OrderService.Validate",
		"enum Status",
		"const Status.Open :Status",
		"const Status.Closed :Status",
	)
	wantRefs(t, csService, f,
		"21 Order bare call",
		"21 Id type Cart",
		"22 Draft bare [Order] call", // a type by name: the resolver reads it
		"23 Save self [_repo] call",
		"24 Flush self [_repo] call",
		"25 Info self [Log] call", // a property of this class
		"26 Validate self call",
		"27 Audit super call",
		"28 Discard type Order call",
		"29 Touch type Line call",
		"30 Apply type PromoCart call",
		"31 FindAsync self [_repo] call",
		"8 ServiceBase bare",
		"19 Cart bare",
	)
	noRefs(t, csService, f, 7, "Save", "_repo")
	checkIn(t, f)
}
