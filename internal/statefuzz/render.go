package statefuzz

import (
	"fmt"
	"sort"
	"strings"
)

// Files renders the project for one warehouse: target is the body of the
// [targets.t] table (engine, path or dsn) and s names its schemas. The
// result maps slash paths to file contents.
func (p *Project) Files(s Schemas, target string) map[string]string {
	seedSchema := s.Seeds()
	if p.SeedsAlt {
		seedSchema = s.SeedsAlt()
	}
	files := map[string]string{
		"project.toml": fmt.Sprintf("name = \"statefuzz\"\ndefault_target = \"t\"\n\n[targets.t]\n%sschema = %q\n\n[seeds]\nschema = %q\n",
			target, s.Target(), seedSchema),
	}
	if p.Lineage {
		files["project.toml"] += "\n[models]\nlineage_columns = true\n"
	}
	for _, sd := range p.Seeds {
		files["seeds/"+sd.Name+".csv"] = sd.csv()
	}
	for _, m := range p.Models {
		files["models/"+m.Name+".sql"] = m.sql(s)
	}
	return files
}

// FileNames returns the keys of files, sorted.
func FileNames(files map[string]string) []string {
	out := make([]string, 0, len(files))
	for k := range files {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (m *Model) sql(s Schemas) string {
	var b strings.Builder
	b.WriteString("/* idemc\n")
	m.header(&b, s)
	m.checks(&b)
	b.WriteString("*/\n")
	m.body(&b)
	return b.String()
}

func (m *Model) header(b *strings.Builder, s Schemas) {
	switch m.Kind {
	case KindView, KindTable, KindEphemeral:
		fmt.Fprintf(b, "materialized = %q\n", m.Kind)
	default:
		fmt.Fprintf(b, "materialized = \"incremental\"\nstrategy = %q\n", m.Kind)
		// A column change must reach the table, or rebuild equivalence
		// cannot hold: "fail" is a stated refusal, not a bug.
		b.WriteString("on_schema_change = \"sync_all_columns\"\n")
	}
	if m.Partitioned() {
		fmt.Fprintf(b, "partition_by = \"day\"\ngranularity = \"day\"\nstart = %q\n", m.Start)
		if m.Lookback > 0 {
			fmt.Fprintf(b, "lookback = %d\n", m.Lookback)
		}
	}
	if m.Kind == KindMerge {
		fmt.Fprintf(b, "unique_key = [%s]\n", quoteList(m.Key))
	}
	if m.Schema {
		fmt.Fprintf(b, "schema = %q\n", s.Alt())
	}
	if m.Alias {
		fmt.Fprintf(b, "alias = %q\n", m.Name+"_a")
	}
}

func (m *Model) checks(b *strings.Builder) {
	c := m.Checks
	if m.Kind == KindView || m.Kind == KindEphemeral {
		return // kept for a switch back (OpMaterialize), not declared
	}
	if !c.NotNull && !c.Unique && c.Accepted == nil && c.MinRows == 0 && c.Rel == "" && !c.Failing {
		return
	}
	b.WriteString("\n[checks]\n")
	if c.NotNull {
		b.WriteString("not_null = [\"id\"]\n")
	}
	if c.Unique {
		b.WriteString("unique = [\"id\"]\n")
	}
	if c.Accepted != nil {
		fmt.Fprintf(b, "accepted_values = { cat = [%s] }\n", quoteList(c.Accepted))
	}
	switch {
	case c.Failing:
		b.WriteString("min_rows = 100000\n")
	case c.MinRows > 0 && m.Kind == KindTable: // an empty partition would fail it
		fmt.Fprintf(b, "min_rows = %d\n", c.MinRows)
	}
	if c.Rel != "" {
		fmt.Fprintf(b, "relationships = { id = \"%s.id\" }\n", c.Rel)
	}
}

// body is the SELECT: the portable subset of DuckDB, PostgreSQL and
// MariaDB (concat() for text, CAST AS DECIMAL, LEFT JOIN, GROUP BY).
func (m *Model) body(b *strings.Builder) {
	window := ""
	if m.Partitioned() {
		window = " AND %sday >= {{ start }} AND %sday < {{ end }}"
	}
	switch m.Shape {
	case ShapeAgg:
		fmt.Fprintf(b, "SELECT cat, count(*) AS n, sum(amount) + %d AS total%s\nFROM {{ ref(%q) }}\nWHERE amount >= %d\nGROUP BY cat\n",
			m.Bump, m.extra("max(id)"), m.Refs[0], m.MinAmount)
	case ShapeJoin:
		fmt.Fprintf(b, "SELECT a.id, a.day, a.k, a.amount + coalesce(b.amount, 0) + %d AS amount, a.cat%s\n", m.Bump, m.extra("a.id"))
		fmt.Fprintf(b, "FROM {{ ref(%q) }} AS a\nLEFT JOIN {{ ref(%q) }} AS b ON b.id = a.id", m.Refs[0], m.Refs[1])
		if window != "" {
			// A partition reads only its window of what it joins (DESIGN
			// §10: partition P depends on upstream partition P); joining
			// other days would read partitions the plan does not order.
			fmt.Fprintf(b, window, "b.", "b.")
		}
		b.WriteString("\n")
		fmt.Fprintf(b, "WHERE a.amount >= %d", m.MinAmount)
		if window != "" {
			fmt.Fprintf(b, window, "a.", "a.")
		}
		m.incFilter(b, "a.")
		b.WriteString("\n")
	default:
		fmt.Fprintf(b, "SELECT id, day, k, amount + %d AS amount, cat%s\nFROM {{ ref(%q) }}\nWHERE amount >= %d", m.Bump, m.extra("id"), m.Refs[0], m.MinAmount)
		if window != "" {
			fmt.Fprintf(b, window, "", "")
		}
		m.incFilter(b, "")
		b.WriteString("\n")
	}
}

// incFilter writes the is_incremental() filter (Model.IncFilter): dbt's
// form, reading {{ this }}, true of every row (ids are positive). Bump is
// in it, so a model edit changes both renders. A view or table never takes
// the branch: is_incremental() is false for them.
func (m *Model) incFilter(b *strings.Builder, prefix string) {
	if m.IncFilter {
		fmt.Fprintf(b, "\n{%% if is_incremental() %%}  AND %sid > (SELECT coalesce(min(id), 0) - %d FROM {{ this }}){%% endif %%}", prefix, 1000+m.Bump)
	}
}

// extra is the optional c_x column computed from x; its three forms have
// three types, so switching between them retypes the column. The text
// form holds digits, so that every retype in place casts: text that does
// not cast to a number fails the unit and keeps the table (docs/engines.md,
// "Retyping in place"), a stated refusal like on_schema_change = "fail",
// not rebuild equivalent (seeds 327 and 385 drew it with concat('v', x)).
// Its values differ from the other forms' (1x, against 2x and x), so a
// partition kept with a cast value instead of being written again shows.
func (m *Model) extra(x string) string {
	switch m.Extra {
	case "int":
		return ", " + x + " * 2 AS c_x"
	case "dec":
		return ", CAST(" + x + " AS DECIMAL(12,2)) AS c_x"
	case "text":
		return ", concat('1', " + x + ") AS c_x"
	}
	return ""
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
