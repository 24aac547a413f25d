package related

import "testing"

var javaFiles = map[string]string{
	"src/main/java/com/acme/util/Money.java":   "package com.acme.util;\n\npublic final class Money {\n    public static String format(int cents) { return \"\" + cents; }\n}\n",
	"src/main/java/com/acme/shop/Helper.java":  "package com.acme.shop;\n\nclass Helper {\n    void run() {}\n}\n",
	"src/main/java/com/acme/other/Helper.java": "package com.acme.other;\n\npublic class Helper {\n    public void run() {}\n}\n",
	"src/main/java/com/acme/shop/Order.java": `package com.acme.shop;

import static com.acme.util.Money.format;

public class Order extends Entity {
    private final Helper helper = new Helper();

    String show(int cents) {
        helper.run();
        touch();
        return format(cents) + com.acme.util.Money.format(1);
    }
}
`,
	"src/main/java/com/acme/shop/Entity.java": "package com.acme.shop;\n\nabstract class Entity {\n    protected void touch() {}\n}\n",
}

func TestJavaStaticImportsAndPackages(t *testing.T) {
	db := fixtureOf(t, javaFiles)
	x := expand(t, db, "src/main/java/com/acme/shop/Order.java::@Order.show")
	// The package's Helper, not com.acme.other's; touch() is inherited;
	// format is the static import's, written out or not.
	check(t, "callees", calleesOf(x), []string{
		"src/main/java/com/acme/shop/Helper.java:4 Helper.run (method) <- 9",
		"src/main/java/com/acme/shop/Entity.java:4 Entity.touch (method) <- 10",
		"src/main/java/com/acme/util/Money.java:4 Money.format (method) <- 11",
	})
	x = expand(t, db, "src/main/java/com/acme/other/Helper.java::@Helper.run")
	check(t, "callers", callersOf(x), nil)
}

// javaNestedFiles is one package split between source roots, with a
// nested class that calls its outer class's statics unqualified and
// overloads told apart by their argument counts.
var javaNestedFiles = map[string]string{
	"src/main/java/com/x/A.java": `package com.x;

public class A {
    static int helper(int a) { return a; }
    static int helper(int a, int b) { return a + b; }

    static class Nested {
        Nested(int x) {}
        Nested(int x, int y) {}
        int run() { return helper(1); }
    }

    static class NoCtor {
        void go() {}
    }

    void make() {
        new Nested(1).run();
        new NoCtor().go();
        helper(1, 2);
    }

    private final Tool tool = new Tool();

    class Inner {
        void use() { tool.fix(); }
    }
}
`,
	"src/main/java/com/x/Tool.java": "package com.x;\n\nclass Tool {\n    void fix() {}\n}\n",
	"src/test/java/com/y/UseNested.java": `package com.y;

import com.x.A.Nested;
import com.x.A;

class UseNested {
    void use() {
        new Nested(1).run();
        new A.NoCtor() {}.go();
    }
}
`,
	"src/test/java/com/x/ATest.java": `package com.x;

class ATest {
    void test() {
        A.helper(1, 2);
        new A.Nested(2, 3);
    }
}
`,
	"src/test/java/com/y/Other.java": "package com.y;\n\nclass Other {\n    static int helper(int a) { return a; }\n}\n",
}

func TestJavaNestedOverloadsAndSourceRoots(t *testing.T) {
	db := fixtureOf(t, javaNestedFiles)
	const a = "src/main/java/com/x/A.java"
	check(t, "make callees", calleesOf(expand(t, db, a+"::@A.make")), []string{
		a + ":8 Nested.Nested (method) <- 18", // the one-argument constructor
		a + ":10 Nested.run (method) <- 18",
		a + ":13 A.NoCtor (class) <- 19", // no constructor: the class
		a + ":14 NoCtor.go (method) <- 19",
		a + ":5 A.helper (method) <- 20", // two arguments: not helper(int)
	})
	check(t, "run callees", calleesOf(expand(t, db, a+"::@A.Nested.run")), []string{a + ":4 A.helper (method) <- 10"})
	check(t, "ATest callees", calleesOf(expand(t, db, "src/test/java/com/x/ATest.java::@ATest.test")), []string{
		a + ":5 A.helper (method) <- 5",
		a + ":9 Nested.Nested (method) <- 6",
	})
	// An imported nested class; an anonymous subclass's members are its
	// base's; an inner class reaches its outer class's fields.
	check(t, "UseNested callees", calleesOf(expand(t, db, "src/test/java/com/y/UseNested.java::@UseNested.use")), []string{
		a + ":8 Nested.Nested (method) <- 8",
		a + ":10 Nested.run (method) <- 8",
		a + ":13 A.NoCtor (class) <- 9",
		a + ":14 NoCtor.go (method) <- 9",
	})
	check(t, "Inner.use callees", calleesOf(expand(t, db, a+"::@A.Inner.use")), []string{"src/main/java/com/x/Tool.java:4 Tool.fix (method) <- 26"})
	// helper(int) alone (line 4): called from the nested class only.
	check(t, "helper(int) callers", callersOf(expand(t, db, a+"::4,4")), []string{a + ":10 A.Nested.run (method) calls helper"})
	check(t, "helper(int, int) callers", callersOf(expand(t, db, a+"::5,5")), []string{
		a + ":20 A.make (method) calls helper", "src/test/java/com/x/ATest.java:5 ATest.test (method) calls helper"})
	check(t, "Nested(int, int) callers", callersOf(expand(t, db, a+"::9,9")), []string{
		"src/test/java/com/x/ATest.java:6 ATest.test (method) calls Nested"})
	// The class's span holds go() too.
	check(t, "NoCtor callers", callersOf(expand(t, db, a+"::@A.NoCtor")), []string{
		a + ":19 A.make (method) calls NoCtor", a + ":19 A.make (method) calls go",
		"src/test/java/com/y/UseNested.java:9 UseNested.use (method) calls NoCtor", "src/test/java/com/y/UseNested.java:9 UseNested.use (method) calls go"})
}
