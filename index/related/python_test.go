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
