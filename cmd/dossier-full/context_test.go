package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// writeTree writes files under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goFuncs is a Go file of n functions with bodies, which an outline
// shortens to their signatures.
func goFuncs(pkg, prefix string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "// %s%d sums the numbers it is given and reports how many there were.\nfunc %s%d(xs []int) (int, int) {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x * %d\n\t}\n\treturn total, len(xs)\n}\n\n", prefix, i, prefix, i, i+1)
	}
	return b.String()
}

type planJSON struct {
	TotalTokens int    `json:"total_tokens"`
	Encoding    string `json:"encoding"`
	Parts       []struct {
		Rank, Kind, Role, Status, Detail, Span string
		Tokens                                 int
	} `json:"parts"`
}

func readPlan(t *testing.T, r string) planJSON {
	t.Helper()
	var pl planJSON
	if err := json.Unmarshal([]byte(must(t, "evidence", "plan", r)), &pl); err != nil {
		t.Fatal(err)
	}
	return pl
}

func (pl planJSON) part(rank string) (status, detail string, tokens int) {
	for _, p := range pl.Parts {
		if p.Rank == rank {
			return p.Status, p.Detail, p.Tokens
		}
	}
	return "", "", -1
}

// TestFitByBand: fit takes the lowest-priority band from full text to an
// outline and to a one-line path mention before it touches a higher band,
// so with a budget the peripheral band alone can meet, the critical and
// supporting parts stay whole; the path-only parts cost exactly their
// one-line mention through the assembler's tokenizer.
func TestFitByBand(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"core/core.go":      goFuncs("core", "Core", 6),
		"core/core_test.go": goFuncs("core", "TestCore", 3),
		"periph/a.go":       goFuncs("periph", "A", 8),
		"periph/b.go":       goFuncs("periph", "B", 8),
	})
	r := "--root=" + root
	must(t, "flow", "new", "fit by band", r, "--request", "Make the sums overflow-safe.")
	must(t, "evidence", "add", "core/core.go", r)
	must(t, "evidence", "add", "core/core_test.go", "--band", "supporting", r)
	must(t, "evidence", "add", "periph/a.go", "periph/b.go", "--band", "peripheral", r)
	full := readPlan(t, r)
	c, err := tokens.ForEncoding(full.Encoding)
	if err != nil {
		t.Fatal(err)
	}
	mention := func(path string) int {
		return c.Count("## Evidence: " + path + " <!-- span=all; detail=path -->\n\n")
	}
	_, _, a := full.part("300")
	_, _, b := full.part("310")
	// Both peripheral parts as path mentions meet the budget exactly.
	target := full.TotalTokens - (a - mention("periph/a.go")) - (b - mention("periph/b.go"))
	out := must(t, "evidence", "fit", fmt.Sprint(target), r)
	pl := readPlan(t, r)
	for _, rank := range []string{"100", "200"} {
		if st, d, _ := pl.part(rank); st != "active" || d != "" {
			t.Errorf("part %s: %s %q: fit touched a higher band while the peripheral one could meet the budget\n%s", rank, st, d, out)
		}
	}
	for rank, path := range map[string]string{"300": "periph/a.go", "310": "periph/b.go"} {
		if st, d, n := pl.part(rank); st != "active" || d != "path" || n != mention(path) {
			t.Errorf("part %s: %s %q %d tokens, want active, path only, %d tokens (its one-line mention)\n%s", rank, st, d, n, mention(path), out)
		}
	}
	if pl.TotalTokens != target {
		t.Errorf("after fit: %d tokens, want exactly %d\n%s", pl.TotalTokens, target, out)
	}
	if i, j := strings.Index(out, "310_b_go"), strings.Index(out, "300_a_go"); i < 0 || j < 0 || i > j {
		t.Errorf("fit did not start at the highest rank:\n%s", out)
	}

	// A tighter budget skips the peripheral band, then starts on the
	// supporting one; the critical part is the last touched.
	must(t, "evidence", "fit", "off", r)
	_, _, crit := full.part("100")
	out = must(t, "evidence", "fit", fmt.Sprint(full.TotalTokens-a-b-1), r)
	pl = readPlan(t, r)
	if st, d, _ := pl.part("100"); st != "active" || d != "" {
		t.Errorf("critical part: %s %q (%d tokens) touched before the supporting band was used up\n%s", st, d, crit, out)
	}
	if st, _, _ := pl.part("300"); st != "skipped" {
		t.Errorf("peripheral part 300 is %s, want skipped\n%s", st, out)
	}
	if _, d, _ := pl.part("200"); d == "" {
		t.Errorf("supporting part untouched though the budget needs it\n%s", out)
	}
}

// gatherWorkspace is a small Go module: parser.Parse calls store.Open and
// a helper of its own file; store.go holds other functions Parse never
// uses, and parse_test.go tests Parse and another function.
func gatherWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"store/store.go": `package store

// Open opens the named store.
func Open(name string) string {
	return "store:" + name
}

` + strings.TrimPrefix(goFuncs("store", "Unused", 6), "package store\n\n"),
		"parser/parse.go": `package parser

import "example.com/m/store"

// Parse reads one expression from the named store (Unused0 does not).
func Parse(src string) string {
	db := store.Open(src)
	return normalize(db)
}

func normalize(s string) string {
	return s + "!"
}

` + strings.TrimPrefix(goFuncs("parser", "Other", 5), "package parser\n\n"),
		"parser/parse_test.go": `package parser

import "testing"

func TestParse(t *testing.T) {
	if Parse("x") == "" {
		t.Fatal("empty")
	}
}

func TestOther(t *testing.T) {
	if n, _ := Other0(nil); n != 0 {
		t.Fatal(n)
	}
}
`,
	})
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	must(t, "flow", "new", "gather spans", "--root", root, "--request", "Fix Parse.")
	return root
}

// TestGatherAddsSymbolSpans: gather adds imports, callees and tests as the
// spans of the symbols the target uses or that test it, never a whole
// file and never the target's own file again; what a part already holds
// is not added twice, and `evidence add` of it names the part.
func TestGatherAddsSymbolSpans(t *testing.T) {
	root := gatherWorkspace(t)
	r := "--root=" + root
	out := must(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", r)
	pl := readPlan(t, r)
	spans := map[string]bool{}
	for _, p := range pl.Parts {
		if p.Role != "evidence" {
			continue
		}
		if p.Span == "all" {
			t.Errorf("gather added a whole file: %s_%s\n%s", p.Rank, p.Kind, out)
		}
		spans[p.Kind+" "+p.Span] = true
	}
	for _, want := range []string{
		"parse_go_parse lines=5:9",          // the target
		"store_go_open lines=3:6",           // store.Open, imported and called
		"parse_go_normalize lines=11:13",    // normalize, a callee in the target's file
		"parse_test_go_testparse lines=5:9", // TestParse
	} {
		if !spans[want] {
			t.Errorf("missing part %q; parts: %v\n%s", want, spans, out)
		}
	}
	if len(spans) != 4 {
		t.Errorf("want exactly the 4 spans above, got %v\n%s", spans, out)
	}

	// Adding what a part holds names the part, and adds nothing.
	_, errOut, code := runCLI(t, "evidence", "add", "store/store.go::4,5", r)
	if code == 0 || !strings.Contains(errOut, "already in the flow as ") || !strings.Contains(errOut, "(lines 3-6)") {
		t.Errorf("add of a covered span: exit %d %s", code, errOut)
	}
	// In a batch, one covered selector adds nothing at all.
	before := tree(t, flowDir(t, root))
	_, errOut, code = runCLI(t, "evidence", "add", "parser/parse.go::20,22", "parser/parse.go::6,7", r)
	if code == 0 || !strings.Contains(errOut, "parser/parse.go::6,7 is already in the flow as 100_parse_go_parse") || tree(t, flowDir(t, root)) != before {
		t.Errorf("a batch with a covered selector: exit %d %s", code, errOut)
	}
	// A second gather finds everything in the flow.
	out = must(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", r)
	if !strings.Contains(out, "Added 0 part(s)") {
		t.Errorf("second gather added parts:\n%s", out)
	}
	// --whole takes imports and tests whole, as asked.
	out = must(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", "--whole", r)
	if !strings.Contains(out, "store/store.go") || !strings.Contains(out, "parser/parse_test.go") {
		t.Errorf("gather --whole:\n%s", out)
	}
}

// TestFromOutputGoPanic: a panic in a test run on a CI runner becomes the
// diagnostics part every format carries; the panic site ranks critical
// above the test that found it, and the runner's paths map to the
// workspace, which the part notes.
func TestFromOutputGoPanic(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod": "module github.com/acme/proj\n\ngo 1.22\n",
		"calc/calc.go": `package calc

// Div divides a by b.
func Div(a, b int) int {
	if a == 0 {
		return 0
	}
	q := a / b
	return q
}
`,
		"calc/calc_test.go": `package calc

import "testing"

// TestDiv divides by zero, as a caller might.
func TestDiv(t *testing.T) {
	if Div(4, 2) != 2 {
		t.Fatal("4/2")
	}
	for _, b := range []int{1, 0} {
		_ = Div(1, b)
	}
	t.Log("done")
	_ = Div(9, 3)
	_ = Div(8, 4)
	_ = Div(6, 3)
	_ = Div(1, 0)
	_ = Div(2, 1)
	_ = Div(4, 1)
	_ = Div(3, 1)
}
`,
	})
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	r := "--root=" + root
	must(t, "flow", "new", "div", r, "--request", "Fix the crash.")
	raw, err := os.ReadFile(filepath.Join("..", "..", "evidence", "trace", "testdata", "go_panic.txt"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "ci.log")
	os.WriteFile(log, []byte(strings.ReplaceAll(string(raw), "/home/dev/proj/", "/home/runner/work/proj/proj/")), 0o644)
	out := must(t, "evidence", "from-output", log, r)
	pl := readPlan(t, r)
	kinds := map[string]string{}
	for _, p := range pl.Parts {
		kinds[p.Rank] = p.Kind + " " + p.Role + " " + p.Span
	}
	if kinds["020"] != "diagnostics user " || !strings.HasPrefix(kinds["100"], "calc_go_div evidence") || !strings.HasPrefix(kinds["200"], "calc_test_go_testdiv evidence") {
		t.Errorf("want the diagnostics at 020, the panic site (Div) at 100, the test at 200; got %v\n%s", kinds, out)
	}
	if !strings.Contains(out, "mapped /home/runner/work/proj/proj/calc/calc.go -> calc/calc.go") {
		t.Errorf("the mapping is not reported:\n%s", out)
	}
	for _, format := range []string{"mdctx", "aptix", "responses", "pack"} {
		text := must(t, "assemble", "--format", format, r)
		if !strings.Contains(text, "integer divide by zero") || !strings.Contains(text, "calc/calc.go") {
			t.Errorf("%s lacks the error text or its site:\n%s", format, text)
		}
	}
	md := must(t, "assemble", r)
	if !strings.Contains(md, "   - `calc/calc.go:9` in github.com/acme/proj/calc.Div — failing site, 100_calc_go_div\n") ||
		!strings.Contains(md, "- mapped /home/runner/work/proj/proj/calc/calc.go -> calc/calc.go") {
		t.Errorf("the diagnostics part:\n%s", md)
	}
	// Reading output again rewrites the diagnostics part in place.
	must(t, "evidence", "from-output", log, r)
	n := 0
	for _, p := range readPlan(t, r).Parts {
		if p.Kind == "diagnostics" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d diagnostics parts after a second read, want 1", n)
	}
	// A skipped diagnostics part stays skipped, and the output says so.
	must(t, "evidence", "toggle", "off", "020", r)
	if out = must(t, "evidence", "from-output", log, r); !strings.Contains(out, "020_diagnostics is skipped: `dossier evidence toggle on 020_diagnostics`") {
		t.Errorf("a skipped diagnostics part is not named:\n%s", out)
	}
}

// TestFromOutputPHPContainer: a PHP fatal error printed inside a container
// (/var/www/app/...) maps to the workspace; the throwing controller ranks
// critical, the route that led there supporting, the framework's vendor
// frames are left out, and the note names the mapping.
func TestFromOutputPHPContainer(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	var ctrl strings.Builder
	ctrl.WriteString("<?php\n\nnamespace App\\Http\\Controllers;\n\nuse App\\Models\\User;\nuse Illuminate\\Http\\Request;\n\nclass UserController extends Controller\n{\n")
	for i := 10; i < 46; i++ {
		fmt.Fprintf(&ctrl, "    // line %d\n", i)
	}
	ctrl.WriteString("    public function show(Request $request, string $id)\n    {\n        $user = User::findOrFail($id);\n\n")
	ctrl.WriteString("        $name = $user->fullName();\n\n        return view('users.show', ['user' => $user, 'name' => $name]);\n    }\n}\n")
	writeTree(t, root, map[string]string{
		"app/Http/Controllers/UserController.php": ctrl.String(),
		"routes/web.php": "<?php\n\nuse App\\Http\\Controllers\\UserController;\nuse Illuminate\\Support\\Facades\\Route;\n\n" +
			strings.Repeat("// route notes\n", 15) + "Route::get('/users/{id}', [UserController::class, 'show']);\n",
	})
	if line := strings.Count(ctrl.String()[:strings.Index(ctrl.String(), "$name = ")], "\n") + 1; line != 50 {
		t.Fatalf("the fixture's call is on line %d, want 50", line)
	}
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	r := "--root=" + root
	must(t, "flow", "new", "users", r, "--request", "Fix the profile page.")
	log := filepath.Join("..", "..", "evidence", "trace", "testdata", "php_fatal.txt")
	out := must(t, "evidence", "from-output", log, r)
	pl := readPlan(t, r)
	var critical, supporting []string
	for _, p := range pl.Parts {
		switch p.Rank[0] {
		case '1':
			critical = append(critical, p.Kind)
		case '2':
			supporting = append(supporting, p.Kind)
		}
	}
	if len(critical) != 1 || !strings.HasPrefix(critical[0], "usercontroller_php") || len(supporting) != 1 || !strings.HasPrefix(supporting[0], "web_php") {
		t.Errorf("critical %v, supporting %v\n%s", critical, supporting, out)
	}
	for _, want := range []string{
		"mapped /var/www/app/app/Http/Controllers/UserController.php -> app/Http/Controllers/UserController.php",
		"mapped /var/www/app/routes/web.php -> routes/web.php",
		"left out 3 location(s): 1 outside the workspace, 2 in dependencies or the toolchain",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, format := range []string{"mdctx", "aptix", "responses", "pack"} {
		text := must(t, "assemble", "--format", format, r)
		if !strings.Contains(text, `Call to undefined method App`) || !strings.Contains(text, "fullName()") {
			t.Errorf("%s lacks the error:\n%s", format, text)
		}
	}
	md := must(t, "assemble", r)
	if !strings.Contains(md, "- mapped /var/www/app/app/Http/Controllers/UserController.php -> app/Http/Controllers/UserController.php") ||
		!strings.Contains(md, "Undefined array key") {
		t.Errorf("the diagnostics part:\n%s", md)
	}
}

// TestGatherPHPImport: a Laravel controller's `use App\Models\User;` adds
// the User method the action calls, not the model file whole nor its
// other methods.
func TestGatherPHPImport(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"composer.json": `{"autoload": {"psr-4": {"App\\": "app/"}}}` + "\n",
		"app/Models/User.php": `<?php

namespace App\Models;

use Illuminate\Database\Eloquent\Model;

class User extends Model
{
    protected $fillable = ['first', 'last'];

    public function fullName(): string
    {
        return $this->first . ' ' . $this->last;
    }

    public function initials(): string
    {
        return $this->first[0] . $this->last[0];
    }
}
`,
		"app/Http/Controllers/UserController.php": `<?php

namespace App\Http\Controllers;

use App\Models\User;
use Illuminate\Http\Request;

class UserController extends Controller
{
    public function show(Request $request, string $id)
    {
        $user = User::findOrFail($id);

        return view('users.show', ['name' => $user->fullName()]);
    }

    public function index()
    {
        return view('users.index', ['users' => User::all()]);
    }
}
`,
	})
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	r := "--root=" + root
	must(t, "flow", "new", "users", r)
	out := must(t, "evidence", "gather", "fix", "app/Http/Controllers/UserController.php::@show", r)
	var spans []string
	for _, p := range readPlan(t, r).Parts {
		if p.Role == "evidence" {
			spans = append(spans, p.Kind+" "+p.Span)
		}
	}
	want := []string{"usercontroller_php_show lines=10:15", "user_php_user_fullname lines=11:14"}
	if !slices.Equal(spans, want) {
		t.Errorf("parts %q, want %q\n%s", spans, want, out)
	}
}

// TestAskMissingOnSpans: a search hit that a part holds only in part is
// still missing its rest, and is offered as its symbol's span; one a part
// holds whole is not.
func TestAskMissingOnSpans(t *testing.T) {
	root := gatherWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "parser/parse.go::6,7", r)
	out := must(t, "ask", "what is missing for parse expression named store", r)
	if !strings.Contains(out, "parser/parse.go::5,9") {
		t.Errorf("the Parse chunk, held only in part, is not offered:\n%s", out)
	}
	must(t, "evidence", "add", "parser/parse.go::5,9", "--force", r)
	out = must(t, "ask", "what is missing for parse expression named store", r)
	if strings.Contains(out, "parser/parse.go::5,9") {
		t.Errorf("the Parse chunk, held whole, is offered again:\n%s", out)
	}
}
