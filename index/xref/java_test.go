package xref

import (
	"fmt"
	"slices"
	"testing"
)

const javaService = `package com.acme.shop.service;

import java.util.List;
import java.util.*;
import com.acme.shop.repo.OrderRepository;
import static com.acme.shop.util.Money.format;

/** Orders. repo.save(order) in a comment is no call. */
@Service
public class OrderService extends BaseService<Order> implements Auditable {
    public static final int MAX_ITEMS = 50;
    private final OrderRepository repo;
    private List<Order> recent = new ArrayList<>();

    public OrderService(OrderRepository repo) {
        super(repo);
        this.repo = repo;
    }

    @Override
    public Order place(Cart cart) throws InvalidCart {
        Order order = new Order(cart.items());
        var audit = new AuditLog();
        audit.write("place");
        repo.save(order);
        this.repo.flush();
        validate(order);
        super.place(cart);
        Order.count();
        log.info(format(order.total()) + com.acme.shop.util.Money.format(0));
        recent.forEach(o -> o.archive());
        for (Order old : recent) { old.expire(); }
        return repo.find(order.id()).orElseThrow();
    }

    private void validate(Order order) {}

    enum State { OPEN, CLOSED }
}
`

func TestJavaService(t *testing.T) {
	f := parseOK(t, "java", javaService)
	if f.Package != "com.acme.shop.service" {
		t.Errorf("package %q", f.Package)
	}
	wantImports := []string{"List=java.util.List:List@3", "*=java.util.*:@4",
		"OrderRepository=com.acme.shop.repo.OrderRepository:OrderRepository@5",
		"format=com.acme.shop.util.Money.format:format@6"}
	if got := importStrings(f); !slices.Equal(got, wantImports) {
		t.Errorf("imports %q, want %q", got, wantImports)
	}
	wantDefs(t, javaService, f,
		"class OrderService <BaseService,Auditable>",
		"const OrderService.MAX_ITEMS",
		"field OrderService.repo :OrderRepository",
		"field OrderService.recent :List",
		"method OrderService.OrderService",
		"method OrderService.place :Order",
		"method OrderService.validate",
		"enum OrderService.State",
		"const State.OPEN :State",
		"const State.CLOSED :State",
	)
	wantRefs(t, javaService, f,
		"16 BaseService super call", // super(repo): the base's constructor
		"22 Order bare call",
		"22 items type Cart call",
		"23 AuditLog bare call",
		"24 write type AuditLog call",
		"25 save self [repo] call", // a field, not a local
		"26 flush self [repo] call",
		"27 validate self call",
		"28 place super call",
		"29 count type Order call",
		"30 info self [log] call",
		"30 format type com.acme.shop.util.Money call", // the static import
		"30 total type Order call",
		"30 format type com.acme.shop.util.Money call",
		"31 forEach self [recent] call",
		"31 archive unknown call",
		"32 expire type Order call",
		"33 find self [repo] call",
		"33 orElseThrow self [repo.find] call",
		"10 BaseService bare",
		"21 InvalidCart bare",
	)
	noRefs(t, javaService, f, 8, "save")
	noRefs(t, javaService, f, 15, "OrderService")
	checkIn(t, f)
}

// TestJavaArity: methods carry the argument counts they take, calls the
// count they pass, so that overloads can be told apart.
func TestJavaArity(t *testing.T) {
	src := `class A {
    A() {}
    void f(int a, String... rest) {}
    int g(int a, int b) { return a; }
    void h() {
        f(1, "x", "y");
        this.g(1, /* b */ 2);
        new A();
        list.forEach(this::g);
    }
}
`
	f := parseOK(t, "java", src)
	var arities []string
	for _, d := range f.Defs {
		if d.Arity != nil {
			arities = append(arities, fmt.Sprintf("%s %d..%d", d.Name, d.Arity.Min, d.Arity.Max))
		}
	}
	if want := []string{"A 0..0", "f 1..-1", "g 2..2", "h 0..0"}; !slices.Equal(arities, want) {
		t.Errorf("arities %q, want %q", arities, want)
	}
	var args []string
	for _, r := range f.Refs {
		if r.Call {
			args = append(args, fmt.Sprintf("%s(%d)", r.Name, r.Args))
		}
	}
	if want := []string{"f(3)", "g(2)", "A(0)", "forEach(1)", "g(-1)"}; !slices.Equal(args, want) {
		t.Errorf("call arguments %q, want %q", args, want)
	}
	if !(Arity{Min: 1, Max: -1}).Accepts(5) || (Arity{Min: 2, Max: 2}).Accepts(1) {
		t.Error("Accepts")
	}
}
