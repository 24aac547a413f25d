package jsapp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIncremental(t *testing.T) {
	root := indexMono(t)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// A new route and the handler it names.
	ur := "apps/api/src/routes/v1/user.route.js"
	write(t, root, ur, strings.Replace(read(ur), "module.exports = router;", "router.get('/me', userController.getMe);\n\nmodule.exports = router;", 1))
	uc := userCtl + ".js"
	write(t, root, uc, strings.Replace(read(uc), "module.exports = {", "const getMe = catchAsync(async (req, res) => res.send(req.user));\n\nmodule.exports = {\n  getMe,", 1))
	run(t, root)
	has(t, walk(t, root, "route:/v1/users/me"), "route GET /v1/users/me", "controller_method "+userCtl+"@getMe")

	// The mount's prefix changes in app.js only: every route under it follows.
	write(t, root, "apps/api/src/app.js", strings.Replace(read("apps/api/src/app.js"), "app.use('/v1', routes);", "app.use('/v2', routes);", 1))
	run(t, root)
	has(t, walk(t, root, "route:POST /v2/users"), "controller_method "+userCtl+"@createUser")
	noRoute(t, root, "route:POST /v1/users")

	// A deleted router module takes its routes along.
	if err := os.Remove(filepath.Join(root, "apps/api/src/routes/v1/item.route.ts")); err != nil {
		t.Fatal(err)
	}
	run(t, root)
	noRoute(t, root, "route:/v2/items")

	// A Next.js route handler loses a method.
	write(t, root, "apps/web/app/api/posts/route.ts", "export async function GET() {\n  return new Response(\"[]\")\n}\n")
	run(t, root)
	noRoute(t, root, "route:POST /api/posts")
	has(t, walk(t, root, "route:GET /api/posts"), "route GET /api/posts")

	// package.json decides: without express the API is plain code, with
	// it again an application.
	pkg := read("apps/api/package.json")
	write(t, root, "apps/api/package.json", `{"name": "api", "dependencies": {"koa": "^2"}}`)
	run(t, root)
	noRoute(t, root, "route:POST /v2/users")
	write(t, root, "apps/api/package.json", pkg)
	run(t, root)
	has(t, walk(t, root, "route:POST /v2/users"), "route POST /v2/users")
	// A nested package.json that adds express makes tools/ an application.
	write(t, root, "tools/package.json", `{"dependencies": {"express": "^5"}}`)
	run(t, root)
	has(t, walk(t, root, "route:/not-a-route"), "route GET /not-a-route")
}

// TestMalformed indexes files that do not parse, or hold constructs the
// extractors do not know: no error, the code stays plain code, and the
// rest of the application is read.
func TestMalformed(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/mono")); err != nil {
		t.Fatal(err)
	}
	for rel, body := range malformed {
		write(t, root, "apps/api/src/broken/"+rel, body)
		write(t, root, "apps/web/app/broken/"+strings.TrimSuffix(rel, filepath.Ext(rel))+"/route.ts", body)
	}
	run(t, root)
	has(t, walk(t, root, "route:POST /v1/users"), "controller_method "+userCtl+"@createUser")
	has(t, walk(t, root, "route:/api/posts"), "route GET /api/posts")
	noRoute(t, root, "route:/unterminated")
	noRoute(t, root, "route:/broken/routes")
}

// malformed are files the extractors must survive; FuzzExtract seeds from them.
var malformed = map[string]string{
	"unterminated.js": "const router = require('express').Router();\nrouter.get('/unterminated', (req, res) => {\n",
	"garbage.js":      "}{)(][ app.get( router.use('/x', ,,) => => export default\n",
	"dynamic.js":      "const express = require('express');\nconst app = express();\napp[verb]('/x', h);\napp.get(path, h);\napp.use(prefix, require(name));\napp.get(`/t/${id}`, h);\nroutes.forEach(r => app.use(r.path, r.route));\n",
	"cycle.js":        "const a = require('./cycle');\nconst express = require('express');\nconst r = express.Router();\nr.use('/again', a);\nr.use(r);\nmodule.exports = r;\n",
	"deep.ts":         "export const GET = " + strings.Repeat("f(", 200) + "(req, res) => 1" + strings.Repeat(")", 200) + ";\nexport default " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + ";\n",
	"empty.tsx":       "",
	"types.ts":        "export type GET = string;\nexport interface POST { a: number }\nexport { };\nexport * from './x';\n",
}
