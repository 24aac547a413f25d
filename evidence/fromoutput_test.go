package evidence

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/dossierhq/dossier/evidence/trace"
)

// TestFailingSites: for real-looking output of every supported shape,
// each failure's failing site is its innermost frame in the workspace:
// the code that threw or panicked, not the test that called it and not a
// run's summary line; foreign paths (container, CI runner, another
// drive) count once mapped.
func TestFailingSites(t *testing.T) {
	php := []string{"app/Http/Controllers/UserController.php", "routes/web.php", "app/Services/PriceCalculator.php",
		"app/Http/Controllers/CheckoutController.php", "app/Http/Middleware/EnsureCartIsFresh.php",
		"tests/Feature/CheckoutTest.php", "tests/Unit/OrderTest.php", "vendor/laravel/framework/src/Illuminate/Routing/Controller.php"}
	for _, tc := range []struct {
		sample, root string
		files        []string
		sites        []string // per failure with a site, in order
		rest         []string // the other locations, in order
	}{
		{"php_fatal.txt", "/w", php, []string{"app/Http/Controllers/UserController.php:50", "app/Services/PriceCalculator.php:27"}, []string{"routes/web.php:21"}},
		{"phpunit.txt", "/w", php, []string{"app/Services/PriceCalculator.php:18", "tests/Unit/OrderTest.php:31"},
			[]string{"app/Http/Controllers/CheckoutController.php:42", "tests/Feature/CheckoutTest.php:25"}},
		{"laravel_test.txt", "/w", php, []string{"app/Services/PriceCalculator.php:18"},
			[]string{"app/Http/Controllers/CheckoutController.php:42", "tests/Feature/CheckoutTest.php:25"}},
		{"laravel_log.txt", "/w", php, []string{"app/Http/Controllers/CheckoutController.php:42"}, []string{"app/Http/Middleware/EnsureCartIsFresh.php:19"}},
		{"java.txt", "/w", []string{"src/main/java/com/acme/billing/Invoice.java", "src/main/java/com/acme/billing/InvoiceService.java",
			"src/main/java/com/acme/App.java", "src/test/java/com/acme/billing/InvoiceTest.java"},
			[]string{"src/test/java/com/acme/billing/InvoiceTest.java:24", "src/main/java/com/acme/billing/InvoiceService.java:31", "src/main/java/com/acme/billing/Invoice.java:42"},
			[]string{"src/main/java/com/acme/App.java:9", "src/main/java/com/acme/billing/InvoiceService.java:28"}},
		{"dotnet.txt", "/w", []string{"tests/Acme.Billing.Tests/InvoiceTests.cs", "src/Acme.Billing/InvoiceService.cs", "src/Acme.Billing/Program.cs"},
			[]string{"tests/Acme.Billing.Tests/InvoiceTests.cs:24", "src/Acme.Billing/InvoiceService.cs:42"}, []string{"src/Acme.Billing/Program.cs:12"}},
		{"ruby.txt", "/w", []string{"app/models/order.rb", "app/controllers/orders_controller.rb", "spec/models/order_spec.rb"},
			[]string{"app/models/order.rb:12", "app/models/order.rb:14"},
			[]string{"app/controllers/orders_controller.rb:8", "spec/models/order_spec.rb:9", "spec/models/order_spec.rb:7"}},
		{"minitest.txt", "/w", []string{"app/models/order.rb", "test/models/order_test.rb"},
			[]string{"test/models/order_test.rb:9", "app/models/order.rb:21"}, []string{"test/models/order_test.rb:15"}},
		{"go_panic.txt", "/home/dev/proj", []string{"calc/calc.go", "calc/calc_test.go", "calc/server.go"},
			[]string{"calc/calc.go:9"}, []string{"calc/calc_test.go:20", "calc/server.go:88"}},
		{"python.txt", "/srv/app", []string{"main.py", "handlers.py", "report.py"},
			[]string{"handlers.py:12", "report.py:7"}, []string{"main.py:42", "main.py:44"}},
		{"pytest.txt", "/w", []string{"tests/test_calc.py", "tests/test_parse.py", "src/app/parse.py"},
			[]string{"tests/test_calc.py:7", "src/app/parse.py:4"}, []string{"tests/test_parse.py:5"}},
		{"node.txt", "/home/dev/app", []string{"src/server.js", "src/routes.js", "src/users.mjs", "src/client/index.ts", "src/client/view.tsx"},
			[]string{"src/server.js:42", "src/users.mjs:3"}, []string{"src/routes.js:10", "src/client/index.ts:17", "src/client/view.tsx:5"}},
		{"rustc.txt", "/home/dev/demo", []string{"src/main.rs", "src/lib.rs", "src/util.rs"},
			[]string{"src/main.rs:10", "src/util.rs:3", "src/lib.rs:20", "src/main.rs:4"}, []string{"src/lib.rs:3"}},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("trace", "testdata", tc.sample))
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			for _, f := range tc.files {
				set[f] = true
			}
			refs := trace.Parse(string(raw))
			resolved, _ := trace.ResolveWith(refs, tc.root, func(rel string) bool { return set[rel] }, trace.NewSuffixIndex(tc.files))
			var sites, rest []string
			for _, loc := range addOrder(groupFailures(refs, resolved)) {
				s := loc.ref.Rel + ":" + strconv.Itoa(loc.ref.Line)
				if loc.site {
					sites = append(sites, s)
				} else {
					rest = append(rest, s)
				}
			}
			if !slices.Equal(sites, tc.sites) || !slices.Equal(rest, tc.rest) {
				t.Errorf("sites %q\nwant  %q\nrest  %q\nwant  %q", sites, tc.sites, rest, tc.rest)
			}
		})
	}
}
