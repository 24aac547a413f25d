package jsapp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/store"
)

// indexMono copies testdata/mono (a monorepo: an Express API shaped like
// node-express-boilerplate and the RealWorld example app, a Next.js web app
// shaped like taxonomy, a tools package that is neither) into a temporary
// workspace and indexes it.
func indexMono(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/mono")); err != nil {
		t.Fatal(err)
	}
	run(t, root)
	return root
}

func run(t *testing.T, root string) index.Summary {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sum, err := ix.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Fatalf("index errors: %v", sum.Errors)
	}
	return sum
}

func walk(t *testing.T, root, target string) []appgraph.Node {
	t.Helper()
	nodes, err := appgraph.WalkRoot(context.Background(), root, target)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return nodes
}

func has(t *testing.T, nodes []appgraph.Node, want ...string) {
	t.Helper()
	var got []string
	for _, n := range nodes {
		got = append(got, n.Type+" "+n.Name)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing node %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func noRoute(t *testing.T, root, target string) {
	t.Helper()
	if nodes, err := appgraph.WalkRoot(context.Background(), root, target); err == nil {
		t.Errorf("%s: want no route, got %v", target, nodes)
	}
}

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const userCtl = "apps/api/src/controllers/user.controller"

func TestExpressRoutes(t *testing.T) {
	root := indexMono(t)
	// app.use('/v1', require'd router) -> a forEach over [{path, route}]
	// -> router.route('/').post(...).get(...) -> userController.createUser.
	nodes := walk(t, root, "route:POST /v1/users")
	has(t, nodes, "route POST /v1/users", "controller "+userCtl, "controller_method "+userCtl+"@createUser")
	if r := nodes[0]; r.Path != "apps/api/src/routes/v1/user.route.js" || r.StartLine != 9 || !strings.Contains(r.Detail, "auth('manageUsers')") {
		t.Errorf("route node = %+v, want user.route.js:9 with middleware auth('manageUsers')", r)
	}
	if m := nodes[2]; m.Path != userCtl+".js" || m.StartLine != 5 || m.EndLine != 8 {
		t.Errorf("method node = %+v, want user.controller.js:5-8", m)
	}
	// A parameter matches in any notation.
	for _, u := range []string{"/v1/users/:userId", "/v1/users/{user}", "/v1/users/[id]"} {
		has(t, walk(t, root, "route:DELETE "+u), "route DELETE /v1/users/:userId", "controller_method "+userCtl+"@deleteUser")
	}
	// An inline handler is the module's function named after its route.
	has(t, walk(t, root, "route:/v1/users/:userId/avatar"), "controller_method apps/api/src/routes/v1/user.route@GET /:userId/avatar")
	// TypeScript: import { named } and import * as, resolved to the file
	// (handlers/items.ts, handlers/admin/index.ts); app.all is ANY.
	has(t, walk(t, root, "route:/v1/items/{id}"), "controller_method apps/api/src/handlers/items@showItem")
	has(t, walk(t, root, "route:GET /v1/items/admin/:action"), "route ANY /v1/items/admin/:action",
		"controller_method apps/api/src/handlers/admin@dispatch")
	// Router().use(module) chains and export default Router().use('/api', api).
	has(t, walk(t, root, "route:/api/tags"), "route GET /api/tags", "controller_method apps/api/src/routes/tag/tag.controller@GET /tags")
	has(t, walk(t, root, "route:/health"), "route GET /health")
	// A route registered inside a function that receives the app.
	has(t, walk(t, root, "route:/legacy/ping"), "route GET /legacy/ping")
	// tools/ has a package.json without express: not an application.
	noRoute(t, root, "route:/not-a-route")
}

func TestExpressControllers(t *testing.T) {
	root := indexMono(t)
	for _, name := range []string{"user.controller", userCtl, userCtl + ".js", "controllers/user.controller"} {
		has(t, walk(t, root, "controller:"+name+"@getUser"), "controller "+userCtl, "route GET /v1/users/:userId",
			"controller_method "+userCtl+"@getUser")
	}
	nodes := walk(t, root, "controller:user.controller")
	n := 0
	for _, x := range nodes {
		if x.Type == "route" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("controller:user.controller reached %d routes, want 4: %v", n, nodes)
	}
}

// TestMongooseModels: route -> handler -> the models it names (through a
// models/index.js barrel) -> collection; model -> ref fields, handlers.
func TestMongooseModels(t *testing.T) {
	root := indexMono(t)
	has(t, walk(t, root, "route:GET /v1/users/:userId"), "controller_method "+userCtl+"@getUser", "model User", "table users")
	order := walk(t, root, "model:Order")
	has(t, order, "model Order", "table purchase_orders", "model_relation Order::user", "model_relation Order::product", "model User")
	for _, n := range order {
		if n.Name == "Order::product" && n.Detail != "ref Product" {
			t.Errorf("Order::product detail %q, want ref Product", n.Detail)
		}
	}
	has(t, walk(t, root, "model:User"), "controller_method "+userCtl+"@getUser", "route GET /v1/users/:userId")
	has(t, walk(t, root, "table:users"), "model User", "model Order")
}

func TestNextRoutes(t *testing.T) {
	root := indexMono(t)
	has(t, walk(t, root, "route:/api/posts"), "route GET /api/posts", "route POST /api/posts",
		"controller_method apps/web/app/api/posts/route@POST")
	// export { handler as PATCH, handler as DELETE } on a dynamic segment.
	has(t, walk(t, root, "route:DELETE /api/posts/[postId]"), "route DELETE /api/posts/{postId}")
	has(t, walk(t, root, "route:PATCH /api/posts/:id"), "route PATCH /api/posts/{postId}")
	// Route groups leave the URI; catch-alls; pages/ and pages/api.
	has(t, walk(t, root, "route:/"), "route GET /", "controller_method apps/web/app/(marketing)/page@IndexPage")
	has(t, walk(t, root, "route:/docs/[[...slug]]"), "route GET /docs/{...slug?}", "controller_method apps/web/app/docs/[[...slug]]/page@DocPage")
	has(t, walk(t, root, "route:/blog/[...slug]"), "route GET /blog/{...slug}")
	has(t, walk(t, root, "route:/blog/{slug}"), "route GET /blog/{slug}", "controller_method apps/web/pages/blog/[slug]@BlogPost")
	has(t, walk(t, root, "route:/blog"), "route GET /blog", "controller apps/web/pages/blog")
	has(t, walk(t, root, "route:POST /api/hello"), "route ANY /api/hello", "controller_method apps/web/pages/api/hello@handler")
	has(t, walk(t, root, "controller:app/api/posts/route"), "route GET /api/posts", "route POST /api/posts")
	// _app, layouts and private folders are no routes.
	for _, u := range []string{"/_app", "/_private", "/layout"} {
		noRoute(t, root, "route:"+u)
	}
}

// TestChunkTypes checks the describers: routes are route chunks, handler
// functions controller_method chunks, and the rest of a file stays code.
func TestChunkTypes(t *testing.T) {
	root := indexMono(t)
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	types := map[string][]string{}
	var routeCode, legacyCode []string
	err = db.View(func(tx *store.Tx) error {
		return tx.Chunks(func(c store.Chunk) error {
			types[c.Path] = append(types[c.Path], c.SourceType+" "+c.Symbol)
			if c.Path == "apps/api/src/routes/v1/user.route.js" && c.SourceType == "code" {
				text, _ := tx.Artifact(c)
				routeCode = append(routeCode, text)
			}
			if c.Path == "apps/api/src/routes/legacy.js" && c.SourceType == "code" {
				text, _ := tx.Artifact(c)
				legacyCode = append(legacyCode, text)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"apps/api/src/routes/v1/user.route.js":        {"route POST /", "route DELETE /:userId", "route GET /:userId/avatar"},
		"apps/api/src/controllers/user.controller.js": {"controller_method createUser", "controller_method deleteUser"},
		"apps/api/src/handlers/items.ts":              {"controller_method listItems", "controller_method showItem"},
		"apps/web/app/api/posts/route.ts":             {"route GET /api/posts", "route POST /api/posts"},
		"apps/web/pages/blog/[slug].tsx":              {"route GET /blog/{slug}"},
	}
	for p, ws := range want {
		for _, w := range ws {
			if !slices.Contains(types[p], w) {
				t.Errorf("%s: no chunk %q in %q", p, w, types[p])
			}
		}
	}
	// The code around the routes stays plain code.
	if code := strings.Join(routeCode, "\n"); !strings.Contains(code, "const router = express.Router();") || !strings.Contains(code, "module.exports = router;") {
		t.Errorf("user.route.js lost the code around its routes: %q", routeCode)
	}
	// A route inside a function is a chunk beside the function's own.
	if !slices.Contains(types["apps/api/src/routes/legacy.js"], "route GET /legacy/ping") ||
		!strings.Contains(strings.Join(legacyCode, "\n"), "const started = Date.now();") {
		t.Errorf("legacy.js: chunks %q, code %q", types["apps/api/src/routes/legacy.js"], legacyCode)
	}
}

// TestNextRouterFolders: only the app/ and pages/ folders at the top of the
// Next.js package (or under its src/) route; a folder of that name deeper
// down is no router, and a package that is itself named app routes from
// its own app/ and pages/.
func TestNextRouterFolders(t *testing.T) {
	root := t.TempDir()
	page := "export default function Page() { return null }\n"
	write(t, root, "package.json", `{"dependencies": {"next": "14.2.0"}}`)
	write(t, root, "src/components/pages/Home.tsx", page)
	write(t, root, "lib/app/route.ts", "export async function GET() { return new Response('x') }\n")
	write(t, root, "src/app/dashboard/page.tsx", page)
	write(t, root, "src/app/api/test/route.ts", "export async function POST() { return new Response('x') }\n")
	write(t, root, "app/package.json", `{"dependencies": {"next": "14.2.0"}}`)
	write(t, root, "app/pages/blog/index.tsx", page)
	write(t, root, "app/app/about/page.tsx", page)
	run(t, root)
	noRoute(t, root, "route:/Home")
	noRoute(t, root, "route:GET /")
	noRoute(t, root, "route:/app/about")
	has(t, walk(t, root, "route:/dashboard"), "route GET /dashboard")
	// A route's place makes it one, even in a folder a test's would be.
	has(t, walk(t, root, "route:POST /api/test"), "route POST /api/test")
	has(t, walk(t, root, "route:/blog"), "route GET /blog")
	has(t, walk(t, root, "route:/about"), "route GET /about")
}

// TestRouterMountedTwice: a router mounted under two prefixes has its
// routes under both.
func TestRouterMountedTwice(t *testing.T) {
	root := t.TempDir()
	write(t, root, "package.json", `{"dependencies": {"express": "^4.19.0"}}`)
	write(t, root, "app.js", "const express = require('express');\nconst users = require('./routes/users');\n"+
		"const auth = (req, res, next) => next();\nconst app = express();\n"+
		"app.use('/api', auth, users);\napp.use('/v2/users', users);\nmodule.exports = app;\n")
	write(t, root, "routes/users.js", "const router = require('express').Router();\n"+
		"router.post('/:id/ban', (req, res) => res.sendStatus(204));\nmodule.exports = router;\n")
	run(t, root)
	has(t, walk(t, root, "route:POST /api/:id/ban"), "route POST /api/:id/ban")
	has(t, walk(t, root, "route:POST /v2/users/:id/ban"), "route POST /v2/users/:id/ban")
}

// TestTestFileRoutes: routes a test registers on an app of its own (by the
// index's test-file classification: test/, *.test.js, __tests__/) are no
// application routes; route:POST /contact answers with the app's only.
func TestTestFileRoutes(t *testing.T) {
	root := t.TempDir()
	write(t, root, "package.json", `{"dependencies": {"express": "^4.19.0"}}`)
	write(t, root, "app.js", "const express = require('express');\nconst app = express();\n"+
		"app.post('/contact', (req, res) => res.redirect('/thanks'));\nmodule.exports = app;\n")
	write(t, root, "test/contact.js", "const express = require('express');\nconst app = express();\n"+
		"app.post('/contact', (req, res) => res.send('stub'));\napp.get('/only-in-test', (req, res) => res.end());\n")
	write(t, root, "lib/__tests__/mount.test.js", "const express = require('express');\nconst app = express();\n"+
		"app.use('/mounted', require('../../app'));\napp.post('/contact', (req, res) => res.end());\n")
	run(t, root)
	var routes []string
	for _, n := range walk(t, root, "route:POST /contact") {
		if n.Type == "route" {
			routes = append(routes, n.Name+" "+n.Path)
		}
	}
	if want := []string{"POST /contact app.js"}; !slices.Equal(routes, want) {
		t.Errorf("route:POST /contact = %q, want %q", routes, want)
	}
	noRoute(t, root, "route:/only-in-test")
	noRoute(t, root, "route:POST /mounted/contact")
}

// TestNextDestructuredHandlers: Auth.js route handlers exported by a
// destructuring (export const { GET, POST } = handlers) are one route each,
// as are names a nested pattern binds and a re-export names (export {
// GET, POST as PUT } from ...); a pattern's keys export nothing.
func TestNextDestructuredHandlers(t *testing.T) {
	root := t.TempDir()
	write(t, root, "package.json", `{"dependencies": {"next": "15.0.0", "next-auth": "5.0.0-beta.25"}}`)
	write(t, root, "auth.ts", "import NextAuth from 'next-auth'\nexport const { handlers, auth, signIn } = NextAuth({ providers: [] })\n")
	write(t, root, "app/api/auth/[...nextauth]/route.ts", "import { handlers } from '@/auth'\n\nexport const { GET, POST } = handlers\n")
	write(t, root, "app/api/reexport/route.ts", "export { GET, POST as PUT } from '@/auth'\n")
	write(t, root, "app/api/session/route.ts", "import NextAuth from 'next-auth'\n\n"+
		"export const { handlers: { GET, PUT: update = fallback }, auth } = NextAuth({ providers: [] })\n")
	if sum := run(t, root); sum.Notes[index.NoteSectionDropped] > 0 {
		t.Errorf("sections dropped: %v", sum.Notes)
	}
	has(t, walk(t, root, "route:/api/auth/[...nextauth]"), "route GET /api/auth/{...nextauth}", "route POST /api/auth/{...nextauth}",
		"controller_method app/api/auth/[...nextauth]/route@POST")
	has(t, walk(t, root, "route:GET /api/session"), "route GET /api/session")
	has(t, walk(t, root, "route:/api/reexport"), "route GET /api/reexport", "route PUT /api/reexport")
	noRoute(t, root, "route:PUT /api/session")
	noRoute(t, root, "route:/api/auth")
}
