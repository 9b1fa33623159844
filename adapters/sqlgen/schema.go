package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemc/idemc/plan"
)

// Column types for on_schema_change. A batch's types come from the driver
// (pgx says INT8, go-sql-driver/mysql says VARCHAR) and a destination's
// from the catalog (information_schema says bigint, character varying), so
// both spellings are reduced to a family before they are compared.

// TypeName splits a type name into its upper-case base name, without
// parameters, and its parameters: "decimal(10, 2)" → ("DECIMAL", "10,2"),
// "character varying(20)" → ("CHARACTER VARYING", "20"). An array keeps
// its brackets in the base ("INTEGER[]").
func TypeName(t string) (base, params string) {
	t = strings.ToUpper(strings.Join(strings.Fields(t), " "))
	if i := strings.IndexByte(t, '('); i >= 0 && !strings.HasPrefix(t, "STRUCT") && !strings.HasPrefix(t, "MAP") {
		if j := strings.LastIndexByte(t, ')'); j > i {
			params = strings.ReplaceAll(t[i+1:j], " ", "")
			t = strings.TrimSpace(t[:i] + t[j+1:])
		}
	}
	return t, params
}

// Families builds a TypeFamily function from a table of family → base
// names. A base name not in the table is its own family when keepUnknown,
// else unknown ("").
func Families(table map[string][]string, keepUnknown bool) func(string) string {
	by := map[string]string{}
	for fam, names := range table {
		for _, n := range names {
			by[n] = fam
		}
	}
	return func(t string) string {
		base, _ := TypeName(t)
		if base == "" {
			return ""
		}
		if f, ok := by[base]; ok {
			return f
		}
		if keepUnknown {
			return strings.ToLower(base)
		}
		return ""
	}
}

// SameType compares two types by family (Spelling.TypeFamily); within a
// family Spelling.TypeFits, when set, decides. Unknown types are the same:
// a false "type changed" would fail a unit that would have written fine.
func (g Gen) SameType(dest, batch string) bool {
	if g.S.TypeFamily == nil {
		return true
	}
	fd, fb := g.S.TypeFamily(dest), g.S.TypeFamily(batch)
	if fd == "" || fb == "" {
		return true
	}
	if fd != fb {
		return false
	}
	return g.S.TypeFits == nil || g.S.TypeFits(dest, batch)
}

// DecimalFits reports whether DECIMAL(p,s) dest holds every DECIMAL(p,s)
// value of batch: as many integer digits and as many decimals. A side
// without parameters fits (the engine's default, or unknown).
func DecimalFits(dest, batch string) bool {
	dp, ds, ok1 := decimalParams(dest)
	bp, bs, ok2 := decimalParams(batch)
	if !ok1 || !ok2 {
		return true
	}
	return dp-ds >= bp-bs && ds >= bs
}

func decimalParams(t string) (p, s int, ok bool) {
	_, params := TypeName(t)
	parts := strings.Split(params, ",")
	if params == "" || len(parts) > 2 {
		return 0, 0, false
	}
	p, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, false
	}
	if len(parts) == 2 {
		if s, err = strconv.Atoi(parts[1]); err != nil {
			return 0, 0, false
		}
	}
	return p, s, true
}

// ColumnType is the column type DDL uses for a batch column's type name
// (Spelling.ColumnType; the name itself when unset).
func (g Gen) ColumnType(t string) string {
	if g.S.ColumnType != nil {
		return g.S.ColumnType(t)
	}
	return t
}

// AddColumn adds a nullable column.
func (g Gen) AddColumn(r plan.Relation, c plan.Column) string {
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", g.Qualify(r), g.Quote(c.Name), g.ColumnType(c.Type))
}

// DropColumn drops a column.
func (g Gen) DropColumn(r plan.Relation, name string) string {
	return fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", g.Qualify(r), g.Quote(name))
}

// DropTable drops a table if it exists.
func (g Gen) DropTable(r plan.Relation) string {
	return "DROP TABLE IF EXISTS " + g.Qualify(r)
}

// RetypeColumns is the standard SQL form: one ALTER TABLE with an ALTER
// COLUMN … TYPE … USING CAST(…) per change, which PostgreSQL applies
// atomically (a value that cannot be cast changes nothing).
func (g Gen) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	parts := make([]string, len(changes))
	for i, c := range changes {
		t := g.ColumnType(c.To)
		parts[i] = fmt.Sprintf("ALTER COLUMN %s TYPE %s USING CAST(%s AS %s)", g.Quote(c.Name), t, g.Quote(c.Name), t)
	}
	return []string{fmt.Sprintf("ALTER TABLE %s\n  %s", g.Qualify(w.Target), strings.Join(parts, ",\n  "))}
}

// RewriteSelect reads a relation's columns with the changed ones cast to
// their new types, in the table's column order: the body of a rewrite of
// the table from itself, for engines whose ALTER cannot change a type.
func (g Gen) RewriteSelect(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) string {
	to := map[string]string{}
	for _, c := range changes {
		to[strings.ToLower(c.Name)] = g.ColumnType(c.To)
	}
	list := make([]string, len(cols))
	for i, c := range cols {
		q := g.Quote(c.Name)
		if t, ok := to[strings.ToLower(c.Name)]; ok {
			list[i] = fmt.Sprintf("CAST(%s AS %s) AS %s", q, t, q)
		} else {
			list[i] = q
		}
	}
	return fmt.Sprintf("SELECT %s\nFROM %s", strings.Join(list, ", "), g.Qualify(w.Target))
}

// RenameSwap puts aside in the place of w's destination with two renames,
// the destination to old, then aside to the destination: for engines
// whose atomic swap takes one kind of relation (Snowflake, Spark).
func RenameSwap(rename func(from, to plan.Relation, view bool) string, w *plan.Write, aside, old plan.Relation, fromView bool) []string {
	return []string{rename(w.Target, old, fromView), rename(aside, w.Target, w.Materialized == plan.View)}
}

// AlterRename is ALTER TABLE (or VIEW) from RENAME TO to; ifExists is
// "IF EXISTS " where the engine has it, else "".
func (g Gen) AlterRename(from, to plan.Relation, view bool, ifExists string) string {
	kind := "TABLE"
	if view {
		kind = "VIEW"
	}
	return fmt.Sprintf("ALTER %s %s%s RENAME TO %s", kind, ifExists, g.Qualify(from), g.Qualify(to))
}
