package related

import "testing"

// javaOverloadFiles has overloads of one arity that only the arguments'
// types tell apart: literals, new T(), a cast, this, a typed local,
// parameter and field, a subclass passed for its base, and a call whose
// argument's type the syntax does not show.
var javaOverloadFiles = map[string]string{
	"src/main/java/com/x/Writer.java": `package com.x;

public class Writer {
    Writer value(String s) { return this; }
    Writer value(long n) { return this; }
    Writer value(double d) { return this; }
    Writer value(boolean b) { return this; }
    Writer value(Element e) { return this; }
    Writer value(Object o) { return this; }
    Writer of(Class<?> c) { return this; }
    Writer of(java.lang.reflect.Type t) { return this; }
}
`,
	"src/main/java/com/x/Element.java": "package com.x;\n\npublic class Element {}\n",
	"src/main/java/com/x/Leaf.java":    "package com.x;\n\npublic class Leaf extends Element {}\n",
	"src/main/java/com/x/Use.java": `package com.x;

class Use {
    private final Leaf leaf = new Leaf();

    void literals(Writer w) {
        w.value("s");
        w.value(1);
        w.value(2.5);
        w.value(true);
    }

    void typed(Writer w, Element e, int n) {
        Leaf l = new Leaf();
        w.value(e);
        w.value(n);
        w.value(l);
        w.value(leaf);
        w.value(new Leaf());
        w.value((Element) null);
        w.value(this);
    }

    void unknown(Writer w) {
        w.value(compute());
    }

    Object compute() { return null; }

    void types(Writer w, java.lang.reflect.Type t) {
        w.of(Use.class);
        w.of(t);
    }
}
`,
}

func TestJavaOverloadsByArgumentTypes(t *testing.T) {
	db := fixtureOf(t, javaOverloadFiles)
	const w, u = "src/main/java/com/x/Writer.java", "src/main/java/com/x/Use.java"
	check(t, "literals", calleesOf(expand(t, db, u+"::@Use.literals")), []string{
		w + ":4 Writer.value (method) <- 7",  // "s": String
		w + ":5 Writer.value (method) <- 8",  // 1: int widens to long before double
		w + ":6 Writer.value (method) <- 9",  // 2.5: double
		w + ":7 Writer.value (method) <- 10", // true: boolean
	})
	check(t, "typed", calleesOf(expand(t, db, u+"::@Use.typed")), []string{
		"src/main/java/com/x/Leaf.java:3 Leaf (class) <- 14",
		w + ":8 Writer.value (method) <- 15", // Element, and Leaf for its base
		w + ":5 Writer.value (method) <- 16", // int parameter
		w + ":9 Writer.value (method) <- 21", // this: a Use is only an Object
	})
	// compute() returns a type the syntax of the call does not show: every
	// one-argument overload.
	got := calleesOf(expand(t, db, u+"::@Use.unknown"))
	if len(got) != 7 {
		t.Errorf("unknown argument: want compute and the 6 overloads, got %q", got)
	}
	// Use.class is a Class, more specific than Type; t is a Type, which
	// of(Class) may not take, so it does not hide of(Type).
	check(t, "types", calleesOf(expand(t, db, u+"::@Use.types")), []string{
		w + ":10 Writer.of (method) <- 31", w + ":11 Writer.of (method) <- 32"})
	check(t, "value(Element) callers", callersOf(expand(t, db, w+"::8,8")), []string{
		u + ":15 Use.typed (method) calls value", u + ":25 Use.unknown (method) calls value"})
}
