package related

import "testing"

// TestPythonSubmoduleAttributeChains: `import pkg.sub` binds pkg.sub, and
// pkg.sub.client names its submodule client (as `import pkg.sub as s`
// makes s.client); a call through such a chain reaches the submodule's
// class and its methods, as callee and as caller.
func TestPythonSubmoduleAttributeChains(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"src/pkg/__init__.py":     "",
		"src/pkg/sub/__init__.py": "",
		"src/pkg/sub/client.py":   "class Client:\n    def get(self, url):\n        return url\n",
		"app/dotted.py":           "import pkg.sub\n\n\ndef run():\n    c = pkg.sub.client.Client()\n    return c.get(\"/\")\n",
		"app/alias.py":            "import pkg.sub as s\n\n\ndef run():\n    return s.client.Client().get(\"/\")\n",
	})
	check(t, "dotted callees", calleesOf(expand(t, db, "app/dotted.py::@run")), []string{
		"src/pkg/sub/client.py:1 Client (class) <- 5",
		"src/pkg/sub/client.py:2 Client.get (method) <- 6",
	})
	check(t, "alias callees", calleesOf(expand(t, db, "app/alias.py::@run")), []string{
		"src/pkg/sub/client.py:1 Client (class) <- 5",
		"src/pkg/sub/client.py:2 Client.get (method) <- 5",
	})
	// The class selected holds its methods: their callers are its callers.
	check(t, "Client callers", callersOf(expand(t, db, "src/pkg/sub/client.py::@Client")), []string{
		"app/alias.py:5 run (function) calls Client", "app/alias.py:5 run (function) calls get",
		"app/dotted.py:5 run (function) calls Client", "app/dotted.py:6 run (function) calls get"})
	check(t, "Client.get callers", callersOf(expand(t, db, "src/pkg/sub/client.py::@Client.get")), []string{
		"app/alias.py:5 run (function) calls get", "app/dotted.py:6 run (function) calls get"})
}

// TestPythonWithSelfTypeVar: `def __enter__(self: T) -> T` returns the
// instance (T a TypeVar bound to the class), and `async with` takes what
// __aenter__ returns: the methods called on the bound name are callees,
// and the calls callers.
func TestPythonWithSelfTypeVar(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"lib/client.py": `import typing

T = typing.TypeVar("T", bound="Client")
U = typing.TypeVar("U", bound="AsyncClient")


class Client:
    def __enter__(self: T) -> T:
        return self

    def get(self, url):
        return url


class AsyncClient:
    async def __aenter__(self: U) -> U:
        return self

    async def get(self, url):
        return url
`,
		"app/use.py": `from lib.client import AsyncClient, Client


def run():
    with Client() as c:
        return c.get("/")


async def arun():
    async with AsyncClient() as c:
        return await c.get("/")
`,
	})
	check(t, "run callees", calleesOf(expand(t, db, "app/use.py::@run")), []string{
		"lib/client.py:7 Client (class) <- 5", "lib/client.py:11 Client.get (method) <- 6"})
	check(t, "arun callees", calleesOf(expand(t, db, "app/use.py::@arun")), []string{
		"lib/client.py:15 AsyncClient (class) <- 10", "lib/client.py:19 AsyncClient.get (method) <- 11"})
	check(t, "AsyncClient.get callers", callersOf(expand(t, db, "lib/client.py::@AsyncClient.get")), []string{
		"app/use.py:11 arun (function) calls get"})
}

// TestPythonDottedImportBindsTopPackage: `import pkg.sub` binds pkg too,
// so pkg.Client() is the package's Client.
func TestPythonDottedImportBindsTopPackage(t *testing.T) {
	db := fixtureOf(t, map[string]string{
		"src/pkg/__init__.py":     "from .client import Client\n",
		"src/pkg/client.py":       "class Client:\n    def get(self, url):\n        return url\n",
		"src/pkg/sub/__init__.py": "",
		"tests/test_top.py":       "import pkg.sub\n\n\ndef test_top():\n    return pkg.Client().get(\"/\")\n",
	})
	check(t, "test_top callees", calleesOf(expand(t, db, "tests/test_top.py::@test_top")), []string{
		"src/pkg/client.py:1 Client (class) <- 5", "src/pkg/client.py:2 Client.get (method) <- 5"})
	check(t, "Client.get callers", callersOf(expand(t, db, "src/pkg/client.py::@Client.get")), []string{
		"tests/test_top.py:5 test_top (function) calls get"})
}
