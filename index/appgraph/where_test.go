package appgraph

import "testing"

// Located, deferred by an extractor, turns a panic of its walk into a
// Failure at the line of Where.At, and leaves one already located as it is.
func TestLocated(t *testing.T) {
	src := []byte("a();\nb();\nc();\n")
	for _, tt := range []struct {
		at    uint32
		panic any
		want  Failure
	}{
		{5, "boom", Failure{Line: 2, Err: "boom"}}, // b(), on line 2
		{5, Failure{Line: 3, Err: "inner"}, Failure{Line: 3, Err: "inner"}},
		{99, "past the end", Failure{Line: 4, Err: "past the end"}},
	} {
		func() {
			defer func() {
				if got := recover(); got != tt.want {
					t.Errorf("at %d, panic %v: recovered %#v, want %#v", tt.at, tt.panic, got, tt.want)
				}
			}()
			w := Where{At: tt.at}
			defer w.Located(src)
			panic(tt.panic)
		}()
	}
}
