package docquery

import "testing"

func TestFirstSentence(t *testing.T) {
	cases := []struct{ doc, name, want string }{
		{"IsLoopback reports whether ip is a loopback address. More text.", "IsLoopback", "reports whether ip is a loopback address"},
		{"Addr.IsZero reports whether a is the zero value.\n", "IsZero", "reports whether a is the zero value"},
		{"exprNode() ensures that only expression nodes can be assigned.", "exprNode", "ensures that only expression nodes can be assigned"},
		{"Returns the number\nof bytes (excluding the header).", "n", "Returns the number of bytes (excluding the header)"},
	}
	for _, c := range cases {
		if got := FirstSentence(c.doc, c.name); got != c.want {
			t.Errorf("FirstSentence(%q, %q) = %q, want %q", c.doc, c.name, got, c.want)
		}
	}
	if Enough("two words") || !Enough("three words here") {
		t.Error("Enough: a query needs three words")
	}
}
