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
