// Package themes holds dossier's semantic colour palettes and the one Styles
// value the TUI builds from a palette. Components never create colours
// themselves: they take every style from Styles, so a palette change or
// NO_COLOR reaches the whole interface from one place (gh-dash's theme package
// and InitStyles are the model).
//
// Styles are bound to a *lipgloss.Renderer chosen by the caller rather than to
// lipgloss's default renderer. The TUI passes a renderer for its output, tests
// pass lipgloss.NewRenderer(io.Discard) with a fixed colour profile and
// background, and both get stable, controllable output.
package themes

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// ChromaStyle names the chroma style used for highlighted code on a light and
// on a dark terminal background, so code previews match the surrounding
// palette.
type ChromaStyle struct {
	Light string
	Dark  string
}

// Palette is a set of semantic colours. Each colour is adaptive: lipgloss
// picks Light or Dark from the renderer's background, so one palette (Auto)
// can serve both kinds of terminal. Fixed palettes use the same value twice.
type Palette struct {
	Name string

	Text          lipgloss.AdaptiveColor // body text
	Muted         lipgloss.AdaptiveColor // secondary text, skipped parts, gutters
	Accent        lipgloss.AdaptiveColor // focus, titles, prompts
	OK            lipgloss.AdaptiveColor // success, within budget
	Warn          lipgloss.AdaptiveColor // stale evidence, budget nearly spent
	Danger        lipgloss.AdaptiveColor // errors, over budget
	Border        lipgloss.AdaptiveColor // unfocused pane borders
	Selection     lipgloss.AdaptiveColor // background of the selected row
	SelectionText lipgloss.AdaptiveColor // foreground of the selected row

	Code ChromaStyle // syntax highlighting in the preview
}

// The palette names accepted by ByName, in the order Names reports them.
const (
	NameAuto         = "auto"
	NameDark         = "dark"
	NameLight        = "light"
	NameHighContrast = "high-contrast"
)

// Colours of the dark palette (Tokyo Night), shared with Auto so the two cannot
// drift apart.
var darkColours = [...]string{
	"#C0CAF5", // Text
	"#737AA2", // Muted
	"#7AA2F7", // Accent
	"#9ECE6A", // OK
	"#E0AF68", // Warn
	"#F7768E", // Danger
	"#3B4261", // Border
	"#2E3C64", // Selection
	"#FFFFFF", // SelectionText
}

// Colours of the light palette (GitHub Primer), shared with Auto.
var lightColours = [...]string{
	"#1F2328", // Text
	"#656D76", // Muted
	"#0969DA", // Accent
	"#1A7F37", // OK
	"#9A6700", // Warn
	"#CF222E", // Danger
	"#D0D7DE", // Border
	"#B6E3FF", // Selection
	"#0A0A0A", // SelectionText
}

// High-contrast colours are ANSI palette indices, not RGB: they follow the
// user's own terminal palette (which high-contrast users tune) and survive
// 16-colour terminals without approximation.
var hcDarkColours = [...]string{"15", "7", "14", "10", "11", "9", "15", "11", "0"}
var hcLightColours = [...]string{"0", "8", "4", "2", "5", "1", "0", "4", "15"}

// build fills the colour fields in declaration order from light and dark
// colour tables.
func build(name string, light, dark [9]string, code ChromaStyle) Palette {
	c := func(i int) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light[i], Dark: dark[i]}
	}
	return Palette{
		Name: name,
		Text: c(0), Muted: c(1), Accent: c(2), OK: c(3), Warn: c(4),
		Danger: c(5), Border: c(6), Selection: c(7), SelectionText: c(8),
		Code: code,
	}
}

// Dark returns the palette for dark terminals regardless of the detected
// background.
func Dark() Palette {
	return build(NameDark, darkColours, darkColours,
		ChromaStyle{Light: "tokyonight-night", Dark: "tokyonight-night"})
}

// Light returns the palette for light terminals regardless of the detected
// background.
func Light() Palette {
	return build(NameLight, lightColours, lightColours,
		ChromaStyle{Light: "github", Dark: "github"})
}

// HighContrast returns a palette of bright ANSI colours with bold focus cues.
// It still adapts to the background, because maximum contrast on white is the
// opposite of maximum contrast on black. The modus chroma styles are designed
// for WCAG AAA contrast.
func HighContrast() Palette {
	return build(NameHighContrast, hcLightColours, hcDarkColours,
		ChromaStyle{Light: "modus-operandi", Dark: "modus-vivendi"})
}

// Auto returns the default palette: Light's colours on a light terminal and
// Dark's on a dark one, chosen by lipgloss from the renderer's background.
func Auto() Palette {
	return build(NameAuto, lightColours, darkColours,
		ChromaStyle{Light: "github", Dark: "tokyonight-night"})
}

// Names returns the palette names ByName accepts, default first.
func Names() []string {
	return []string{NameAuto, NameDark, NameLight, NameHighContrast}
}

// ByName returns the palette called name (case-insensitive). The empty name
// means "auto". An unknown name is an error that lists the valid names, so a
// bad config value tells the user what to write instead.
func ByName(name string) (Palette, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", NameAuto:
		return Auto(), nil
	case NameDark:
		return Dark(), nil
	case NameLight:
		return Light(), nil
	case NameHighContrast:
		return HighContrast(), nil
	}
	return Palette{}, fmt.Errorf("unknown theme %q: use one of %s",
		name, strings.Join(Names(), ", "))
}

// NoColor reports whether the NO_COLOR environment variable is set to a
// non-empty value, which per https://no-color.org means the user wants no
// colour at all. getenv is os.Getenv in production and a map lookup in tests;
// nil means no environment.
func NoColor(getenv func(string) string) bool {
	if getenv == nil {
		return false
	}
	return getenv("NO_COLOR") != ""
}

// NewRenderer is the renderer for styles drawn on the terminal w, to be
// built with the same noColor. termenv reads NO_COLOR as "no escape
// sequences at all" (its Ascii profile), which would also drop the bold,
// reverse and underline that NewStyles keeps for focus and selection; but
// the NO_COLOR convention removes colour, not emphasis. So with noColor
// the renderer gets the ANSI profile, whose attributes are drawn, on any
// terminal that shows them (a TTY whose TERM is not dumb); the styles
// carry no colour for it to draw. opts are termenv's (tests set the TTY
// and the environment).
func NewRenderer(w io.Writer, noColor bool, opts ...termenv.OutputOption) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w, opts...)
	if noColor && termenv.NewOutput(w, opts...).ColorProfile() != termenv.Ascii {
		r.SetColorProfile(termenv.ANSI)
	}
	return r
}

// Styles is every lipgloss style the TUI uses, built once from a palette by
// NewStyles and handed to components through the UI's shared context.
type Styles struct {
	// Renderer is the renderer every style below is bound to. Components use
	// it for colour-free layout (Renderer.Place, Renderer.NewStyle().Width)
	// and the code preview reads its colour profile.
	Renderer *lipgloss.Renderer
	// Palette is the palette the styles were built from, for the rare widget
	// that takes raw colours (bubbles/progress) instead of a style.
	Palette Palette
	// NoColor is true when the styles carry no colour at all; focus and
	// selection are then shown with bold, reverse, underline and border
	// shape only.
	NoColor bool
	// CodeTheme is the chroma style name for highlighted code, picked from
	// Palette.Code by the renderer's background. Empty when NoColor is set,
	// meaning code is shown unhighlighted.
	CodeTheme string

	App               lipgloss.Style
	PaneBorder        lipgloss.Style // unfocused pane: border only, no padding
	PaneBorderFocused lipgloss.Style
	PaneTitle         lipgloss.Style
	PaneTitleFocused  lipgloss.Style
	Divider           lipgloss.Style // separators inside a pane

	// Evidence list rows and their columns.
	Row          lipgloss.Style
	RowSelected  lipgloss.Style
	RowMuted     lipgloss.Style // skipped parts
	Rank         lipgloss.Style
	Role         lipgloss.Style
	StateActive  lipgloss.Style
	StateSkipped lipgloss.Style
	StateLink    lipgloss.Style
	StateStale   lipgloss.Style
	StatePinned  lipgloss.Style
	Tokens       lipgloss.Style
	Source       lipgloss.Style
	BandHeader   lipgloss.Style

	// Token budget meter: fill and empty cells, and the fill colour by how
	// much of the budget is used.
	MeterFill  lipgloss.Style
	MeterEmpty lipgloss.Style
	MeterOK    lipgloss.Style
	MeterWarn  lipgloss.Style
	MeterOver  lipgloss.Style

	StatusBar   lipgloss.Style
	StatusError lipgloss.Style
	StatusWarn  lipgloss.Style
	StatusOK    lipgloss.Style
	Spinner     lipgloss.Style

	Help     lipgloss.Style // help bar container
	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	HelpSep  lipgloss.Style

	// Command line (a bubbles/textinput).
	CmdPrompt      lipgloss.Style
	CmdInput       lipgloss.Style
	CmdPlaceholder lipgloss.Style
	CmdCursor      lipgloss.Style

	Overlay      lipgloss.Style // search overlay box
	OverlayTitle lipgloss.Style
	Match        lipgloss.Style // matched characters in search results

	// Code preview.
	LineNumber lipgloss.Style
	Code       lipgloss.Style
}

// NewStyles builds the styles for palette p bound to renderer r (nil means
// lipgloss's default renderer). With noColor set no style carries a colour,
// so NO_COLOR output stays usable: selection is reverse video, focus is bold
// and a heavier border, matches are underlined.
//
// NewStyles asks r whether the background is dark (to pick CodeTheme). On a
// terminal that is a query on stdin, so call NewStyles before Bubble Tea takes
// over the input, or set r.SetHasDarkBackground first.
func NewStyles(r *lipgloss.Renderer, p Palette, noColor bool) Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	base := r.NewStyle()
	// fg and bg drop colours in noColor mode so each style below is written
	// once; the noColor-only cues are added explicitly.
	fg := func(s lipgloss.Style, c lipgloss.AdaptiveColor) lipgloss.Style {
		if noColor {
			return s
		}
		return s.Foreground(c)
	}
	bg := func(s lipgloss.Style, c lipgloss.AdaptiveColor) lipgloss.Style {
		if noColor {
			return s
		}
		return s.Background(c)
	}
	border := func(b lipgloss.Border, c lipgloss.AdaptiveColor) lipgloss.Style {
		s := base.Border(b)
		if noColor {
			return s
		}
		return s.BorderForeground(c)
	}

	s := Styles{Renderer: r, Palette: p, NoColor: noColor}
	if !noColor {
		s.CodeTheme = p.Code.Light
		if r.HasDarkBackground() {
			s.CodeTheme = p.Code.Dark
		}
	}

	s.App = fg(base, p.Text)
	s.PaneBorder = border(lipgloss.RoundedBorder(), p.Border)
	s.PaneBorderFocused = border(lipgloss.RoundedBorder(), p.Accent)
	if noColor {
		// Without colour the border shape is the only focus cue in the frame.
		s.PaneBorderFocused = border(lipgloss.ThickBorder(), p.Accent)
	}
	s.PaneTitle = fg(base, p.Muted)
	s.PaneTitleFocused = fg(base.Bold(true), p.Accent)
	if noColor {
		s.PaneTitleFocused = s.PaneTitleFocused.Underline(true)
	}
	s.Divider = fg(base, p.Border)

	s.Row = fg(base, p.Text)
	s.RowSelected = bg(fg(base, p.SelectionText), p.Selection)
	if noColor {
		s.RowSelected = base.Reverse(true)
	}
	s.RowMuted = fg(base, p.Muted)
	s.Rank = fg(base, p.Muted)
	s.Role = fg(base, p.Accent)
	s.StateActive = fg(base, p.OK)
	s.StateSkipped = fg(base, p.Muted)
	s.StateLink = fg(base, p.Accent)
	s.StateStale = fg(base, p.Warn)
	s.StatePinned = fg(base.Bold(true), p.Accent)
	s.Tokens = fg(base, p.Muted)
	s.Source = fg(base, p.Muted)
	s.BandHeader = fg(base.Bold(true), p.Accent)

	s.MeterFill = fg(base, p.Accent)
	s.MeterEmpty = fg(base, p.Border)
	s.MeterOK = fg(base, p.OK)
	s.MeterWarn = fg(base, p.Warn)
	s.MeterOver = fg(base.Bold(true), p.Danger)

	s.StatusBar = fg(base, p.Muted)
	s.StatusError = fg(base.Bold(true), p.Danger)
	s.StatusWarn = fg(base, p.Warn)
	s.StatusOK = fg(base, p.OK)
	s.Spinner = fg(base, p.Accent)

	s.Help = fg(base, p.Muted)
	s.HelpKey = fg(base.Bold(true), p.Text)
	s.HelpDesc = fg(base, p.Muted)
	s.HelpSep = fg(base, p.Border)

	s.CmdPrompt = fg(base.Bold(true), p.Accent)
	s.CmdInput = fg(base, p.Text)
	s.CmdPlaceholder = fg(base, p.Muted)
	s.CmdCursor = fg(base, p.Accent)

	s.Overlay = border(lipgloss.RoundedBorder(), p.Accent).Padding(0, 1)
	if noColor {
		s.Overlay = border(lipgloss.DoubleBorder(), p.Accent).Padding(0, 1)
	}
	s.OverlayTitle = fg(base.Bold(true), p.Accent)
	s.Match = fg(base.Underline(true), p.Warn)
	if noColor {
		s.Match = s.Match.Bold(true)
	}

	s.LineNumber = fg(base, p.Muted)
	s.Code = fg(base, p.Text)
	return s
}

// HelpStyles returns the styles for a bubbles/help model, so the help bar
// follows the palette like every other component.
func (s *Styles) HelpStyles() help.Styles {
	return help.Styles{
		Ellipsis:       s.HelpSep,
		ShortKey:       s.HelpKey,
		ShortDesc:      s.HelpDesc,
		ShortSeparator: s.HelpSep,
		FullKey:        s.HelpKey,
		FullDesc:       s.HelpDesc,
		FullSeparator:  s.HelpSep,
	}
}
