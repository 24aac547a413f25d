package xref

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/lang"
)

func parseJS(t *testing.T, language, src string) *File {
	t.Helper()
	f, err := Parse(language, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// jsDefs lists the definitions as "kind Container.Name :Type".
func jsDefs(f *File) []string {
	var out []string
	for _, d := range f.Defs {
		s := d.Kind + " " + d.Name
		if d.Container != "" {
			s = d.Kind + " " + d.Container + "." + d.Name
		}
		if d.Type != "" {
			s += " :" + d.Type
		}
		if len(d.Bases) > 0 {
			s += " <" + strings.Join(d.Bases, ",")
		}
		out = append(out, s)
	}
	return out
}

// jsRefs lists the references as "Name via qual chain in", calls only.
func jsRefs(f *File) []string {
	var out []string
	for _, r := range f.Refs {
		if !r.Call {
			continue
		}
		s := r.Name + " " + r.Via.String()
		if r.Qual != "" {
			s += " " + r.Qual
		}
		if len(r.Chain) > 0 {
			s += " [" + strings.Join(r.Chain, ".") + "]"
		}
		if r.In >= 0 {
			d := f.Defs[r.In]
			in := d.Name
			if d.Container != "" {
				in = d.Container + "." + d.Name
			}
			s += " in " + in
		}
		out = append(out, s)
	}
	return out
}

func checkList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// The class of the issue: hono's Hono and Context write members as
// properties holding arrow functions and as #private methods. They are
// definitions with the class as Container, so @Hono.fetch selects one.
const honoLike = `import { Context } from './context'
import type { TextRespond } from './types'

export class Hono<E extends Env = Env> extends HonoBase<E> implements Fetcher {
  #path = '/'
  router: Router<[H, RouterRoute]>
  private errorHandler: ErrorHandler = errorHandler

  constructor(private readonly repo: Repo, options: HonoOptions<E> = {}) {
    super()
    this.router = options.router ?? new SmartRouter()
  }

  #dispatch(request: Request, env: E): Response {
    const c = new Context(request, { env })
    c.header('x', 'y')
    return this.repo.find(request.url)
  }

  fetch = (request: Request, env?: E): Response => {
    return this.#dispatch(request, env)
  }

  text: TextRespond = (text, arg) => {
    return this.#newResponse(text, arg)
  }

  get routes() { return this.router.list() }

  static create(): Hono { return new Hono(new Repo()) }

  use(): this { return this.use().route() }
}
`

func TestJSClassPropertyMembers(t *testing.T) {
	f := parseJS(t, lang.TypeScript, honoLike)
	checkList(t, "defs", jsDefs(f), []string{
		"class Hono <HonoBase,Fetcher",
		"field Hono.#path",
		"field Hono.router :Router",
		"field Hono.errorHandler :ErrorHandler",
		"field Hono.repo :Repo",
		"method Hono.constructor",
		"method Hono.#dispatch :Response",
		"method Hono.fetch :Response",
		"method Hono.text",
		"method Hono.routes",
		"method Hono.create :Hono",
		"method Hono.use :Hono",
	})
	checkList(t, "refs", jsRefs(f), []string{
		"SmartRouter bare in Hono.constructor",
		"Context bare in Hono.#dispatch",
		"header type Context in Hono.#dispatch",
		"find self [repo] in Hono.#dispatch",
		"#dispatch self in Hono.fetch",
		"#newResponse self in Hono.text",
		"list self [router] in Hono.routes",
		"Hono bare in Hono.create",
		"Repo bare in Hono.create",
		"use self in Hono.use",
		"route self [use] in Hono.use",
	})
}

func TestJSReceivers(t *testing.T) {
	src := `import * as util from './util'
import helpers, { format as fmt } from './helpers'
const { parse } = require('./parse')
const lib = require('./lib')

const app = new App()
const cfg = load()

function handle(svc: Service, other, list: Item[], maybe?: Repo | undefined) {
  // svc.commented() is a comment, "svc.quoted()" a string
  const local = () => 1
  local()
  svc.run()
  other.run()
  list.map(fmt)
  maybe.save()
  const s = new Service()
  s.stop().then(done)
  const r = svc as Repo
  r.save()
  util.slug('x')
  helpers.pad()
  lib.go()
  parse()
  app.listen()
  cfg.get()
  fmt()
  this.x()
  super.y()
  window.alert()
}
`
	f := parseJS(t, lang.TypeScript, src)
	got := jsRefs(f)
	want := []string{
		"App bare in app",
		"load bare in cfg",
		"run type Service in handle",
		"run unknown in handle",
		"map unknown in handle",
		"save type Repo in handle",
		"Service bare in handle",
		"stop type Service in handle",
		"then type Service [stop] in handle",
		"save type Repo in handle",
		"slug package util in handle",
		"pad bare [helpers] in handle",
		"go package lib in handle",
		"parse bare in handle",
		"listen type App in handle",
		"get bare [load] in handle",
		"fmt bare in handle",
		"x unknown in handle",
		"y super in handle",
		"alert unknown in handle",
	}
	checkList(t, "refs", got, want)
	// local() calls a closure, commented and quoted calls are no calls,
	// and a function passed as a value (fmt, done) is not called here.
	for _, r := range got {
		if strings.HasPrefix(r, "local ") || strings.Contains(r, "commented") || strings.Contains(r, "quoted") {
			t.Errorf("not a reference: %s", r)
		}
	}
}

func TestJSImportsAndExports(t *testing.T) {
	src := `import def, { a as b, c } from './x'
import * as ns from '../y'
import type { T } from './t'
import './side-effect'
import legacy = require('./legacy')
const { p, q: r } = require('./pq')
const whole = require('./whole')
export { e as f } from './e'
export * from './star'
export * as space from './space'
export { local as renamed }
export default function main() {}
`
	f := parseJS(t, lang.TypeScript, src)
	var got []string
	for _, imp := range f.Imports {
		got = append(got, fmt.Sprintf("%s=%s:%s@%d", imp.Local, imp.Spec, imp.Member, imp.Line))
	}
	checkList(t, "imports", got, []string{
		"def=./x:default@1", "b=./x:a@1", "c=./x:c@1", "ns=../y:@2", "T=./t:T@3", "=./side-effect:@4",
		"legacy=./legacy:@5", "p=./pq:p@6", "r=./pq:q@6", "whole=./whole:@7",
		"f=./e:e@8", "*=./star:@9", "space=./space:@10", "renamed=:local@11", "default=:main@12",
	})
	checkList(t, "defs", jsDefs(f), []string{"function main"})
}

func TestJSObjectLiterals(t *testing.T) {
	src := `export const api = {
  base: '/v1',
  get(path: string) { return this.request('GET', path) },
  post: async (path) => send(path),
  request: function (method, path) { return fetch(path) },
} as const

const actions = { add, remove: drop, count: 1 }

function use() {
  actions.add(1)
  actions.remove(2)
  api.get('/x')
  const inner = { m() { helper() } }
  inner.m()
}
`
	f := parseJS(t, lang.TypeScript, src)
	checkList(t, "defs", jsDefs(f), []string{
		"object api", "method api.get", "method api.post", "method api.request", "object actions", "function use",
	})
	checkList(t, "refs", jsRefs(f), []string{
		"request self in api.get",
		"send bare in api.post",
		"fetch bare in api.request",
		"add bare in use",
		"drop bare in use",
		"get bare [api] in use",
		"helper bare in use",
		"m unknown in use",
	})
}

func TestJSTypesEnumsVariables(t *testing.T) {
	src := `export interface Store extends Base<T> {
  get(key: string): Item
  size: number
}
type Handler = Base & { handle(c: Context): void }
export enum Status { NotFound = 404, Ok }
export const StatusNotFound = Status.NotFound
let counter: Counter = makeCounter()
var plain = 1
namespace util {
  export function assertNever(x: never): never { throw new Error() }
}
declare function ambient(): void
function over(a: string): void
function over(a: any) { util.assertNever(a) }
`
	f := parseJS(t, lang.TypeScript, src)
	checkList(t, "defs", jsDefs(f), []string{
		"interface Store <Base",
		"method Store.get :Item",
		"field Store.size",
		"type Handler <Base",
		"method Handler.handle",
		"enum Status",
		"const Status.NotFound",
		"const Status.Ok",
		"const StatusNotFound",
		"var counter :Counter",
		"var plain",
		"namespace util",
		"function util.assertNever",
		"function ambient",
		"function over",
	})
	checkList(t, "refs", jsRefs(f), []string{
		"makeCounter bare in counter",
		"Error bare in util.assertNever",
		"assertNever bare [util] in over",
	})
}

func TestJSXElements(t *testing.T) {
	src := `import { Item } from './item'
import * as UI from './ui'
export function List({ items }: Props) {
  return <ul className="list">{items.map((i) => <Item key={i.id} {...i} />)}<UI.Footer /></ul>
}
`
	f := parseJS(t, lang.TSX, src)
	checkList(t, "refs", jsRefs(f), []string{
		"map unknown in List",
		"Item bare in List",
		"Footer package UI in List",
	})
}

func TestJSInstanceofNarrows(t *testing.T) {
	src := `function render(child: Child) {
  if (child instanceof JSXNode) {
    child.toStringToBuffer(buf)
  } else if (typeof child === 'string' && other instanceof Text) {
    other.append(child)
  }
  child.after()
}
`
	f := parseJS(t, lang.TypeScript, src)
	checkList(t, "refs", jsRefs(f), []string{
		"toStringToBuffer type JSXNode in render",
		"append type Text in render",
		"after type Child in render",
	})
}

// JavaScript's grammar writes fields and heritage differently.
func TestJSPlainJavaScript(t *testing.T) {
	src := `const m = require('./m')
class Widget extends m.Base {
  #count = 0
  onClick = () => { this.#bump(); m.log() }
  #bump() { this.#count++ }
  static { register(Widget) }
}
module.exports = { Widget }
`
	f := parseJS(t, lang.JavaScript, src)
	checkList(t, "defs", jsDefs(f), []string{
		"class Widget <m.Base", "field Widget.#count", "method Widget.onClick", "method Widget.#bump",
	})
	checkList(t, "refs", jsRefs(f), []string{
		"#bump self in Widget.onClick",
		"log package m in Widget.onClick",
		"register bare in Widget",
	})
}

// Declarations inside a function body are locals: not definitions, and a
// call of one is no reference to a top-level name.
func TestJSLocalsAreNotDefinitions(t *testing.T) {
	src := `function outer() {
  helper()
  function helper() { return 1 }
  class Local { m() { this.n() } }
  const fn = () => helper2()
  fn()
}
`
	f := parseJS(t, lang.TypeScript, src)
	checkList(t, "defs", jsDefs(f), []string{"function outer"})
	checkList(t, "refs", jsRefs(f), []string{"n unknown in outer", "helper2 bare in outer"})
}

func TestJSBrokenInput(t *testing.T) {
	for _, src := range []string{"", "class {", "const x = (", "function f( { this.", "<<<>>>", "export default"} {
		if _, err := Parse(lang.TSX, []byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// A definition's own name is never one of its references.
func TestJSDefinitionsAreNotReferences(t *testing.T) {
	f := parseJS(t, lang.TypeScript, honoLike)
	for _, d := range f.Defs {
		for _, r := range f.Refs {
			if r.Start == d.NameStart {
				t.Errorf("the definition of %s.%s is a reference", d.Container, d.Name)
			}
		}
	}
}

func FuzzJS(f *testing.F) {
	f.Add([]byte(honoLike))
	f.Add([]byte("class { #a = () => this.#a(); [k]() {} }\nconst o = { ...x, a, b: c }\no.a()"))
	f.Add([]byte("export { a as default } from './x'\nimport * as ns from\nif (x instanceof (y)) x.m()"))
	f.Add([]byte("const Widget = class extends Base { m() { this.n() } }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, l := range []string{lang.TypeScript, lang.TSX, lang.JavaScript} {
			x, err := Parse(l, src)
			if err != nil {
				continue
			}
			for _, r := range x.Refs {
				if r.Start < 0 || r.Start > len(src) || r.In >= len(x.Defs) {
					t.Fatalf("%s: ref %+v out of range", l, r)
				}
			}
			for _, d := range x.Defs {
				if d.Start < 0 || d.End > len(src) || d.NameStart < d.Start || d.NameStart > d.End {
					t.Fatalf("%s: def %+v out of range", l, d)
				}
			}
		}
	})
}

// TestJSOverloadSignatures proves an overload signature followed by its
// implementation in the same block is no definition of its own, and one
// without (an ambient declaration) is, also past comments between them.
func TestJSOverloadSignatures(t *testing.T) {
	f := parseJS(t, lang.TypeScript, `function f(a: string): void;
// the other one
function f(a: number): void;
function f(a: any) {}
function g(): number;
export function h(a: string): void;
export function h(a: any) {}
`)
	want := []string{"function f", "function g", "function h"}
	if got := jsDefs(f); !reflect.DeepEqual(got, want) {
		t.Errorf("defs = %q, want %q", got, want)
	}
}
