package laravel

import (
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// schema reads one Schema:: statement: create, table, drop, dropIfExists,
// rename (Schema::connection(..)-> first is allowed).
func (e *x) schema(n *sitter.Node, links []link) {
	for _, l := range links {
		as := args(l.call)
		switch l.name {
		case "create", "table":
			if len(as) == 0 {
				return
			}
			table, ok := e.str(as[0])
			if !ok {
				return
			}
			m := Migration{Table: table, Op: l.name, Span: e.span(n), Down: e.fn == "down"}
			if len(as) > 1 {
				e.blueprint(&m, as[1])
			}
			e.f.Migrations = append(e.f.Migrations, m)
			return
		case "drop", "dropIfExists":
			for _, a := range as {
				if t, ok := e.str(a); ok {
					e.f.Migrations = append(e.f.Migrations, Migration{Table: t, Op: "drop", Span: e.span(n), Down: e.fn == "down"})
				}
			}
			return
		case "rename":
			if len(as) == 2 {
				from, ok1 := e.str(as[0])
				to, ok2 := e.str(as[1])
				if ok1 && ok2 {
					e.f.Migrations = append(e.f.Migrations, Migration{Table: from, Op: "rename", To: to, Span: e.span(n), Down: e.fn == "down"})
				}
			}
			return
		}
	}
}

// blueprint reads the column definitions of a Schema closure.
func (e *x) blueprint(m *Migration, fn *sitter.Node) {
	if fn.Type() != "anonymous_function_creation_expression" && fn.Type() != "anonymous_function" && fn.Type() != "arrow_function" {
		return
	}
	body := fn.ChildByFieldName("body")
	if body == nil {
		return
	}
	var walk func(k *sitter.Node)
	walk = func(k *sitter.Node) {
		if k.Type() == "expression_statement" {
			if c := firstNamed(k); c != nil && c.Type() == "member_call_expression" {
				if head, links := e.chain(c); head == "$table" && len(links) > 0 {
					e.column(m, links)
					return
				}
			}
		}
		for _, c := range named(k) {
			walk(c)
		}
	}
	walk(body)
}

// columnless are Blueprint calls that add no column of that name.
var columnless = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"index": true, "unique": true, "primary": true, "fullText": true, "spatialIndex": true, "foreign": true,
		"dropColumn": true, "dropColumns": true, "renameColumn": true, "dropForeign": true, "dropIndex": true,
		"dropUnique": true, "dropPrimary": true, "dropTimestamps": true, "dropSoftDeletes": true, "engine": true,
		"charset": true, "collation": true, "comment": true, "temporary": true, "dropConstrainedForeignId": true,
		"dropForeignIdFor": true, "dropMorphs": true, "renameIndex": true, "dropRememberToken": true,
	}
})

// column reads one `$table->type('name', ...)->modifier()...` chain.
func (e *x) column(m *Migration, links []link) {
	first := links[0]
	as := args(first.call)
	name := ""
	if len(as) > 0 {
		name, _ = e.str(as[0])
	}
	mods := make([]string, 0, len(links)-1)
	for _, l := range links[1:] {
		mods = append(mods, l.name)
	}
	add := func(n, typ string) { m.Columns = append(m.Columns, Column{Name: n, Type: typ, Modifiers: mods}) }
	switch first.name {
	case "id":
		if name == "" {
			name = "id"
		}
		add(name, "id")
	case "timestamps", "timestampsTz", "nullableTimestamps":
		add("created_at", "timestamp")
		add("updated_at", "timestamp")
	case "softDeletes", "softDeletesTz":
		if name == "" {
			name = "deleted_at"
		}
		add(name, "timestamp")
	case "rememberToken":
		add("remember_token", "string")
	case "morphs", "nullableMorphs", "uuidMorphs", "ulidMorphs", "nullableUuidMorphs":
		add(name+"_type", "string")
		add(name+"_id", "unsignedBigInteger")
	case "foreignIdFor":
		if len(as) > 0 {
			model := e.classRef(as[0])
			short := model[strings.LastIndexByte(model, '\\')+1:]
			col := snake(short) + "_id"
			if len(as) > 1 {
				if s, ok := e.str(as[1]); ok {
					col = s
				}
			}
			add(col, "foreignId")
			e.foreignFrom(m, col, links, TableOf(short))
		}
	case "index", "unique", "primary", "fullText", "spatialIndex":
		cols := e.strs(argOrNil(as, 0))
		m.Indexes = append(m.Indexes, first.name+"("+strings.Join(cols, ",")+")")
	case "foreign":
		cols := e.strs(argOrNil(as, 0))
		if len(cols) == 1 {
			e.foreignFrom(m, cols[0], links, "")
		}
	case "dropColumn", "dropColumns":
		for _, a := range as {
			m.Dropped = append(m.Dropped, e.strs(a)...)
		}
	case "renameColumn":
		if len(as) == 2 {
			from, _ := e.str(as[0])
			to, _ := e.str(as[1])
			m.Dropped = append(m.Dropped, from)
			add(to, "renamed from "+from)
		}
	default:
		if columnless()[first.name] || name == "" {
			return
		}
		add(name, first.name)
		if first.name == "foreignId" || first.name == "foreignUuid" || first.name == "foreignUlid" {
			e.foreignFrom(m, name, links, "")
		}
	}
	for _, l := range links[1:] {
		switch l.name {
		case "index", "unique", "primary", "fullText":
			if name != "" {
				m.Indexes = append(m.Indexes, l.name+"("+name+")")
			}
		}
	}
}

func argOrNil(as []*sitter.Node, i int) *sitter.Node {
	if i < len(as) {
		return as[i]
	}
	return nil
}

// foreignFrom reads ->constrained('t') or ->references('c')->on('t').
func (e *x) foreignFrom(m *Migration, col string, links []link, guess string) {
	fk := Foreign{Column: col}
	found := false
	for _, l := range links[1:] {
		as := args(l.call)
		switch l.name {
		case "constrained":
			found = true
			if len(as) > 0 {
				fk.RefTable, _ = e.str(as[0])
			}
			if len(as) > 1 {
				fk.RefColumn, _ = e.str(as[1])
			}
		case "references":
			found = true
			if len(as) > 0 {
				if cs := e.strs(as[0]); len(cs) > 0 {
					fk.RefColumn = cs[0]
				}
			}
		case "on":
			if len(as) > 0 {
				fk.RefTable, _ = e.str(as[0])
			}
		}
	}
	if !found {
		return
	}
	if fk.RefTable == "" {
		fk.RefTable = guess
		if fk.RefTable == "" {
			fk.RefTable = Plural(strings.TrimSuffix(col, "_id"))
		}
	}
	if fk.RefColumn == "" {
		fk.RefColumn = "id"
	}
	m.Foreign = append(m.Foreign, fk)
}
