package themes

import (
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// renderer returns a renderer with a fixed profile and background, so tests
// never depend on the terminal they run in.
func renderer(p termenv.Profile, dark bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(p)
	r.SetHasDarkBackground(dark)
	return r
}

func allPalettes(t *testing.T) []Palette {
	t.Helper()
	ps := []Palette{Dark(), Light(), HighContrast(), Auto()}
	for _, name := range Names() {
		p, err := ByName(name)
		if err != nil {
			t.Fatalf("ByName(%q): %v", name, err)
		}
		if p.Name != name {
			t.Errorf("ByName(%q).Name = %q", name, p.Name)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestPalettesComplete walks every field by reflection so a field added to
// Palette later cannot be forgotten in one of the constructors.
func TestPalettesComplete(t *testing.T) {
	for _, p := range allPalettes(t) {
		v := reflect.ValueOf(p)
		for i := 0; i < v.NumField(); i++ {
			name := p.Name + "." + v.Type().Field(i).Name
			switch f := v.Field(i).Interface().(type) {
			case string:
				if f == "" {
					t.Errorf("%s is empty", name)
				}
			case lipgloss.AdaptiveColor:
				if f.Light == "" || f.Dark == "" {
					t.Errorf("%s = %+v: zero colour", name, f)
				}
			case ChromaStyle:
				for _, s := range []string{f.Light, f.Dark} {
					if _, ok := styles.Registry[s]; !ok {
						t.Errorf("%s: chroma has no style %q", name, s)
					}
				}
			default:
				t.Errorf("%s: test does not know type %T", name, f)
			}
		}
	}
}

func TestByName(t *testing.T) {
	for in, want := range map[string]string{
		"": NameAuto, "auto": NameAuto, " Dark ": NameDark,
		"LIGHT": NameLight, "high-contrast": NameHighContrast,
	} {
		p, err := ByName(in)
		if err != nil || p.Name != want {
			t.Errorf("ByName(%q) = %q, %v; want %q", in, p.Name, err, want)
		}
	}
	_, err := ByName("solarized")
	if err == nil {
		t.Fatal("ByName(solarized): no error")
	}
	for _, want := range append(Names(), "solarized") {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestNoColor(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"NO_COLOR": ""}, false}, // set but empty: ignored per no-color.org
		{map[string]string{"NO_COLOR": "1"}, true},
		{map[string]string{"NO_COLOR": "0"}, true}, // any non-empty value counts
		{map[string]string{"NOCOLOR": "1"}, false},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := NoColor(getenv); got != tc.want {
			t.Errorf("NoColor(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
	if NoColor(nil) {
		t.Error("NoColor(nil) = true")
	}
}

var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// colourCodes returns the SGR parameters in s that set a colour, and whether
// s holds any escape sequence that is not SGR.
func colourCodes(s string) (colours []string, other bool) {
	if strings.Count(s, "\x1b") != len(sgr.FindAllString(s, -1)) {
		other = true
	}
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			switch p {
			case "0", "1", "3", "4", "7", "22", "23", "24", "27":
			default:
				colours = append(colours, p)
			}
		}
	}
	return colours, other
}

// renderAll renders a sample through every lipgloss.Style field of s.
func renderAll(s Styles) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumField(); i++ {
		if st, ok := v.Field(i).Interface().(lipgloss.Style); ok {
			out[v.Type().Field(i).Name] = st.Render("sample text")
		}
	}
	return out
}

func TestNewStylesNoColor(t *testing.T) {
	r := renderer(termenv.TrueColor, true)
	for _, p := range allPalettes(t) {
		s := NewStyles(r, p, true)
		if !s.NoColor || s.CodeTheme != "" {
			t.Errorf("%s: NoColor=%v CodeTheme=%q", p.Name, s.NoColor, s.CodeTheme)
		}
		out := renderAll(s)
		for name, got := range out {
			if cs, other := colourCodes(got); len(cs) > 0 || other {
				t.Errorf("%s.%s = %q: colour codes %v (other escapes: %v)", p.Name, name, got, cs, other)
			}
		}
		// Selection and focus must stay visible without colour.
		if !strings.Contains(out["RowSelected"], "\x1b[7m") {
			t.Errorf("%s: RowSelected %q is not reverse video", p.Name, out["RowSelected"])
		}
		if out["PaneBorder"] == out["PaneBorderFocused"] {
			t.Errorf("%s: focused and unfocused borders look the same", p.Name)
		}
		if out["PaneTitle"] == out["PaneTitleFocused"] {
			t.Errorf("%s: focused and unfocused titles look the same", p.Name)
		}
	}
}

// TestNewStylesColor also proves colourCodes would catch a colour.
func TestNewStylesColor(t *testing.T) {
	for _, p := range allPalettes(t) {
		s := NewStyles(renderer(termenv.TrueColor, true), p, false)
		for _, name := range []string{"RowSelected", "PaneBorderFocused", "StatusError", "LineNumber"} {
			if cs, _ := colourCodes(renderAll(s)[name]); len(cs) == 0 {
				t.Errorf("%s.%s has no colour", p.Name, name)
			}
		}
	}
}

func TestAdaptive(t *testing.T) {
	for _, tc := range []struct {
		dark      bool
		wantText  string // SGR for the text colour, TrueColor
		wantTheme string
	}{
		{true, "38;2;192;202;245", "tokyonight-night"}, // #C0CAF5
		{false, "38;2;31;35;40", "github"},             // #1F2328
	} {
		s := NewStyles(renderer(termenv.TrueColor, tc.dark), Auto(), false)
		if s.CodeTheme != tc.wantTheme {
			t.Errorf("dark=%v: CodeTheme = %q, want %q", tc.dark, s.CodeTheme, tc.wantTheme)
		}
		if got := s.Row.Render("x"); !strings.Contains(got, tc.wantText) {
			t.Errorf("dark=%v: Row renders %q, want colour %s", tc.dark, got, tc.wantText)
		}
	}
	if got := NewStyles(renderer(termenv.TrueColor, false), HighContrast(), false).CodeTheme; got != "modus-operandi" {
		t.Errorf("high-contrast on light: CodeTheme = %q", got)
	}
}

// TestAsciiProfile checks the other way to lose colour: a terminal that
// cannot show any. lipgloss must then drop the palette's colours by itself.
func TestAsciiProfile(t *testing.T) {
	s := NewStyles(renderer(termenv.Ascii, true), Dark(), false)
	for name, got := range renderAll(s) {
		if cs, _ := colourCodes(got); len(cs) > 0 {
			t.Errorf("%s = %q under Ascii profile", name, got)
		}
	}
}

func TestNilRenderer(t *testing.T) {
	s := NewStyles(nil, Light(), true)
	if s.Renderer != lipgloss.DefaultRenderer() {
		t.Error("nil renderer did not fall back to lipgloss's default")
	}
	if hs := s.HelpStyles(); hs.ShortKey.Render("k") != s.HelpKey.Render("k") {
		t.Error("HelpStyles.ShortKey differs from HelpKey")
	}
}

// env is a fixed environment for termenv.
type env map[string]string

func (e env) Environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

func (e env) Getenv(k string) string { return e[k] }

// TestNoColorKeepsEmphasis: with NO_COLOR on a terminal the selection is
// reverse video and focus bold, with no colour anywhere (termenv's own
// reading of NO_COLOR drew neither); a dumb terminal still gets plain text.
func TestNoColorKeepsEmphasis(t *testing.T) {
	e := env{"TERM": "xterm-256color", "NO_COLOR": "1"}
	r := NewRenderer(io.Discard, NoColor(e.Getenv), termenv.WithTTY(true), termenv.WithEnvironment(e))
	out := renderAll(NewStyles(r, Dark(), true))
	if !hasSGR(out["RowSelected"], "7") {
		t.Errorf("RowSelected %q is not reverse video under NO_COLOR", out["RowSelected"])
	}
	if !hasSGR(out["PaneTitleFocused"], "1") {
		t.Errorf("PaneTitleFocused %q is not bold under NO_COLOR", out["PaneTitleFocused"])
	}
	for name, got := range out {
		if cs, other := colourCodes(got); len(cs) > 0 || other {
			t.Errorf("%s = %q under NO_COLOR: colour codes %v (other escapes: %v)", name, got, cs, other)
		}
	}
	e["TERM"] = "dumb"
	r = NewRenderer(io.Discard, true, termenv.WithTTY(true), termenv.WithEnvironment(e))
	if got := NewStyles(r, Dark(), true).RowSelected.Render("x"); got != "x" {
		t.Errorf("a dumb terminal got escapes: %q", got)
	}
}

// hasSGR says whether s sets the SGR attribute param (1 bold, 7 reverse).
func hasSGR(s, param string) bool {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' }) {
			if p == param {
				return true
			}
		}
	}
	return false
}
