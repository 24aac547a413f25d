package django

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// migrations reads the operations of a migration module's Migration
// class, one fact per operation on a table, on the table of the model it
// names in this app (app_label_model, or the db_table its options give).
func (e *x) migrations(stmts []*sitter.Node) {
	label := e.appLabel()
	if label == "" {
		return
	}
	for _, s := range stmts {
		if s.Type() != "class_definition" {
			continue
		}
		ops := e.metaValue(s.ChildByFieldName("body"), "operations")
		if ops == nil || ops.Type() != "list" {
			continue
		}
		tables := map[string]string{} // model (lower case) -> db_table set in this file
		for _, op := range named(ops) {
			e.At = op.StartByte()
			if m, ok := e.operation(op, label, tables); ok {
				e.f.Migrations = append(e.f.Migrations, m)
			}
		}
	}
}

// operation reads one migrations.X(...) operation.
func (e *x) operation(n *sitter.Node, label string, tables map[string]string) (Migration, bool) {
	fn, args, kw, ok := e.call(n)
	if !ok {
		return Migration{}, false
	}
	call := lastPart(fn)
	strArg := func(i int, name string) string { s, _ := e.str(arg(args, kw, i, name)); return s }
	m := Migration{Call: call, Span: e.span(n)}
	model := strArg(0, "model_name")
	table := func(model string) {
		m.Model = label + "." + strings.ToLower(model)
		m.Table = tables[strings.ToLower(model)]
		if m.Table == "" {
			m.Table = label + "_" + strings.ToLower(model)
		}
	}
	switch call {
	case "CreateModel":
		name := strArg(0, "name")
		if name == "" {
			return Migration{}, false
		}
		if opts := arg(args, kw, 2, "options"); opts != nil && opts.Type() == "dictionary" {
			for _, p := range named(opts) {
				if k, _ := e.str(p.ChildByFieldName("key")); k == "db_table" {
					if t, ok := e.str(p.ChildByFieldName("value")); ok {
						tables[strings.ToLower(name)] = t
					}
				}
			}
		}
		table(name)
		m.Op = "create"
		if fields := arg(args, kw, 1, "fields"); fields != nil {
			for _, f := range named(fields) {
				if parts := named(f); f.Type() == "tuple" && len(parts) == 2 {
					fname, _ := e.str(parts[0])
					e.column(&m, fname, parts[1])
				}
			}
		}
	case "DeleteModel":
		table(strArg(0, "name"))
		m.Op = "drop"
	case "RenameModel":
		table(strArg(0, "old_name"))
		m.Op, m.To = "rename", label+"_"+strings.ToLower(strArg(1, "new_name"))
	case "AlterModelTable":
		name := strArg(0, "name")
		table(name)
		t, ok := e.str(arg(args, kw, 1, "table"))
		if !ok {
			t = label + "_" + strings.ToLower(name) // table=None: back to the default
		}
		m.Op, m.To = "rename", t
		tables[strings.ToLower(name)] = t
	case "AddField", "AlterField":
		table(model)
		m.Op = "table"
		e.column(&m, strArg(1, "name"), arg(args, kw, 2, "field"))
		if call == "AlterField" && len(m.Columns) == 1 {
			m.Columns[0].Modifiers = append(m.Columns[0].Modifiers, "altered")
		}
	case "RemoveField":
		table(model)
		m.Op, m.Dropped = "table", []string{strArg(1, "name")}
	case "RenameField":
		table(model)
		old, nw := strArg(1, "old_name"), strArg(2, "new_name")
		m.Op, m.Dropped = "table", []string{old}
		m.Columns = []Column{{Name: nw, Type: "renamed", Modifiers: []string{"from " + old}}}
	case "AddIndex", "AddConstraint":
		table(model)
		m.Op = "table"
		idx := arg(args, kw, 1, "index")
		if idx == nil {
			idx = arg(args, kw, 1, "constraint")
		}
		_, _, ikw, _ := e.call(idx)
		name, _ := e.str(ikw["name"])
		if name == "" {
			name = e.text(ikw["fields"])
		}
		m.Indexes = []string{name}
	default:
		return Migration{}, false
	}
	if m.Table == "" || strings.HasSuffix(m.Table, "_") {
		return Migration{}, false
	}
	return m, true
}

// column adds a field of a migration as a column: a ForeignKey or
// OneToOneField is its _id column and a foreign key; a ManyToManyField
// has no column (its join table is Django's).
func (e *x) column(m *Migration, name string, field *sitter.Node) {
	fn, args, kw, ok := e.call(field)
	if !ok || name == "" {
		return
	}
	typ := lastPart(fn)
	switch {
	case strings.Contains(typ, "ManyToMany") || strings.HasSuffix(typ, "Manager") || typ == "GenericRelation":
		return // a join table's, not a column
	case typ == "ForeignKey" || typ == "OneToOneField" || typ == "ParentalKey":
		to := arg(args, kw, 0, "to")
		ref, ok := e.str(to)
		if ok {
			app, model, dotted := strings.Cut(ref, ".")
			if !dotted {
				app, model = e.appLabel(), ref
			}
			ref = strings.ToLower(app + "_" + model)
		} else {
			ref = e.text(to) // settings.AUTH_USER_MODEL
		}
		m.Columns = append(m.Columns, Column{Name: name + "_id", Type: typ})
		m.Foreign = append(m.Foreign, Foreign{Column: name + "_id", RefTable: ref, RefColumn: "id"})
		return
	}
	var mods []string
	for _, k := range []string{"max_length", "null", "unique", "default", "primary_key", "db_index"} {
		if v, ok := kw[k]; ok && v != nil {
			mods = append(mods, k+"="+e.text(v))
		}
	}
	m.Columns = append(m.Columns, Column{Name: name, Type: typ, Modifiers: mods})
}
