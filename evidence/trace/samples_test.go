package trace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sampleWant is what Parse must return for each file in testdata/. Every
// sample must be listed: TestParseSamples fails on one that is not.
var sampleWant = map[string][]Ref{
	"eslint.txt": {
		{Path: "/home/dev/app/src/a.js", Line: 10, Col: 5, Format: "eslint", Message: "'x' is defined but never used (no-unused-vars)"},
		{Path: "/home/dev/app/src/a.js", Line: 12, Col: 1, Format: "eslint", Message: "Unexpected console statement (no-console)"},
		{Path: "/home/dev/app/src/lib/util.js", Line: 3, Col: 10, Format: "eslint", Message: "Parsing error: Unexpected token"},
	},
	// eslint_real.txt, tsc_real.txt: real runs (ESLint 9, TypeScript 5):
	// two ESLint problems on one line are two failures.
	// cargo_test_real.txt, cargo_test_backtrace_real.txt (RUST_BACKTRACE=1)
	// and javac_real.txt are real runs (Rust 1.95, javac 17): two tests
	// panicking, one in a helper; the toolchain's frames (/rustc/...) are
	// left out when resolved, outside the workspace.
	"cargo_test_backtrace_real.txt": {
		{Path: "src/lib.rs", Line: 20, Col: 9, Func: "tests::add_two", Format: "rustc", Message: "assertion `left == right` failed"},
		{Path: "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs", Line: 689, Col: 5, Func: "__rustc::rust_begin_unwind", Format: "rustc", Message: "assertion `left == right` failed"},
		{Path: "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs", Line: 80, Col: 14, Func: "core::panicking::panic_fmt", Format: "rustc", Frame: 1, Message: "assertion `left == right` failed"},
		{Path: "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs", Line: 439, Col: 17, Func: "core::panicking::assert_failed_inner", Format: "rustc", Frame: 2, Message: "assertion `left == right` failed"},
		{Path: "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs", Line: 394, Col: 5, Func: "core::panicking::assert_failed::<i32, i32>", Format: "rustc", Frame: 3, Message: "assertion `left == right` failed"},
		{Path: "./src/lib.rs", Line: 20, Col: 9, Func: "calc::tests::add_two", Format: "rustc", Frame: 4, Message: "assertion `left == right` failed"},
		{Path: "./src/lib.rs", Line: 19, Col: 17, Func: "calc::tests::add_two::{{closure}}", Format: "rustc", Frame: 5, Message: "assertion `left == right` failed"},
		{Path: "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs", Line: 250, Col: 5, Func: "core::ops::function::FnOnce::call_once", Format: "rustc", Frame: 6, Message: "assertion `left == right` failed"},
		{Path: "src/lib.rs", Line: 6, Col: 5, Func: "tests::add_one", Format: "rustc", Message: "assertion `left == right` failed: add is wrong"},
		{Path: "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs", Line: 434, Col: 23, Func: "core::panicking::assert_failed_inner", Format: "rustc", Frame: 2, Message: "assertion `left == right` failed: add is wrong"},
		{Path: "./src/lib.rs", Line: 6, Col: 5, Func: "calc::check", Format: "rustc", Frame: 4, Message: "assertion `left == right` failed: add is wrong"},
		{Path: "./src/lib.rs", Line: 15, Col: 9, Func: "calc::tests::add_one", Format: "rustc", Frame: 5, Message: "assertion `left == right` failed: add is wrong"},
		{Path: "./src/lib.rs", Line: 14, Col: 17, Func: "calc::tests::add_one::{{closure}}", Format: "rustc", Frame: 6, Message: "assertion `left == right` failed: add is wrong"},
	},
	"cargo_test_real.txt": {
		{Path: "src/lib.rs", Line: 6, Col: 5, Func: "tests::add_one", Format: "rustc", Message: "assertion `left == right` failed: add is wrong"},
		{Path: "src/lib.rs", Line: 20, Col: 9, Func: "tests::add_two", Format: "rustc", Message: "assertion `left == right` failed"},
	},
	"javac_real.txt": {
		{Path: "Calc.java", Line: 3, Format: "gcc", Message: "error: ';' expected"},
	},
	"eslint_real.txt": {
		{Path: "/home/dev/app/src/lint.js", Line: 1, Col: 7, Format: "eslint", Message: "'unused' is assigned a value but never used (no-unused-vars)"},
		{Path: "/home/dev/app/src/lint.js", Line: 3, Col: 9, Format: "eslint", Message: "Expected '===' and instead saw '==' (eqeqeq)"},
		{Path: "/home/dev/app/src/lint.js", Line: 3, Col: 25, Format: "eslint", Message: "'undefinedName' is not defined (no-undef)"},
	},
	// vitest_real.txt is a real run (Vitest 4, NO_COLOR=1): two failing
	// tests, the first thrown in a helper of src/calc.ts.
	"vitest_real.txt": {
		{Path: "src/calc.ts", Line: 6, Col: 27, Func: "check", Format: "vitest", Message: "Error: got 0, want 2"},
		{Path: "src/calc.test.ts", Line: 5, Col: 3, Format: "vitest", Frame: 1, Message: "Error: got 0, want 2"},
		{Path: "src/calc.test.ts", Line: 9, Col: 21, Format: "vitest", Message: "AssertionError: expected +0 to be 4 // Object.is equality"},
	},
	"tsc_real.txt": {
		{Path: "src/calc.ts", Line: 9, Col: 14, Format: "tsc", Message: "error TS2322: Type 'string' is not assignable to type 'number'."},
	},
	"gcc.txt": {
		{Path: "src/main.c", Line: 3, Format: "gcc", Frame: 1, Message: "error: unknown type name 'size_tt'; did you mean 'size_t'?"},
		{Path: "src/util.h", Line: 12, Col: 10, Format: "gcc", Message: "error: unknown type name 'size_tt'; did you mean 'size_t'?"},
		{Path: "src/main.c", Line: 10, Col: 5, Func: "main", Format: "gcc", Message: "warning: implicit declaration of function 'foo' [-Wimplicit-function-declaration]"},
		{Path: "src/main.c", Line: 15, Col: 12, Func: "main", Format: "gcc", Message: "error: 'y' undeclared (first use in this function)"},
		{Path: "src/parse.c", Line: 88, Col: 3, Format: "gcc", Message: "error: use of undeclared identifier 'tok'"},
		{Path: "src/parse.h", Line: 4, Col: 6, Format: "gcc", Frame: 1, Message: "error: use of undeclared identifier 'tok'"},
		{Path: "Makefile", Line: 12, Format: "generic", Message: "make: *** [Makefile:12: build/main.o] Error 1"},
	},
	"generic.txt": {
		{Path: "config.yaml", Line: 14, Col: 3, Format: "generic", Message: "2024-05-01T10:00:01.456Z ERROR config.yaml:14:3: unknown key \"timeout\""},
		{Path: "docs/guide.md", Line: 88, Format: "generic", Message: "lint: docs/guide.md:88 trailing whitespace"},
		{Path: "Makefile", Line: 12, Format: "generic", Message: "make: *** [Makefile:12: build] Error 1"},
		{Path: "C:\\work\\app\\build.ps1", Line: 31, Format: "generic", Message: "At C:\\work\\app\\build.ps1:31 char:5"},
		{Path: "scripts/deploy.sh", Line: 7, Format: "generic", Message: "Error in script (scripts/deploy.sh:7)"},
	},
	"go_build.txt": {
		{Path: "./store/db.go", Line: 10, Col: 5, Format: "go-build", Pkg: "github.com/acme/proj/store", Message: "undefined: sqlOpen"},
		{Path: "./store/db.go", Line: 27, Col: 12, Format: "go-build", Pkg: "github.com/acme/proj/store", Message: "cannot use id (variable of type int) as string value in argument to lookup"},
		{Path: "store/cache.go", Line: 8, Col: 2, Format: "go-build", Pkg: "github.com/acme/proj/store", Message: "\"os\" imported and not used"},
		{Path: "main_test.go", Line: 14, Col: 9, Format: "go-build", Pkg: "github.com/acme/proj/cmd/tool", Message: "too many arguments in call to run"},
		{Path: "calc/format.go", Line: 33, Col: 2, Format: "go-build", Pkg: "github.com/acme/proj/calc", Message: "fmt.Printf format %d has arg name of wrong type string"},
	},
	"go_json.txt": {
		{Path: "calc_test.go", Line: 42, Func: "TestAdd", Format: "go-test", Pkg: "github.com/acme/proj/calc", Message: "got 1, want 2"},
		{Path: "calc_test.go", Line: 42, Func: "TestAdd", Format: "go-test", Pkg: "github.com/acme/proj/util", Message: "same file name, another package"},
	},
	// go_test_helper.txt and go_json_helper.txt are real runs (go 1.2x,
	// go test and go test -json): two tests fail at one helper's line that
	// has no t.Helper, each its own failure.
	"go_test_helper.txt": {
		{Path: "h_test.go", Line: 14, Func: "TestAddOne", Format: "go-test", Pkg: "example.com/h/h", Message: "got 0, want 2"},
		{Path: "h_test.go", Line: 14, Func: "TestAddTwo", Format: "go-test", Pkg: "example.com/h/h", Message: "got 0, want 4"},
	},
	"go_json_helper.txt": {
		{Path: "h_test.go", Line: 14, Func: "TestAddOne", Format: "go-test", Pkg: "example.com/h/h", Message: "got 0, want 2"},
		{Path: "h_test.go", Line: 14, Func: "TestAddTwo", Format: "go-test", Pkg: "example.com/h/h", Message: "got 0, want 4"},
	},
	"go_panic.txt": {
		{Path: "/usr/local/go/src/testing/testing.go", Line: 1631, Func: "testing.tRunner.func1.2", Format: "go-panic", Message: "panic: runtime error: integer divide by zero"},
		{Path: "/usr/local/go/src/testing/testing.go", Line: 1634, Func: "testing.tRunner.func1", Format: "go-panic", Frame: 1, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/usr/local/go/src/runtime/panic.go", Line: 770, Func: "panic", Format: "go-panic", Frame: 2, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/home/dev/proj/calc/calc.go", Line: 9, Func: "github.com/acme/proj/calc.Div", Format: "go-panic", Frame: 3, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/home/dev/proj/calc/calc_test.go", Line: 20, Func: "github.com/acme/proj/calc.TestDiv", Format: "go-panic", Frame: 4, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/usr/local/go/src/testing/testing.go", Line: 1689, Func: "testing.tRunner", Format: "go-panic", Frame: 5, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/usr/local/go/src/testing/testing.go", Line: 1742, Func: "testing.(*T).Run", Format: "go-panic", Frame: 6, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/usr/local/go/src/testing/testing.go", Line: 1750, Func: "testing.(*T).Run", Format: "go-panic", Frame: 7, Message: "panic: runtime error: integer divide by zero"},
		{Path: "/home/dev/proj/calc/server.go", Line: 88, Func: "github.com/acme/proj/calc.(*Server).loop", Format: "go-panic", Frame: 8, Message: "panic: runtime error: integer divide by zero"},
	},
	"go_race.txt": {
		{Path: "/home/dev/proj/counter/counter.go", Line: 12, Func: "github.com/acme/proj/counter.(*Counter).Inc", Format: "go-panic", Message: "WARNING: DATA RACE"},
		{Path: "/home/dev/proj/counter/counter_test.go", Line: 15, Func: "github.com/acme/proj/counter.TestCounter.func1", Format: "go-panic", Frame: 1, Message: "WARNING: DATA RACE"},
		{Path: "/home/dev/proj/counter/counter_test.go", Line: 14, Func: "github.com/acme/proj/counter.TestCounter", Format: "go-panic", Frame: 2, Message: "WARNING: DATA RACE"},
		{Path: "/usr/local/go/src/testing/testing.go", Line: 1689, Func: "testing.tRunner", Format: "go-panic", Frame: 3, Message: "WARNING: DATA RACE"},
		{Path: "testing.go", Line: 1398, Func: "TestCounter", Format: "go-test", Pkg: "github.com/acme/proj/counter", Message: "race detected during execution of test"},
	},
	"go_test.txt": {
		{Path: "calc_test.go", Line: 42, Func: "TestAdd", Format: "go-test", Pkg: "github.com/acme/proj/calc", Message: "got 1, want 2"},
		{Path: "calc_test.go", Line: 58, Func: "TestTable/negative", Format: "go-test", Pkg: "github.com/acme/proj/calc", Message: "Sub(-1, 2) = 1, want -3"},
		{Path: "calc_test.go", Line: 71, Func: "TestEqual", Format: "go-test", Pkg: "github.com/acme/proj/calc", Message: "Not equal:"},
		{Path: "/home/dev/proj/calc/calc_test.go", Line: 71, Format: "generic", Message: "Error Trace:\t/home/dev/proj/calc/calc_test.go:71"},
		{Path: "parse_test.go", Line: 12, Func: "TestParse", Format: "go-test", Pkg: "github.com/acme/proj/internal/parse", Message: "unexpected token \"}\" at offset 3"},
		{Path: "calc_test.go", Line: 42, Func: "TestParse", Format: "go-test", Pkg: "github.com/acme/proj/internal/parse", Message: "same name, other package"},
	},
	"jest.txt": {
		{Path: "src/calc.test.ts", Line: 12, Col: 25, Func: "Object.<anonymous>", Format: "jest", Message: "expect(received).toBe(expected) // Object.is equality"},
		{Path: "src/calc.ts", Line: 4, Col: 12, Func: "div", Format: "jest", Message: "TypeError: Cannot read properties of undefined (reading 'x')"},
		{Path: "src/calc.test.ts", Line: 20, Col: 5, Func: "Object.<anonymous>", Format: "jest", Frame: 1, Message: "TypeError: Cannot read properties of undefined (reading 'x')"},
		{Path: "/home/dev/app/src/bad.test.ts", Line: 3, Col: 10, Format: "jest", Message: "SyntaxError: /home/dev/app/src/bad.test.ts: Unexpected token (3:10)"},
	},
	"node.txt": {
		{Path: "/home/dev/app/src/server.js", Line: 42, Col: 11, Func: "handler", Format: "node", Message: "Error: boom: /api/users"},
		{Path: "/home/dev/app/node_modules/express/lib/router/layer.js", Line: 95, Col: 5, Func: "Layer.handle", Format: "node", Frame: 1, Message: "Error: boom: /api/users"},
		{Path: "/home/dev/app/src/routes.js", Line: 10, Col: 15, Format: "node", Frame: 2, Message: "Error: boom: /api/users"},
		{Path: "/home/dev/app/src/users.mjs", Line: 3, Col: 1, Func: "loadUser", Format: "node", Message: "[worker] TypeError: Cannot read properties of undefined (reading 'id')"},
		{Path: "./src/client/index.ts", Line: 17, Col: 9, Func: "Object.<anonymous>", Format: "node", Frame: 1, Message: "[worker] TypeError: Cannot read properties of undefined (reading 'id')"},
		{Path: "./src/client/view.tsx", Line: 5, Col: 3, Func: "render", Format: "node", Frame: 2, Message: "[worker] TypeError: Cannot read properties of undefined (reading 'id')"},
	},
	"dotnet.txt": {
		{Path: "/home/runner/work/billing/billing/tests/Acme.Billing.Tests/InvoiceTests.cs", Line: 24, Func: "Acme.Billing.Tests.InvoiceTests.TotalIncludesTax", Format: "dotnet", Message: "Assert.Equal() Failure: Values differ"},
		{Path: "/home/runner/work/billing/billing/src/Acme.Billing/InvoiceService.cs", Line: 42, Func: "Acme.Billing.InvoiceService.Total", Format: "dotnet", Message: "Unhandled exception. System.InvalidOperationException: Sequence contains no elements"},
		{Path: "C:\\src\\billing\\src\\Acme.Billing\\Program.cs", Line: 12, Func: "Acme.Billing.Program.Main", Format: "dotnet", Frame: 1, Message: "Unhandled exception. System.InvalidOperationException: Sequence contains no elements"},
	},
	"java.txt": {
		{Path: "org/junit/jupiter/api/AssertionFailureBuilder.java", Line: 151, Func: "org.junit.jupiter.api.AssertionFailureBuilder.build", Format: "java", Message: "org.opentest4j.AssertionFailedError: expected: <110.0> but was: <107.0>"},
		{Path: "org/junit/jupiter/api/AssertEquals.java", Line: 70, Func: "org.junit.jupiter.api.AssertEquals.assertEquals", Format: "java", Frame: 1, Message: "org.opentest4j.AssertionFailedError: expected: <110.0> but was: <107.0>"},
		{Path: "com/acme/billing/InvoiceTest.java", Line: 24, Func: "com.acme.billing.InvoiceTest.totalIncludesTax", Format: "java", Frame: 2, Message: "org.opentest4j.AssertionFailedError: expected: <110.0> but was: <107.0>"},
		{Path: "java/lang/reflect/Method.java", Line: 580, Func: "java.lang.reflect.Method.invoke", Format: "java", Frame: 3, Message: "org.opentest4j.AssertionFailedError: expected: <110.0> but was: <107.0>"},
		{Path: "com/acme/billing/InvoiceService.java", Line: 31, Func: "com.acme.billing.InvoiceService.send", Format: "java", Message: "Exception in thread \"main\" java.lang.IllegalStateException: could not price order 7"},
		{Path: "com/acme/App.java", Line: 9, Func: "com.acme.App.main", Format: "java", Frame: 1, Message: "Exception in thread \"main\" java.lang.IllegalStateException: could not price order 7"},
		{Path: "java/lang/NumberFormatException.java", Line: 67, Func: "java.lang.NumberFormatException.forInputString", Format: "java", Message: "java.lang.NumberFormatException: For input string: \"x\""},
		{Path: "java/lang/Integer.java", Line: 662, Func: "java.lang.Integer.parseInt", Format: "java", Frame: 1, Message: "java.lang.NumberFormatException: For input string: \"x\""},
		{Path: "com/acme/billing/Invoice.java", Line: 42, Func: "com.acme.billing.Invoice$Line.quantity", Format: "java", Frame: 2, Message: "java.lang.NumberFormatException: For input string: \"x\""},
		{Path: "com/acme/billing/InvoiceService.java", Line: 28, Func: "com.acme.billing.InvoiceService.send", Format: "java", Frame: 3, Message: "java.lang.NumberFormatException: For input string: \"x\""},
	},
	"laravel_log.txt": {
		{Path: "/var/www/app/app/Http/Controllers/CheckoutController.php", Line: 42, Format: "php", Message: "Error: Call to a member function total() on null"},
		{Path: "/var/www/app/vendor/laravel/framework/src/Illuminate/Routing/Controller.php", Line: 54, Func: "App\\Http\\Controllers\\CheckoutController->store", Format: "php", Frame: 1, Message: "Error: Call to a member function total() on null"},
		{Path: "/var/www/app/vendor/laravel/framework/src/Illuminate/Routing/ControllerDispatcher.php", Line: 43, Func: "Illuminate\\Routing\\Controller->callAction", Format: "php", Frame: 2, Message: "Error: Call to a member function total() on null"},
		{Path: "/var/www/app/app/Http/Middleware/EnsureCartIsFresh.php", Line: 19, Func: "Illuminate\\Routing\\ControllerDispatcher->dispatch", Format: "php", Frame: 3, Message: "Error: Call to a member function total() on null"},
	},
	"laravel_test.txt": {
		{Path: "app/Services/PriceCalculator.php", Line: 18, Format: "laravel", Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
		{Path: "app/Http/Controllers/CheckoutController.php", Line: 42, Format: "laravel", Frame: 1, Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
		{Path: "tests/Feature/CheckoutTest.php", Line: 25, Format: "laravel", Frame: 2, Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
	},
	"minitest.txt": {
		{Path: "test/models/order_test.rb", Line: 9, Func: "OrderTest#test_total", Format: "ruby", Message: "Expected: 110"},
		{Path: "app/models/order.rb", Line: 21, Func: "discount", Format: "ruby", Message: "NoMethodError: undefined method `price' for nil"},
		{Path: "test/models/order_test.rb", Line: 15, Func: "block in <class:OrderTest>", Format: "ruby", Frame: 1, Message: "NoMethodError: undefined method `price' for nil"},
	},
	"php_fatal.txt": {
		{Path: "/var/www/app/app/Http/Controllers/UserController.php", Line: 50, Format: "php", Message: "Fatal error: Uncaught Error: Call to undefined method App\\Models\\User::fullName()"},
		{Path: "/var/www/app/vendor/laravel/framework/src/Illuminate/Routing/Controller.php", Line: 54, Func: "App\\Http\\Controllers\\UserController->show", Format: "php", Frame: 1, Message: "Fatal error: Uncaught Error: Call to undefined method App\\Models\\User::fullName()"},
		{Path: "/var/www/app/vendor/laravel/framework/src/Illuminate/Routing/ControllerDispatcher.php", Line: 43, Func: "Illuminate\\Routing\\Controller->callAction", Format: "php", Frame: 2, Message: "Fatal error: Uncaught Error: Call to undefined method App\\Models\\User::fullName()"},
		{Path: "/var/www/app/routes/web.php", Line: 21, Func: "Illuminate\\Routing\\ControllerDispatcher->dispatch", Format: "php", Frame: 3, Message: "Fatal error: Uncaught Error: Call to undefined method App\\Models\\User::fullName()"},
		{Path: "/var/www/app/app/Services/PriceCalculator.php", Line: 27, Format: "php", Message: "Warning: Undefined array key \"tax\""},
	},
	"phpunit.txt": {
		{Path: "/var/www/app/app/Services/PriceCalculator.php", Line: 18, Format: "phpunit", Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
		{Path: "/var/www/app/app/Http/Controllers/CheckoutController.php", Line: 42, Format: "phpunit", Frame: 1, Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
		{Path: "/var/www/app/vendor/laravel/framework/src/Illuminate/Routing/Controller.php", Line: 54, Format: "phpunit", Frame: 2, Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
		{Path: "/var/www/app/tests/Feature/CheckoutTest.php", Line: 25, Format: "phpunit", Frame: 3, Message: "TypeError: App\\Services\\PriceCalculator::total(): Argument #1 ($items) must be of type array, null given, called in /var/www/app/app/Http/Controllers/CheckoutController.php on line 42"},
		{Path: "/var/www/app/tests/Unit/OrderTest.php", Line: 31, Format: "phpunit", Message: "Failed asserting that 107.0 is identical to 110.0."},
	},
	"ruby.txt": {
		{Path: "/home/runner/work/shop/shop/app/models/order.rb", Line: 12, Func: "Order#total", Format: "ruby", Message: "undefined method 'price' for nil (NoMethodError)"},
		{Path: "/home/runner/work/shop/shop/app/controllers/orders_controller.rb", Line: 8, Func: "OrdersController#show", Format: "ruby", Frame: 1, Message: "undefined method 'price' for nil (NoMethodError)"},
		{Path: "/usr/local/bundle/gems/actionpack-7.1.3/lib/action_controller/metal/basic_implicit_render.rb", Line: 6, Func: "send_action", Format: "ruby", Frame: 2, Message: "undefined method 'price' for nil (NoMethodError)"},
		{Path: "./app/models/order.rb", Line: 14, Func: "total", Format: "ruby", Message: "expect(order.total).to eq(110)"},
		{Path: "./spec/models/order_spec.rb", Line: 9, Func: "block (2 levels) in <top (required)>", Format: "ruby", Frame: 1, Message: "expect(order.total).to eq(110)"},
		{Path: "./spec/models/order_spec.rb", Line: 7, Func: "Order#total includes tax", Format: "ruby", Summary: true, Message: ""},
	},
	"pytest.txt": {
		{Path: "tests/test_calc.py", Line: 7, Func: "test_add", Format: "pytest", Message: "assert 3 == 4"},
		{Path: "tests/test_parse.py", Line: 5, Func: "test_parse", Format: "pytest", Frame: 1, Message: "ValueError: bad value: x"},
		{Path: "src/app/parse.py", Line: 4, Func: "parse", Format: "pytest", Message: "ValueError: bad value: x"},
		{Path: "tests/test_calc.py", Line: 0, Func: "test_add", Format: "pytest", Summary: true, Message: "assert 3 == 4"},
		{Path: "tests/test_parse.py", Line: 0, Func: "test_parse", Format: "pytest", Summary: true, Message: "ValueError: bad value: x"},
	},
	// pytest_real.txt and pytest_short_real.txt are real runs (pytest
	// 7.2.1, default and --tb=short -q): two failures, one through a
	// helper in app/calc.py.
	"pytest_real.txt": {
		{Path: "tests/test_calc.py", Line: 5, Func: "test_add_one", Format: "pytest", Frame: 1, Message: "AssertionError: got 0, want 2"},
		{Path: "app/calc.py", Line: 6, Func: "check", Format: "pytest", Message: "AssertionError: got 0, want 2"},
		{Path: "tests/test_calc.py", Line: 9, Func: "test_add_two", Format: "pytest", Message: "assert 0 == 4"},
		{Path: "tests/test_calc.py", Line: 0, Func: "test_add_one", Format: "pytest", Summary: true, Message: "AssertionError: got 0, want 2"},
	},
	"pytest_short_real.txt": {
		{Path: "tests/test_calc.py", Line: 5, Func: "test_add_one", Format: "pytest", Frame: 1, Message: "AssertionError: got 0, want 2"},
		{Path: "app/calc.py", Line: 6, Func: "check", Format: "pytest", Message: "AssertionError: got 0, want 2"},
		{Path: "tests/test_calc.py", Line: 9, Func: "test_add_two", Format: "pytest", Message: "assert 0 == 4"},
		{Path: "tests/test_calc.py", Line: 0, Func: "test_add_one", Format: "pytest", Summary: true, Message: "AssertionError: got 0, want 2"},
	},
	"pytest_short.txt": {
		{Path: "tests/test_render.py", Line: 21, Func: "test_render", Format: "pytest", Frame: 1, Message: "KeyError: 'name'"},
		{Path: "src/app/render.py", Line: 48, Func: "render", Format: "pytest", Message: "KeyError: 'name'"},
		{Path: "tests/test_db.py", Line: 3, Func: "<module>", Format: "pytest", Message: "ModuleNotFoundError: No module named 'psycopg'"},
		{Path: "tests/test_render.py", Line: 0, Func: "test_render", Format: "pytest", Summary: true, Message: "KeyError: 'name'"},
		{Path: "tests/test_db.py", Line: 0, Format: "pytest", Summary: true, Message: ""},
	},
	"python.txt": {
		{Path: "/srv/app/main.py", Line: 42, Func: "<module>", Format: "python", Frame: 2, Message: "ValueError: bad input: expected object"},
		{Path: "/srv/app/handlers.py", Line: 12, Func: "handler", Format: "python", Frame: 1, Message: "ValueError: bad input: expected object"},
		{Path: "/usr/lib/python3.11/json/__init__.py", Line: 346, Func: "loads", Format: "python", Message: "ValueError: bad input: expected object"},
		{Path: "/srv/app/main.py", Line: 44, Func: "<module>", Format: "python", Frame: 1, Message: "RuntimeError: report failed"},
		{Path: "/srv/app/report.py", Line: 7, Func: "report", Format: "python", Message: "RuntimeError: report failed"},
	},
	"python_syntax.txt": {
		{Path: "/srv/app/__main__.py", Line: 3, Func: "<module>", Format: "python", Frame: 1, Message: "SyntaxError: invalid syntax. Maybe you meant '==' or ':=' instead of '='?"},
		{Path: "/srv/app/config.py", Line: 7, Format: "python", Message: "SyntaxError: invalid syntax. Maybe you meant '==' or ':=' instead of '='?"},
		{Path: "scripts/migrate.py", Line: 19, Format: "python", Message: "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?"},
	},
	"rustc.txt": {
		{Path: "src/main.rs", Line: 10, Col: 5, Format: "rustc", Message: "error[E0308]: mismatched types"},
		{Path: "src/lib.rs", Line: 3, Col: 1, Format: "rustc", Frame: 1, Message: "error[E0308]: mismatched types"},
		{Path: "src/util.rs", Line: 3, Col: 9, Format: "rustc", Message: "warning: unused variable: `y`"},
		{Path: "src/lib.rs", Line: 20, Col: 9, Func: "tests::it_works", Format: "rustc", Message: "assertion `left == right` failed"},
		{Path: "/rustc/9b00956e56009bab2aa15d7bff10916599e3d6d6/library/std/src/panicking.rs", Line: 645, Col: 5, Func: "rust_begin_unwind", Format: "rustc", Message: "assertion `left == right` failed"},
		{Path: "./src/lib.rs", Line: 20, Col: 9, Func: "demo::tests::it_works", Format: "rustc", Frame: 1, Message: "assertion `left == right` failed"},
		{Path: "src/main.rs", Line: 4, Col: 5, Func: "main", Format: "rustc", Message: "index out of bounds: the len is 3 but the index is 5"},
	},
	"tsc.txt": {
		{Path: "src/a.ts", Line: 10, Col: 5, Format: "tsc", Message: "error TS2322: Type 'string' is not assignable to type 'number'."},
		{Path: "src/lib/b.ts", Line: 3, Col: 14, Format: "tsc", Message: "error TS2307: Cannot find module './c' or its corresponding type declarations."},
		{Path: "src/views/list.tsx", Line: 27, Col: 3, Format: "tsc", Message: "error TS2741: Property 'key' is missing in type '{ id: string; }' but required in type 'Props'."},
	},
}

// TestParseSamples checks every ref of every realistic sample: path, line,
// column, function, format, frame, package and message.
func TestParseSamples(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			want, ok := sampleWant[name]
			if !ok {
				t.Fatalf("no expectations for %s", name)
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkRefs(t, Parse(string(b)), want)
			// The same output with Windows line endings parses the same.
			crlf := strings.ReplaceAll(string(b), "\n", "\r\n")
			checkRefs(t, Parse(crlf), want)
		})
	}
	if len(files) != len(sampleWant) {
		t.Errorf("%d samples, %d expectations", len(files), len(sampleWant))
	}
}

// checkRefs compares refs one by one, so a failure names the field.
func checkRefs(t *testing.T, got, want []Ref) {
	t.Helper()
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			t.Errorf("ref %d missing: want %+v", i, want[i])
		case i >= len(want):
			t.Errorf("ref %d unexpected: %+v", i, got[i])
		case withoutFailure(got[i]) != want[i]:
			t.Errorf("ref %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// withoutFailure is r with Failure cleared: the tables above leave it to
// sampleFailures, which lists it for every ref of a sample at a glance.
func withoutFailure(r Ref) Ref {
	r.Failure = 0
	return r
}

// sampleFailures is the Failure of every ref Parse returns for each
// sample: the refs of one error, traceback, panic (all its goroutines) or
// test failure share a number, and a new one starts with each.
var sampleFailures = map[string][]int{
	"dotnet.txt":                    {1, 2, 2},
	"eslint.txt":                    {1, 2, 3},
	"eslint_real.txt":               {1, 2, 3},
	"tsc_real.txt":                  {1},
	"cargo_test_backtrace_real.txt": {1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2},
	"cargo_test_real.txt":           {1, 2},
	"javac_real.txt":                {1},
	"vitest_real.txt":               {1, 1, 2},
	"gcc.txt":                       {1, 1, 2, 3, 4, 4, 5},
	"generic.txt":                   {1, 2, 3, 4, 5},
	"go_build.txt":                  {1, 2, 3, 4, 5},
	"go_json.txt":                   {1, 2},
	"go_json_helper.txt":            {1, 2},
	"go_test_helper.txt":            {1, 2},
	"go_panic.txt":                  {1, 1, 1, 1, 1, 1, 1, 1, 1},
	"go_race.txt":                   {1, 1, 1, 1, 2},
	"go_test.txt":                   {1, 2, 3, 4, 5, 6},
	"java.txt":                      {1, 1, 1, 1, 2, 2, 3, 3, 3, 3},
	"jest.txt":                      {1, 2, 2, 3},
	"laravel_log.txt":               {1, 1, 1, 1},
	"laravel_test.txt":              {1, 1, 1},
	"minitest.txt":                  {1, 2, 2},
	"node.txt":                      {1, 1, 1, 2, 2, 2},
	"php_fatal.txt":                 {1, 1, 1, 1, 2},
	"phpunit.txt":                   {1, 1, 1, 1, 2},
	"pytest.txt":                    {1, 2, 2, 1, 2}, // the short test summary repeats failures, adds none
	"pytest_short.txt":              {1, 1, 2, 1, 2},
	"pytest_real.txt":               {1, 1, 2, 1},
	"pytest_short_real.txt":         {1, 1, 2, 1},
	"python.txt":                    {1, 1, 1, 2, 2},
	"python_syntax.txt":             {1, 1, 2},
	"ruby.txt":                      {1, 1, 1, 2, 2, 3},
	"rustc.txt":                     {1, 1, 2, 3, 3, 3, 4},
	"tsc.txt":                       {1, 2, 4},
}

// TestParseFailures checks how each sample's refs group into failures.
func TestParseFailures(t *testing.T) {
	for name, want := range sampleFailures {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range Parse(string(b)) {
			got = append(got, r.Failure)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: failures %v, want %v", name, got, want)
		}
	}
	if files, _ := filepath.Glob("testdata/*.txt"); len(files) != len(sampleFailures) {
		t.Errorf("%d samples, %d failure lists", len(files), len(sampleFailures))
	}
}
