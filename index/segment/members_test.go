package segment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/lang"
)

// wantSym is one expected member symbol: its kind, dotted name (parents
// first) and line span.
type wantSym struct {
	kind       Kind
	name       string
	start, end int
}

// memberFixtures lists, for every testdata/members file, exactly the
// member symbols the segmenter must find: constants, package or module
// variables (never locals), fields, enum members and function-valued
// members, each with its own lines (doc comment included).
var memberFixtures = []struct {
	file, language string
	want           []wantSym
}{
	{file: "status.go", language: lang.Go, want: []wantSym{
		{Const, "StatusNotFound", 8, 9},
		{Const, "StatusOK", 13, 14},
		{Const, "StatusCreated", 15, 15},
		{Const, "statusA", 16, 16},
		{Const, "statusB", 16, 16},
		{Var, "DefaultClient", 19, 20},
		{Var, "ErrBodyNotAllowed", 23, 24},
		{Field, "Client.Timeout", 29, 30},
		{Field, "Client.jar", 31, 31},
		{Field, "Client.tr", 31, 31},
		{Field, "Header.Key", 44, 44},
		{Const, "kindA", 49, 49}, // a comment before the '(' still makes a group
		{Const, "kindB", 50, 50},
	}},
	{file: "models.py", language: lang.Python, want: []wantSym{
		{Const, "MAX_ITEMS", 4, 4},
		{Var, "default_name", 5, 5},
		{Var, "lo", 6, 6},
		{Var, "hi", 6, 6},
		{EnumMember, "Color.RED", 10, 10},
		{EnumMember, "Color.GREEN", 11, 11},
		{Field, "Item.count", 17, 18},
		{Field, "Item.label", 19, 19},
		{Field, "Item.name", 22, 22},
		{Field, "Item.qty", 23, 23},
		{Field, "Item.overflow", 25, 25},
	}},
	{file: "server.js", language: lang.JavaScript, want: []wantSym{
		{Field, "Server.secret", 6, 6},
		{Field, "Server.count", 7, 7},
		{Method, "Server.fetch", 9, 12},
		{Method, "Server.text", 14, 15},
		{Const, "api", 26, 37},
		{Method, "api.list", 27, 29},
		{Method, "api.create", 30, 30},
		{Method, "api.nested.remove", 32, 34},
		{Var, "retries", 39, 39},
		{Var, "backoff", 39, 39},
		// A function assigned to a property defines it (old-style methods).
		{Method, "Server.close", 43, 46},
		{Method, "api.extra", 47, 47},
	}},
	{file: "server.ts", language: lang.TypeScript, want: []wantSym{
		{Field, "Server.secret", 7, 7},
		{Field, "Server.count", 8, 8},
		{Method, "Server.fetch", 10, 13},
		{Method, "Server.text", 15, 16},
		{Const, "api", 27, 38},
		{Method, "api.list", 28, 30},
		{Method, "api.create", 31, 31},
		{Method, "api.nested.remove", 33, 35},
		{Var, "retries", 40, 40},
		{Var, "backoff", 40, 40},
		{EnumMember, "Mode.Fast", 42, 42},
		{EnumMember, "Mode.Safe", 42, 42},
		{Field, "Props.title", 45, 45},
		{Method, "Props.onClick", 46, 46},
		{Field, "Store.repo", 52, 52},
		{Field, "Store.name", 52, 52},
		// A destructuring defines each name it binds.
		{Const, "GET", 55, 56},
		{Const, "post", 55, 56},
		{Const, "limit", 55, 56},
		{Const, "rest", 55, 56},
		{Var, "first", 57, 57},
		{Var, "second", 57, 57},
		{Var, "nested", 57, 57},
		{Var, "others", 57, 57},
	}},
	{file: "shapes.rs", language: lang.Rust, want: []wantSym{
		{Const, "MAX_SIDE", 3, 4},
		{Var, "COUNTER", 5, 5},
		{Field, "Point.x", 10, 11},
		{Field, "Point.y", 12, 12},
		{EnumMember, "Shape.Circle", 16, 16},
		{EnumMember, "Shape.Square", 17, 17},
		{EnumMember, "Shape.Empty", 18, 18},
		{Const, "Point.ORIGIN", 22, 22},
		{Const, "limits.MIN", 31, 31},
	}},
	{file: "Account.java", language: lang.Java, want: []wantSym{
		{Const, "Account.MAX", 7, 8},
		{Field, "Account.owner", 9, 9},
		{Field, "Account.iban", 9, 9},
		{Field, "Account.log", 10, 10},
		{EnumMember, "Account.State.OPEN", 12, 12},
		{EnumMember, "Account.State.CLOSED", 12, 12},
		{Const, "Limits.DAILY", 20, 20},
		{EnumMember, "Currency.EUR", 23, 23},
		{EnumMember, "Currency.USD", 23, 23},
		{Field, "Currency.sign", 24, 24},
		{Field, "Money.cents", 28, 28},
		{Field, "Money.currency", 28, 28},
	}},
	{file: "buf.c", language: lang.C, want: []wantSym{
		{Const, "BUF_MAX", 3, 4},
		{Const, "limit", 7, 7},
		{Var, "counter", 8, 8},
		{Var, "verbose", 9, 9},
		{Field, "point.x", 13, 13},
		{Field, "point.y", 13, 13},
		{Field, "point.name", 14, 14},
		{Field, "size2.width", 18, 18},
		{EnumMember, "color.RED", 21, 21},
		{EnumMember, "color.GREEN", 21, 21},
		{EnumMember, "level.LOW", 22, 22},
		{EnumMember, "level.HIGH", 22, 22},
	}},
	{file: "widget.cpp", language: lang.CPP, want: []wantSym{
		{Const, "VERSION", 3, 3},
		{Const, "ui.kMaxWidgets", 6, 6},
		{Var, "ui.live_widgets", 7, 7},
		{Const, "ui.Widget.kCount", 11, 11},
		{Field, "ui.Widget.width", 12, 13},
		{Field, "ui.Widget.name_", 15, 15},
		{Field, "ui.Widget.dirty_", 18, 18},
		{EnumMember, "ui.Mode.On", 21, 21},
		{EnumMember, "ui.Mode.Off", 21, 21},
	}},
	{file: "Cart.cs", language: lang.CSharp, want: []wantSym{
		{Const, "Shop.Cart.MaxItems", 8, 8},
		{Field, "Shop.Cart.count", 9, 9},
		{Field, "Shop.Cart.limit", 9, 9},
		{Field, "Shop.Cart.Owner", 10, 11},
		{Field, "Shop.Cart.Changed", 12, 12},
		{EnumMember, "Shop.Status.Open", 21, 21},
		{EnumMember, "Shop.Status.Paid", 21, 21},
		{Field, "Shop.Line.Qty", 23, 23},
	}},
	{file: "Page.php", language: lang.PHP, want: []wantSym{
		{Const, "VERSION", 6, 6},
		{Const, "LIMIT", 7, 7},
		{Var, "app", 8, 8},
		{Const, "PageController.TYPE", 13, 13},
		{Field, "PageController.title", 14, 15},
		{Field, "PageController.slug", 14, 15},
		{Field, "PageController.count", 16, 16},
		{Field, "PageController.repo", 18, 18},
		{Field, "PageController.size", 18, 18},
		{EnumMember, "Suit.Hearts", 32, 32},
		{EnumMember, "Suit.Spades", 33, 33},
	}},
	{file: "user.rb", language: lang.Ruby, want: []wantSym{
		{Const, "MAX_USERS", 3, 3},
		{Var, "$registry", 4, 4},
		{Const, "Accounts.LIMIT", 7, 7},
		{Const, "Accounts.User.ROLE", 10, 10},
		{Field, "Accounts.User.name", 11, 12},
		{Field, "Accounts.User.email", 11, 12},
		{Field, "Accounts.User.id", 13, 13},
	}},
	{file: "deploy.sh", language: lang.Bash, want: []wantSym{
		{Var, "TARGET", 4, 5},
		{Var, "PATH_EXTRA", 6, 6},
		{Const, "RETRIES", 7, 7},
		{Const, "TIMEOUT", 8, 8},
		{Var, "HOSTS", 9, 9},
	}},
}

func TestMemberSymbols(t *testing.T) {
	ps := NewParsers()
	defer ps.Close()
	for _, fx := range memberFixtures {
		t.Run(fx.language, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "members", fx.file))
			if err != nil {
				t.Fatal(err)
			}
			res := File(context.Background(), ps, fx.language, lang.SrcCode, src)
			if res.ParseError {
				t.Errorf("%s does not parse cleanly", fx.file)
			}
			var got []wantSym
			for _, s := range res.Symbols {
				got = append(got, wantSym{s.Kind, strings.Join(append(append([]string(nil), s.Parents...), s.Name), "."), s.StartLine, s.EndLine})
				// The span is the declaration's own text, inside one
				// segment, and ends where the declaration does.
				text := string(src[s.StartByte:s.EndByte])
				if strings.TrimSpace(text) != text || !strings.Contains(text, strings.TrimPrefix(strings.TrimPrefix(s.Name, "$"), "#")) {
					t.Errorf("%s: span of %s is %q", fx.file, s.Name, text)
				}
				if !inSegment(res.Segments, s) {
					t.Errorf("%s: %s (bytes %d-%d) lies in no segment", fx.file, s.Name, s.StartByte, s.EndByte)
				}
			}
			if len(got) != len(fx.want) {
				t.Errorf("%s: %d symbols, want %d:\n got %v\nwant %v", fx.file, len(got), len(fx.want), got, fx.want)
				return
			}
			for i := range got {
				if got[i] != fx.want[i] {
					t.Errorf("%s: symbol %d is %v, want %v", fx.file, i, got[i], fx.want[i])
				}
			}
		})
	}
}

func inSegment(segs []Segment, s Symbol) bool {
	for _, g := range segs {
		if g.StartByte <= s.StartByte && s.EndByte <= g.EndByte {
			return true
		}
	}
	return false
}

// TSX shares TypeScript's rules; a component file keeps its members.
func TestMemberSymbolsTSX(t *testing.T) {
	src := []byte(`import React from "react";

export const theme = { dark: false };

export class Panel extends React.Component<{ title: string }> {
  state = { open: false };
  toggle = () => this.setState({ open: !this.state.open });
  render() {
    return <div onClick={this.toggle}>{this.props.title}</div>;
  }
}
`)
	ps := NewParsers()
	defer ps.Close()
	res := File(context.Background(), ps, lang.TSX, lang.SrcCode, src)
	var got []string
	for _, s := range res.Symbols {
		got = append(got, string(s.Kind)+" "+strings.Join(append(append([]string(nil), s.Parents...), s.Name), "."))
	}
	want := "const theme|field Panel.state|method Panel.toggle"
	if strings.Join(got, "|") != want {
		t.Errorf("tsx symbols: %q, want %q", strings.Join(got, "|"), want)
	}
}

// A private method is named without its '#': a selector's '#' starts
// tags, and code and queries name it as a word.
func TestPrivateMethodName(t *testing.T) {
	ps := NewParsers()
	defer ps.Close()
	src, err := os.ReadFile(filepath.Join("testdata", "members", "server.ts"))
	if err != nil {
		t.Fatal(err)
	}
	res := File(context.Background(), ps, lang.TypeScript, lang.SrcCode, src)
	for _, s := range res.Segments {
		if s.Kind == Method && s.Name == "route" && strings.Join(s.Parents, ".") == "Server" && s.StartLine == 18 {
			return
		}
	}
	t.Errorf("no method Server.route at line 18 in %v", res.Segments)
}

// A method on a type with several type parameters belongs to the type, not
// to the last word of its receiver ("VC]"); the type's fields are its members.
func TestGoGenericReceiver(t *testing.T) {
	src := []byte(`package flag

type FlagBase[T any, C any, VC ValueCreator[T, C]] struct {
	Name  string
	Value T
}

func (f *FlagBase[T, C, VC]) Set(name, v string) error {
	return nil
}

func (f FlagBase[T, C, VC]) String() string { return f.Name }

func (m *Map[K, V]) Get(k K) V { var v V; return v }

func (p Pair[A, B]) First() A { return p.a }
`)
	ps := NewParsers()
	defer ps.Close()
	res := File(context.Background(), ps, lang.Go, lang.SrcCode, src)
	var got []string
	for _, s := range res.Segments {
		if s.Kind == Method {
			got = append(got, strings.Join(append(append([]string(nil), s.Parents...), s.Name), "."))
		}
	}
	if want := "FlagBase.Set|FlagBase.String|Map.Get|Pair.First"; strings.Join(got, "|") != want {
		t.Errorf("methods: %q, want %q", strings.Join(got, "|"), want)
	}
	got = nil
	for _, s := range res.Symbols {
		got = append(got, string(s.Kind)+" "+strings.Join(append(append([]string(nil), s.Parents...), s.Name), "."))
	}
	if want := "field FlagBase.Name|field FlagBase.Value"; strings.Join(got, "|") != want {
		t.Errorf("symbols: %q, want %q", strings.Join(got, "|"), want)
	}
}
