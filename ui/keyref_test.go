package ui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/dossierhq/dossier/ui/reference"
)

// TestKeyReference: every key of every binding of the KeyMap is in the
// workbench's reference (ui/reference/keys.md, `dossier help keys`), in
// backticks as the reference spells keys (arrows as arrows, space as
// space), so a new binding or a new key for one cannot ship undocumented.
func TestKeyReference(t *testing.T) {
	spelled := map[string]string{"up": "↑", "down": "↓", "left": "←", "right": "→", " ": "space"}
	km := reflect.ValueOf(DefaultKeyMap())
	for i := range km.NumField() {
		b := km.Field(i).Interface().(key.Binding)
		for _, k := range b.Keys() {
			if s, ok := spelled[k]; ok {
				k = s
			}
			documented := strings.Contains(reference.Keys, "`"+k+"`")
			if len(k) == 1 && k >= "1" && k <= "9" {
				documented = strings.Contains(reference.Keys, "`1`-`9`") // as the reference writes the range
			}
			if !documented {
				t.Errorf("KeyMap.%s: the key %q is not in ui/reference/keys.md (as `%s`)", km.Type().Field(i).Name, k, k)
			}
		}
	}
}
