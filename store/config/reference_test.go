package config

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestReferenceHasEverySetting: the TOML example of config.md (`dossier
// help config`), its commented settings uncommented, names every setting
// of Config, and no setting Config lacks (it decodes strictly).
func TestReferenceHasEverySetting(t *testing.T) {
	_, rest, ok := strings.Cut(Reference, "```toml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("config.md has no ```toml block")
	}
	block = regexp.MustCompile(`(?m)^# ([a-z_]+ = )`).ReplaceAllString(block, "$1")
	var cfg Config
	dec := toml.NewDecoder(strings.NewReader(block))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("config.md's example is not a valid config: %v", err)
	}
	var doc map[string]map[string]any
	if err := toml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatal(err)
	}
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		sec := ct.Field(i).Tag.Get("toml")
		if sec == "-" {
			continue
		}
		st := ct.Field(i).Type
		for j := range st.NumField() {
			key := st.Field(j).Tag.Get("toml")
			if _, ok := doc[sec][key]; !ok && key != "-" {
				t.Errorf("the setting [%s] %s (Config.%s.%s) is not in config.md's example", sec, key, ct.Field(i).Name, st.Field(j).Name)
			}
		}
	}
}
