package related

import (
	"testing"
)

// jsFiles is a TypeScript package with a barrel, a default export, a
// class written with property functions and #private methods, and a file
// importing the package by its own name.
var jsFiles = map[string]string{
	"package.json": `{"name": "@acme/web", "exports": {".": {"source": "./src/index.ts", "import": "./dist/index.js"}}}`,
	"src/base.ts":  "export class Base {\n  list() { return [] }\n}\n",
	"src/app.ts": `import { Base } from './base'

export class App extends Base {
  fetch = (req: Request) => {
    return this.#dispatch(req)
  }

  #dispatch(r: Request) {
    return helper(r)
  }
}

export function helper(r: Request) {
  return r
}
`,
	"src/make.ts": `import { App } from './app'

export default function make() {
  return new App()
}
`,
	"src/index.ts": "export * from './app'\nexport { default as makeApp } from './make'\n",
	"src/user.ts": `import { App, makeApp } from './index'
import build from './make'

export function run(app: App, req: Request) {
  app.fetch(req)
  app.list()
  makeApp()
  build()
}

export function other(x, req: Request) {
  // x.fetch(req) is not known to be an App
  x.fetch(req)
}
`,
	"src/self.ts": `import { helper } from '@acme/web'

export function viaPackage(r: Request) {
  return helper(r)
}
`,
}

func TestJSPropertyFunctionAndBarrel(t *testing.T) {
	db := fixtureOf(t, jsFiles)
	x := expand(t, db, "src/app.ts::@App.fetch")
	check(t, "callees", calleesOf(x), []string{"src/app.ts:8 App.#dispatch (method) <- 5"})
	// run reaches App through the barrel index.ts; other's x is not typed.
	check(t, "callers", callersOf(x), []string{"src/user.ts:5 run (function) calls fetch"})

	x = expand(t, db, "src/app.ts::@App.#dispatch")
	check(t, "callees", calleesOf(x), []string{"src/app.ts:13 helper (function) <- 9"})
	check(t, "callers", callersOf(x), []string{"src/app.ts:5 App.fetch (method) calls #dispatch"})
}

func TestJSReexportsAndPackageName(t *testing.T) {
	db := fixtureOf(t, jsFiles)
	x := expand(t, db, "src/user.ts::@run")
	check(t, "callees", calleesOf(x), []string{
		"src/app.ts:4 App.fetch (method) <- 5",
		"src/base.ts:2 Base.list (method) <- 6",
		"src/make.ts:3 make (function) <- 7",
	})
	x = expand(t, db, "src/app.ts::@helper")
	check(t, "callers", callersOf(x), []string{
		"src/app.ts:9 App.#dispatch (method) calls helper",
		"src/self.ts:4 viaPackage (function) calls helper",
	})
}

// TestJSAliasedBaseCallers: App extends an aliased import of AppBase, so
// new App().mount(...) and an App's mount() call AppBase.mount.
func TestJSAliasedBaseCallers(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"package.json": `{"name": "web"}`,
		"src/base.ts":  "export class AppBase {\n  mount(path: string) { return path }\n}\n",
		"src/app.ts":   "import { AppBase as Base } from './base'\n\nexport class App extends Base {}\n",
		"src/main.ts": `import { App } from './app'

export function start() {
  new App().mount('/')
}

export function again(app: App) {
  return app.mount('/x')
}
`,
	})
	x := expand(t, db, "src/base.ts::@AppBase.mount")
	check(t, "AppBase.mount callers", callersOf(x), []string{
		"src/main.ts:4 start (function) calls mount", "src/main.ts:8 again (function) calls mount"})
	x = expand(t, db, "src/main.ts::@start")
	check(t, "start callees", calleesOf(x), []string{"src/app.ts:3 App (class) <- 4", "src/base.ts:2 AppBase.mount (method) <- 4"})
}
