package evidence

import "testing"

// TestEveryEngineCommandIsDocumented: every command of the evidence
// engine (evidence, flow, assemble, ask, env) has a summary and every
// flag a usage line.
func TestEveryEngineCommandIsDocumented(t *testing.T) {
	for _, m := range Undocumented() {
		t.Error(m)
	}
	if Help("", "assemble") == "" || Help("evidence", "add") == "" {
		t.Error("Help finds no assemble or evidence add")
	}
}
