package search_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/search"
)

// goTree copies real Go files (the standard library's net/url, strings and
// bufio) into a new workspace, with extra files on top, and indexes it:
// enough chunks for the builtin vectors to find something for any query.
func goTree(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(goroot(t), "src")
	for _, dir := range []string{"net/url", "strings", "bufio"} {
		entries, err := os.ReadDir(filepath.Join(src, dir))
		if err != nil {
			t.Skipf("no Go source tree to copy: %v", err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(src, dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			write(t, root, dir+"/"+e.Name(), string(data))
		}
	}
	for p, c := range extra {
		write(t, root, p, c)
	}
	reindex(t, root)
	return root
}

func goroot(t *testing.T) string {
	t.Helper()
	out, err := runtimeGOROOT()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return out
}

// TestNonsenseHasNoResults proves scores are absolute: words nothing in
// the index holds answer "no results" at the default threshold in every
// ranked mode, with the threshold in the response, while a real query
// still finds its answer.
func TestNonsenseHasNoResults(t *testing.T) {
	root := goTree(t, nil)
	for _, mode := range []search.Mode{search.Hybrid, search.Text, search.Vector, search.Symbol} {
		for _, q := range []string{"xyzzyplugh", "qwv zzkj", "blorptastic frobnicator"} {
			resp := query(t, root, search.Query{Text: q, Mode: mode, MinScore: search.DefaultMinScore})
			if len(resp.Results) != 0 {
				t.Errorf("%s %q: %d results, the first %s scoring %.3f", mode, q, len(resp.Results), resp.Results[0].Path, resp.Results[0].Score)
			}
			if resp.MinScore != search.DefaultMinScore {
				t.Errorf("%s %q: response threshold %v", mode, q, resp.MinScore)
			}
		}
	}
	resp := query(t, root, search.Query{Text: "escape a string for a URL query", MinScore: search.DefaultMinScore})
	if r := first(t, resp); !strings.HasPrefix(r.Path, "net/url/") {
		t.Errorf("a real query: first is %s %s (%.3f)", r.Path, r.Symbol, r.Score)
	}
	// An exact name is a strong match in symbol mode.
	resp = query(t, root, search.Query{Text: "QueryEscape", Mode: search.Symbol, MinScore: search.DefaultMinScore})
	if r := first(t, resp); r.Symbol != "QueryEscape" || r.Score < 0.9 {
		t.Errorf("symbol QueryEscape: first is %s scoring %.3f", r.Symbol, r.Score)
	}
}

// TestIdenticalFilesAreOneResult proves identical content in several
// files is one result that lists every path.
func TestIdenticalFilesAreOneResult(t *testing.T) {
	const util = `package util

// Slugify lowers a title and joins its words with dashes, for a URL path.
func Slugify(title string) string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(title)) {
		words = append(words, strings.Trim(w, ".,;:!?"))
	}
	return strings.Join(words, "-")
}
`
	root := goTree(t, map[string]string{"util/slug.go": util, "vendor/example.com/util/slug.go": util, "third_party/util/slug.go": util})
	resp := query(t, root, search.Query{Text: "slugify a title into a url path", MinScore: search.DefaultMinScore})
	r := first(t, resp)
	want := []string{"third_party/util/slug.go", "util/slug.go", "vendor/example.com/util/slug.go"}
	got := slices.Sorted(slices.Values(r.Paths))
	if r.Symbol != "Slugify" || !slices.Equal(got, want) || r.Paths[0] != r.Path {
		t.Errorf("first is %s %s with paths %v, want Slugify in %v (its own first)", r.Path, r.Symbol, r.Paths, want)
	}
	for _, o := range resp.Results[1:] {
		if o.Symbol == "Slugify" {
			t.Errorf("a copy is a result of its own: %s", o.Path)
		}
	}
}

// The translation files of a Laravel app: the same keys, other words.
var authLang = map[string][2]string{
	"en": {"These credentials do not match our records.", "Too many login attempts. Please try again in :seconds seconds."},
	"fr": {"Ces identifiants ne correspondent pas à nos enregistrements.", "Trop de tentatives de connexion. Veuillez essayer de nouveau dans :seconds secondes."},
	"de": {"Diese Kombination aus Zugangsdaten wurde nicht in unserer Datenbank gefunden.", "Zu viele Loginversuche. Versuchen Sie es bitte in :seconds Sekunden nochmal."},
	"ja": {"認証情報が記録と一致しません。", "ログインの試行回数が多すぎます。:seconds 秒後にお試しください。"},
	"es": {"Estas credenciales no coinciden con nuestros registros.", "Demasiados intentos de acceso. Por favor intente nuevamente en :seconds segundos."},
}

func authFile(failed, throttle string) string {
	return `<?php

return [
    /*
    |--------------------------------------------------------------------------
    | Authentication Language Lines
    |--------------------------------------------------------------------------
    */
    'failed' => '` + failed + `',
    'password' => 'The provided password is incorrect. Sign in with your email and password.',
    'throttle' => '` + throttle + `',
    'sign_in' => 'Sign in',
    'sign_in_email' => 'Sign in with your email address and password',
    'email' => 'Email',
    'remember_me' => 'Remember me',
    'forgot_password' => 'Forgot your password?',
    'user_not_found' => 'No user with this email address',
];
`
}

// TestNearDuplicateTranslationsFold proves the translations of one file
// fold into one result listing the others as similar, leaving room for
// the code that signs users in.
func TestNearDuplicateTranslationsFold(t *testing.T) {
	extra := map[string]string{
		"app/Http/Controllers/Auth/LoginController.php": `<?php

namespace App\Http\Controllers\Auth;

class LoginController extends Controller
{
    /**
     * Handle a login request to the application.
     */
    public function login(LoginRequest $request)
    {
        $credentials = $request->only('email', 'password');
        if (Auth::attempt($credentials, $request->boolean('remember'))) {
            $request->session()->regenerate();
            return redirect()->intended('/dashboard');
        }
        return back()->withErrors(['email' => __('auth.failed')]);
    }
}
`,
	}
	for lang, text := range authLang {
		// Untranslated lines stay English, as in real apps.
		extra["lang/"+lang+"/auth.php"] = authFile(text[0], text[1])
	}
	root := goTree(t, extra)
	resp := query(t, root, search.Query{Text: "log a user in with email and password credentials", MinScore: search.DefaultMinScore})
	var lang []search.Result
	login := false
	for _, r := range resp.Results {
		if strings.HasPrefix(r.Path, "lang/") {
			lang = append(lang, r)
		}
		login = login || r.Symbol == "LoginController.login"
	}
	if len(lang) != 1 {
		t.Fatalf("%d translation results, want 1: %+v", len(lang), lang)
	}
	var folded []string
	folded = append(folded, lang[0].Similar...)
	folded = append(folded, lang[0].Paths...)
	for l := range authLang {
		if p := "lang/" + l + "/auth.php"; p != lang[0].Path && !slices.Contains(folded, p) {
			t.Errorf("%s not folded into %s (similar %v, paths %v)", p, lang[0].Path, lang[0].Similar, lang[0].Paths)
		}
	}
	if !login {
		t.Errorf("LoginController.login not among the results: %+v", resp.Results)
	}
}

// TestResultShowsBestLine proves a result shows the line that matched,
// with its number, not the chunk's first line ("/**").
func TestResultShowsBestLine(t *testing.T) {
	extra := map[string]string{
		"app/Services/InvoiceMailer.php": `<?php

namespace App\Services;

class InvoiceMailer
{
    /**
     * Sends the invoice.
     *
     * @param Invoice $invoice
     */
    public function send(Invoice $invoice): void
    {
        $pdf = $this->renderer->render($invoice);
        $this->mailer->to($invoice->customer->email)->attachPdf($pdf, 'invoice.pdf');
        $this->log->info('sent', ['id' => $invoice->id]);
    }
}
`,
	}
	root := goTree(t, extra)
	for _, mode := range []search.Mode{search.Hybrid, search.Text} {
		resp := query(t, root, search.Query{Text: "attach pdf to customer email", Mode: mode, MinScore: search.DefaultMinScore})
		r := first(t, resp)
		if r.Symbol != "InvoiceMailer.send" {
			t.Fatalf("%s: first is %s %s", mode, r.Path, r.Symbol)
		}
		if !strings.Contains(r.Line, "attachPdf") || r.MatchLine != 15 {
			t.Errorf("%s: line %d %q, want 15 with attachPdf", mode, r.MatchLine, r.Line)
		}
	}
	resp := query(t, root, search.Query{Text: `attachPdf\(`, Mode: search.Regex})
	if r := first(t, resp); r.MatchLine != 15 || !strings.Contains(r.Line, "attachPdf") {
		t.Errorf("regex: line %d %q", r.MatchLine, r.Line)
	}
}

// TestUnknownTypeIsAnError proves a --type that is neither a kind nor a
// source type is refused with the known ones listed, not answered with
// nothing.
func TestUnknownTypeIsAnError(t *testing.T) {
	root := workspace(t)
	_, err := search.NewEngine().SearchRoot(t.Context(), root, search.Query{Text: "price", Types: []string{"functoin"}})
	var bad *search.BadQueryError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), `"functoin"`) || !strings.Contains(err.Error(), "function") || !strings.Contains(err.Error(), "test") {
		t.Errorf("unknown type: %v", err)
	}
	// Known ones, present or not, are filters.
	for _, ty := range []string{"function", "Method", "test", "adr"} {
		if _, err := search.NewEngine().SearchRoot(t.Context(), root, search.Query{Text: "price", Types: []string{ty}}); err != nil {
			t.Errorf("--type %s: %v", ty, err)
		}
	}
}

func runtimeGOROOT() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
}

// TestNearCopiesOfOtherFilesStay: two migrations with one shape whose
// meaning is in their SQL are both results; neither is folded into the
// other as "similar".
func TestNearCopiesOfOtherFilesStay(t *testing.T) {
	migration := func(table, cols, index string) string {
		return "package migrations\n\nimport \"database/sql\"\n\n// Up applies the migration.\nfunc Up(tx *sql.Tx) error {\n" +
			"\t_, err := tx.Exec(\"CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, " + cols + ")\")\n" +
			"\tif err != nil {\n\t\treturn err\n\t}\n" +
			"\t_, err = tx.Exec(\"CREATE INDEX " + index + "\")\n\treturn err\n}\n"
	}
	root := goTree(t, map[string]string{
		"migrations/001_users.go":    migration("users", "email TEXT NOT NULL, password_hash TEXT NOT NULL", "users_email ON users (email)"),
		"migrations/002_invoices.go": migration("invoices", "amount_cents INTEGER NOT NULL, customer TEXT NOT NULL", "invoices_customer ON invoices (customer)"),
	})
	resp := query(t, root, search.Query{Text: "create table invoices amount users email migration", MinScore: search.DefaultMinScore})
	seen := map[string]bool{}
	for _, r := range resp.Results {
		seen[r.Path] = true
		for _, p := range r.Similar {
			if strings.HasPrefix(p, "migrations/") {
				t.Errorf("%s folded into %s as similar", p, r.Path)
			}
		}
	}
	for _, p := range []string{"migrations/001_users.go", "migrations/002_invoices.go"} {
		if !seen[p] {
			t.Errorf("%s is not a result: %+v", p, resp.Results)
		}
	}
}

// TestWeakRealMatchesAreShown proves the default threshold shows the best
// candidates of a real query that matches only weakly (its answer scored
// 0.137 and the query showed nothing at the old 0.25), while nonsense
// still shows none (TestNonsenseHasNoResults).
func TestWeakRealMatchesAreShown(t *testing.T) {
	root := goTree(t, nil)
	resp := query(t, root, search.Query{Text: "undo percent encoding in a url piece", MinScore: search.DefaultMinScore})
	found := false
	for _, r := range resp.Results {
		found = found || r.Path == "net/url/url.go" && strings.Contains(strings.ToLower(r.Symbol), "unescape")
	}
	if !found {
		t.Errorf("no unescape function among %d results (near misses %+v)", len(resp.Results), resp.Debug.NearMisses)
	}
}
