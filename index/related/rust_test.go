package related

import "testing"

// rustCrateFiles is an anyhow-shaped crate: the type is declared in
// lib.rs, its methods in error.rs, and the tests name the crate.
var rustCrate = map[string]string{
	"Cargo.toml": "[package]\nname = \"any-how\"\nversion = \"1.0.0\"\n",
	"src/lib.rs": "mod error;\n\npub struct Error {\n    inner: Box<str>,\n}\n",
	"src/error.rs": `use crate::Error;

impl Error {
    pub fn new(msg: &str) -> Self {
        Error::construct(msg)
    }

    fn construct(msg: &str) -> Self {
        Error { inner: msg.into() }
    }
}
`,
	"tests/test_new.rs": `use any_how::Error;

#[test]
fn makes() {
    let e = Error::new("x");
    drop(e);
}
`,
}

func TestRustImplsAcrossTheCrate(t *testing.T) {
	db := fixtureOf(t, rustCrate)
	x := expand(t, db, "src/error.rs::@Error.new")
	check(t, "callees", calleesOf(x), []string{"src/error.rs:8 Error.construct (method) <- 5"})
	check(t, "callers", callersOf(x), []string{"tests/test_new.rs:5 makes (function) calls new"})
}
