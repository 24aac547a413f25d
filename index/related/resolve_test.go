package related

import (
	"testing"
)

// gorootFiles is laid out like $GOROOT/src: the module "std" at the root,
// whose import paths are directories, a vendor directory, and a nested
// module "cmd".
var gorootFiles = map[string]string{
	"go.mod":             "module std\n\ngo 1.26\n",
	"net/http/server.go": "package http\n\nimport (\n\t\"golang.org/x/net/idna\"\n\t\"net/url\"\n)\n\nfunc Serve() {\n\turl.Parse(\"\")\n\tidna.ToASCII(\"\")\n\tv.Len(v.String())\n\tvar vs url.Values\n\tvs.Len()\n}\n",
	"net/url/url.go":     "package url\n\nfunc Parse(s string) {}\n\ntype Values []string\n\nfunc (v Values) Len() int { return len(v) }\n",
	// v is of no type the syntax shows: neither the four unrelated String
	// methods nor url's or p1's Len are guessed for it. vs is a url.Values.
	"p1/p.go":                              "package p1\n\ntype T int\n\nfunc (T) String() string { return \"\" }\n\nfunc (T) Len() int { return 0 }\n",
	"p2/p.go":                              "package p2\n\ntype T int\n\nfunc (T) String() string { return \"\" }\n",
	"p3/p.go":                              "package p3\n\ntype T int\n\nfunc (T) String() string { return \"\" }\n",
	"p4/p.go":                              "package p4\n\ntype T int\n\nfunc (T) String() string { return \"\" }\n",
	"vendor/golang.org/x/net/idna/idna.go": "package idna\n\nfunc ToASCII(s string) {}\n",
	"cmd/go.mod":                           "module cmd\n",
	"cmd/tool/main.go":                     "package main\n\nimport (\n\t\"cmd/internal/obj\"\n\t\"net/http\"\n)\n\nfunc main() {\n\tobj.Run()\n\thttp.Serve()\n}\n",
	"cmd/internal/obj/obj.go":              "package obj\n\nfunc Run() {}\n",
}

func TestGoStdLayout(t *testing.T) {
	db := fixtureOf(t, gorootFiles)
	x := expand(t, db, "net/http/server.go")
	check(t, "imports", importsOf(x), []string{
		"4 golang.org/x/net/idna -> vendor/golang.org/x/net/idna/ vendor/golang.org/x/net/idna/idna.go",
		"5 net/url -> net/url/ net/url/url.go",
	})
	check(t, "importers", importersOf(x), []string{"cmd/tool/main.go:5 net/http"})
	check(t, "callees", calleesOf(x), []string{
		"net/url/url.go:3 Parse (function) <- 9",
		"vendor/golang.org/x/net/idna/idna.go:3 ToASCII (function) <- 10",
		"net/url/url.go:7 Values.Len (method) <- 13",
	})
	if len(x.Notes) != 0 {
		t.Errorf("notes %q", x.Notes)
	}
	check(t, "callers", callersOf(x), []string{"cmd/tool/main.go:10 main (function) calls Serve"})
	x = expand(t, db, "cmd/tool/main.go")
	check(t, "cmd module", importsOf(x), []string{
		"4 cmd/internal/obj -> cmd/internal/obj/ cmd/internal/obj/obj.go",
		"5 net/http -> net/http/ net/http/server.go",
	})
}

func TestGoBareTree(t *testing.T) {
	// No go.mod at all (a GOPATH-like tree): import paths are directories.
	db := fixtureOf(t, map[string]string{
		"a/b/b.go": "package b\n\nfunc B() {}\n",
		"main.go":  "package main\n\nimport \"a/b\"\n\nfunc main() { b.B() }\n",
	})
	x := expand(t, db, "main.go")
	check(t, "imports", importsOf(x), []string{"3 a/b -> a/b/ a/b/b.go"})
	check(t, "callees", calleesOf(x), []string{"a/b/b.go:3 B (function) <- 5"})
}

var polyglotFiles = map[string]string{
	"src/util.h":                  "#ifndef UTIL_H\n#define UTIL_H\nint util_add(int a, int b);\n#endif\n",
	"src/util.c":                  "#include \"util.h\"\n\nint util_add(int a, int b) {\n\treturn a + b;\n}\n",
	"app/main.c":                  "#include <stdio.h>\n#include \"util.h\"\n\nint main(void) {\n\tprintf(\"%d\\n\", util_add(1, 2));\n\treturn 0;\n}\n",
	"java/com/acme/Money.java":    "package com.acme;\n\npublic class Money {\n\tpublic static int add(int a, int b) {\n\t\treturn a + b;\n\t}\n}\n",
	"java/com/acme/app/App.java":  "package com.acme.app;\n\nimport java.util.List;\nimport com.acme.Money;\n\npublic class App {\n\tpublic static void main(String[] args) {\n\t\tSystem.out.println(Money.add(1, 2));\n\t}\n}\n",
	"rs/Cargo.toml":               "[package]\nname = \"shop\"\n",
	"rs/src/lib.rs":               "mod a;\nuse crate::a::{b, c};\nuse std::fmt;\n\npub fn run() -> u32 {\n    b::make()\n}\n",
	"rs/src/a/mod.rs":             "pub mod b;\npub mod c;\n",
	"rs/src/a/b.rs":               "pub fn make() -> u32 {\n    1\n}\n",
	"rs/src/a/c.rs":               "use super::b::make;\n\npub fn twice() -> u32 {\n    make() * 2\n}\n",
	"rb/lib/shop.rb":              "require_relative 'shop/cart'\nrequire 'json'\n",
	"rb/lib/shop/cart.rb":         "class Cart\nend\n",
	"sh/run.sh":                   "#!/bin/sh\nsource \"$DIR/lib.sh\"\ngreet\n",
	"sh/lib.sh":                   "greet() {\n  echo hi\n}\n",
	"php/src/Models/User.php":     "<?php\nnamespace App\\Models;\n\nclass User {}\n",
	"php/src/Http/Controller.php": "<?php\nnamespace App\\Http;\n\nuse App\\Models\\User;\n\nclass Controller {}\n",
	"cs/Models/Order.cs":          "namespace Shop.Models { public class Order {} }\n",
	"cs/Program.cs":               "using System;\nusing Shop.Models;\n\nclass Program { static void Main() { } }\n",
}

func TestOtherLanguages(t *testing.T) {
	db := fixtureOf(t, polyglotFiles)
	for _, c := range []struct {
		sel  string
		want []string
	}{
		{"app/main.c", []string{"1 stdio.h -> external", "2 util.h -> src/util.h"}},
		{"src/util.c", []string{"1 util.h -> src/util.h"}},
		{"java/com/acme/app/App.java", []string{"3 java.util.List -> external", "4 com.acme.Money -> java/com/acme/Money.java"}},
		{"rs/src/lib.rs", []string{"2 crate::a::{b, c} -> rs/src/a/b.rs,rs/src/a/c.rs", "3 std::fmt -> external"}},
		{"rs/src/a/c.rs", []string{"1 super::b::make -> rs/src/a/b.rs"}},
		{"rb/lib/shop.rb", []string{"1 shop/cart -> rb/lib/shop/cart.rb", "2 json -> external"}},
		{"sh/run.sh", []string{"2 $DIR/lib.sh -> sh/lib.sh"}},
		{"php/src/Http/Controller.php", []string{"4 App\\Models\\User -> php/src/Models/User.php"}},
		{"cs/Program.cs", []string{"1 System -> external", "2 Shop.Models -> cs/Models/Order.cs"}},
	} {
		check(t, c.sel, importsOf(expand(t, db, c.sel)), c.want)
	}
	x := expand(t, db, "src/util.h")
	check(t, "header importers", importersOf(x), []string{"app/main.c:2 util.h", "src/util.c:1 util.h"})
	x = expand(t, db, "src/util.c::@util_add")
	// C has no import of the defining file, so every C file is searched;
	// the header's prototype is a declaration, not a call.
	check(t, "c callers", callersOf(x), []string{"app/main.c:5 main (function) calls util_add"})
	x = expand(t, db, "java/com/acme/Money.java::@add")
	check(t, "java callers", callersOf(x), []string{"java/com/acme/app/App.java:8 App.main (method) calls add"})
	x = expand(t, db, "rs/src/a/c.rs")
	check(t, "rust callees", calleesOf(x), []string{"rs/src/a/b.rs:1 make (function) <- 4"})
}
