package ui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every binding of the workbench, grouped by pane. Help renders
// from it, so the help screen can never drift from what the keys do, and
// each action also exists as a command-line word (see actionWords).
type KeyMap struct {
	// Evidence list.
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
	Toggle, Pin, RankUp, RankDown, Remove   key.Binding
	Undo, Redo, Focus                       key.Binding
	// Edit opens a part in $VISUAL/$EDITOR; Send sends the flow; Answer
	// shows the answer pane.
	Edit, Send, Answer key.Binding
	// Answer pane.
	PrevTurn, NextTurn, FollowUp, AddRef, CopyAnswer, StopSend key.Binding
	// Everywhere.
	Search, Command, NextPane, Assembled, Format key.Binding
	Copy, Export, Reload, Help, Quit             key.Binding
	// File tree: Tree opens it; in it, TreeOpen and TreeClose open and
	// close folders, TreeAdd adds the selection to the flow.
	Tree, TreeOpen, TreeClose, TreeAdd key.Binding
	// Overlays and the command line.
	Accept, Cancel, Mark, Band, Complete, HistoryUp, HistoryDown key.Binding
	// The dialog of an add or a send that asks first: Yes adds or sends, No (or Cancel)
	// does not.
	Yes, No key.Binding
}

// DefaultKeyMap picks what a vim or lazygit user would guess.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:       b([]string{"k", "up"}, "k/↑", "up"),
		Down:     b([]string{"j", "down"}, "j/↓", "down"),
		Top:      b([]string{"g", "home"}, "g", "first"),
		Bottom:   b([]string{"G", "end"}, "G", "last"),
		PageUp:   b([]string{"ctrl+u", "pgup"}, "ctrl+u", "page up"),
		PageDown: b([]string{"ctrl+d", "pgdown"}, "ctrl+d", "page down"),
		Toggle:   b([]string{" ", "enter"}, "space", "toggle on/off"),
		Pin:      b([]string{"p"}, "p", "pin"),
		RankUp:   b([]string{"K", "shift+up"}, "K", "move up a place"),
		RankDown: b([]string{"J", "shift+down"}, "J", "move down a place"),
		Remove:   b([]string{"x", "delete"}, "x", "remove"),
		Undo:     b([]string{"u"}, "u", "undo"),
		Redo:     b([]string{"ctrl+r"}, "ctrl+r", "redo"),
		Focus:    b([]string{"f"}, "f", "focus (again: off)"),
		Edit:     b([]string{"E"}, "E", "edit in $EDITOR"),
		Send:     b([]string{"S"}, "S", "send to LLM"),
		Answer:   b([]string{"A"}, "A", "answers"),

		PrevTurn:   b([]string{"["}, "[", "turn before"),
		NextTurn:   b([]string{"]"}, "]", "turn after"),
		FollowUp:   b([]string{"F"}, "F", "follow up"),
		AddRef:     b([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "add a ref"),
		CopyAnswer: b([]string{"y"}, "y", "copy answer"),
		StopSend:   b([]string{"esc"}, "esc", "stop/close"),

		Tree:      b([]string{"t"}, "t", "file tree"),
		TreeOpen:  b([]string{"right"}, "→", "tree: open folder"),
		TreeClose: b([]string{"left"}, "←", "tree: close folder"),
		TreeAdd:   b([]string{"ctrl+a"}, "ctrl+a", "tree: add file/folder"),

		Search:    b([]string{"/"}, "/", "search"),
		Command:   b([]string{":"}, ":", "command line"),
		NextPane:  b([]string{"tab"}, "tab", "next pane"),
		Assembled: b([]string{"v"}, "v", "assembled prompt"),
		Format:    b([]string{"m"}, "m", "cycle format"),
		Copy:      b([]string{"y"}, "y", "copy prompt"),
		Export:    b([]string{"e"}, "e", "export to file"),
		Reload:    b([]string{"r", "ctrl+l"}, "r", "reload"),
		Help:      b([]string{"?"}, "?", "help"),
		Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),

		Accept:      b([]string{"enter"}, "enter", "run / add"),
		Cancel:      b([]string{"esc"}, "esc", "close"),
		Mark:        b([]string{"ctrl+space", "ctrl+@"}, "ctrl+space", "mark result"),
		Band:        b([]string{"ctrl+b"}, "ctrl+b", "next rank band"),
		Complete:    b([]string{"tab"}, "tab", "complete"),
		HistoryUp:   b([]string{"up"}, "↑", "history"),
		HistoryDown: b([]string{"down"}, "↓", "history"),

		Yes: b([]string{"y", "Y"}, "y", "asked: yes"),
		No:  b([]string{"n", "N"}, "n", "asked: no"),
	}
}

// ShortHelp is the one-line help of the status bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Toggle, k.Search, k.Command, k.Focus, k.Copy, k.Help, k.Tree, k.Quit}
}

// FullHelp is the help screen, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Toggle, k.Pin, k.RankUp, k.RankDown, k.Remove, k.Undo, k.Redo, k.Focus, k.Edit},
		{k.Search, k.Tree, k.TreeOpen, k.TreeClose, k.TreeAdd, k.Yes, k.No, k.Command, k.NextPane, k.Assembled, k.Format, k.Copy, k.Export, k.Reload, k.Help, k.Quit},
		{k.Send, k.Answer, k.PrevTurn, k.NextTurn, k.FollowUp, k.AddRef, k.CopyAnswer, k.StopSend},
	}
}
