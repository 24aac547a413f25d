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
