package related

import "testing"

var pyPackageFiles = map[string]string{
	"src/pkg/__init__.py": "from .sessions import Session\nfrom .api import *\n",
	"src/pkg/sessions.py": `from typing import Self


class Session:
    def __enter__(self) -> Self:
        return self

    def request(self, url):
        return self.send(url)

    def send(self, url):
        return url
`,
	"src/pkg/api.py": `from . import sessions

__all__ = ["get"]


def get(url):
    with sessions.Session() as s:
        return s.request(url)
`,
	"app/main.py": `import pkg


def run():
    s = pkg.Session()
    s.send("x")
    return pkg.get("y")
`,
}

func TestPythonReexportsAndWith(t *testing.T) {
	db := fixtureOf(t, pyPackageFiles)
	// pkg.Session and pkg.get are names the package's __init__ imports.
	x := expand(t, db, "app/main.py::@run")
	check(t, "callees", calleesOf(x), []string{
		"src/pkg/sessions.py:4 Session (class) <- 5",
		"src/pkg/sessions.py:11 Session.send (method) <- 6",
		"src/pkg/api.py:6 get (function) <- 7",
	})
	// with Session() as s: s is what __enter__ returns, a Self.
	x = expand(t, db, "src/pkg/sessions.py::@Session.request")
	check(t, "callers", callersOf(x), []string{"src/pkg/api.py:8 get (function) calls request"})
}

// TestCallersThroughImportAliases: a definition imported under another
// name is called by that name; its callers include those calls, as its
// callees' list already did.
func TestCallersThroughImportAliases(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"pkg/lib.py":     "def helper(n):\n    return n\n",
		"pkg/app.py":     "from pkg.lib import helper as h\n\n\ndef run():\n    return h(3)\n",
		"web/lib.ts":     "export function format(u: string): string {\n  return u;\n}\n",
		"web/service.ts": "import { format as fmt } from \"./lib\";\n\nexport function show(u: string) {\n  return fmt(u);\n}\n",
	})
	check(t, "callers", callersOf(expand(t, db, "pkg/lib.py::@helper")), []string{"pkg/app.py:5 run (function) calls h"})
	check(t, "callers", callersOf(expand(t, db, "web/lib.ts::@format")), []string{"web/service.ts:4 show (function) calls fmt"})
}

// TestPythonCallersThroughReexports: a package re-exports its client
// (`from ._client import *` with `__all__`); callers reach Client.get as
// `import pkg` then `pkg.Client().get()`, and through a fixture's variable.
func TestPythonCallersThroughReexports(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"pkg/__init__.py": "from ._client import *\n",
		"pkg/_client.py":  "__all__ = [\"Client\"]\n\n\nclass Client:\n    def get(self, url):\n        return url\n",
		"app/run.py":      "import pkg\n\n\ndef fetch():\n    return pkg.Client().get(\"/\")\n",
		"tests/test_client.py": `import pytest

import pkg


@pytest.fixture
def client():
    client = pkg.Client()
    return client


def test_get():
    c = pkg.Client()
    assert c.get("/x") == "/x"
`,
	})
	x := expand(t, db, "pkg/_client.py::@Client.get")
	check(t, "Client.get callers", callersOf(x), []string{
		"app/run.py:5 fetch (function) calls get", "tests/test_client.py:14 test_get (function) calls get"})
}

// TestPythonCallersThroughPackageChains: callers reach a method through
// a package that re-exports it by way of another module (`from
// pkg._api import *`, whose _api imports it from pkg.sub.client), by
// `from pkg import Client`, and a function by its dotted module path
// (`import pkg.sub.mod` then pkg.sub.mod.f()).
func TestPythonCallersThroughPackageChains(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"src/pkg/__init__.py":     "from pkg._api import *\nfrom . import sub\n",
		"src/pkg/_api.py":         "from pkg.sub.client import Client as Client\n\n__all__ = [\"Client\"]\n",
		"src/pkg/sub/__init__.py": "",
		"src/pkg/sub/client.py":   "class Client:\n    def get(self, url):\n        return url\n",
		"src/pkg/sub/mod.py":      "def f(x):\n    return x\n",
		"tests/test_dotted.py":    "import pkg.sub.mod\n\n\ndef test_dotted():\n    return pkg.sub.mod.f(1)\n",
		"tests/test_pkg.py":       "import pkg\n\n\ndef test_pkg():\n    return pkg.Client().get(\"/\")\n",
		"tests/test_from.py":      "from pkg import Client\n\n\ndef test_from():\n    return Client().get(\"/\")\n",
	})
	check(t, "f callers", callersOf(expand(t, db, "src/pkg/sub/mod.py::@f")), []string{
		"tests/test_dotted.py:5 test_dotted (function) calls f"})
	x := expand(t, db, "src/pkg/sub/client.py::@Client.get")
	check(t, "Client.get callers", callersOf(x), []string{
		"tests/test_from.py:5 test_from (function) calls get", "tests/test_pkg.py:5 test_pkg (function) calls get"})
	var importers []string
	for _, r := range x.Importers {
		importers = append(importers, r.Path)
	}
	check(t, "importers", importers, []string{"src/pkg/_api.py", "tests/test_from.py", "tests/test_pkg.py"})
}
