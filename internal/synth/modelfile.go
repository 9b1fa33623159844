package synth

// The text of a model file: its header, then its SELECT by shape.

import (
	"fmt"
	"strconv"
	"strings"
)

// modelFile writes one model: the header, then the SELECT.
func (g *gen) modelFile(b *strings.Builder, m *model) {
	g.header(b, m)
	switch m.shape {
	case shapeStaging:
		g.staging(b, m)
	case shapeJoin:
		g.join(b, m)
	case shapeAggregate:
		g.aggregate(b, m)
	case shapeDedupe:
		g.dedupe(b, m)
	case shapeUnion:
		g.union(b, m)
	case shapeStar:
		g.star(b, m)
	}
}

func (g *gen) header(b *strings.Builder, m *model) {
	folderDefault := "view"
	if m.layer == layers-1 {
		folderDefault = "table"
	}
	var h strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&h, "%-12s = %s\n", k, v) }
	if m.mat != folderDefault {
		kv("materialized", strconv.Quote(m.mat))
	}
	if m.mat == "incremental" {
		kv("strategy", strconv.Quote(m.strategy))
		if m.partitioned {
			kv("partition_by", `"event_date"`)
			kv("granularity", `"day"`)
			kv("start", strconv.Quote(m.start))
			if m.lookback > 0 {
				kv("lookback", strconv.Itoa(m.lookback))
			}
		} else {
			kv("unique_key", `"id"`)
		}
		if m.watermark {
			kv("watermark", `{ column = "updated_at", lag = "5m", overlap = "1h" }`)
		}
	}
	if m.tags {
		tags := []string{strconv.Quote(m.domain)}
		if m.partitioned {
			tags = append(tags, `"daily"`)
		}
		kv("tags", "["+strings.Join(tags, ", ")+"]")
	}
	if m.mat == "incremental" || m.checks {
		h.WriteString("\n[checks]\n")
		ck := func(k, v string) { fmt.Fprintf(&h, "%-17s = %s\n", k, v) }
		ck("unique", `["id"]`)
		if m.partitioned {
			ck("not_null", `["id", "event_date"]`)
		} else {
			ck("not_null", `["id"]`)
		}
		if m.mat == "incremental" {
			ck("min_rows", `{ value = 1, severity = "warn" }`)
			ck("expect", `["sum(amount) >= 0"]`)
		} else {
			ck("min_rows", "1")
		}
		if g.chance(0.3) {
			ck("accepted_values", `{ status = ["new", "paid", "shipped", "void"] }`)
		}
		if up := g.checkable(m); up != nil && g.chance(0.3) {
			ck("relationships", fmt.Sprintf(`{ customer_id = "%s.customer_id" }`, up.name))
		}
		if m.shape == shapeStaging && m.partitioned && g.chance(0.5) {
			ck("row_count_matches", fmt.Sprintf(`{ source = "raw_%s.%s", column = "event_date" }`, m.srcDomain, m.srcTable))
		}
	}
	if h.Len() > 0 {
		b.WriteString("/* idemc\n")
		b.WriteString(h.String())
		b.WriteString("*/\n")
	}
}

// checkable is an upstream model a relationships check can read (not ephemeral).
func (g *gen) checkable(m *model) *model {
	for _, r := range m.refs {
		if r.mat != "ephemeral" {
			return r
		}
	}
	return nil
}

// filter returns the WHERE conditions that bound what an incremental model
// reads, for column prefix p ("" or "t0.").
func (g *gen) filter(m *model, p string) string {
	switch {
	case m.partitioned && m.macros:
		return "{{ in_window(\"" + p + "event_date\") }}"
	case m.partitioned:
		return p + "event_date >= {{ start }} AND " + p + "event_date < {{ end }}"
	case m.watermark:
		return p + "updated_at >= {{ watermark_start }} AND " + p + "updated_at < {{ watermark_end }}"
	case m.mat == "incremental":
		return "{% if is_incremental() %}" + p + "updated_at > (SELECT max(updated_at) FROM {{ this }}){% else %}1 = 1{% endif %}"
	}
	return ""
}

// extras are macro-built columns (about 30% of the models use macros).
func (g *gen) extras(m *model, p string, agg bool, second string) []string {
	if !m.macros {
		return nil
	}
	wrap := func(s, fn string) string {
		if agg {
			return fn + "(" + s + ")"
		}
		return s
	}
	var out []string
	out = append(out, wrap(`{{ cents("`+p+`amount") }}`, "sum")+" AS amount_cents")
	switch m.idx % 3 {
	case 0:
		out = append(out, wrap(`{{ status_bucket("`+p+`status") }}`, "max")+" AS status_group")
	case 1:
		if second != "" {
			out = append(out, wrap(`{{ safe_divide("`+p+`amount", "`+second+`.amount") }}`, "max")+" AS amount_ratio")
			out = append(out, wrap(`{{ sum_columns(["`+p+`amount", "`+second+`.amount"]) }}`, "sum")+" AS amount_total")
		} else {
			out = append(out, wrap(`{{ safe_divide("`+p+`amount", "100") }}`, "max")+" AS amount_hundreds")
		}
	}
	return out
}

func writeColumns(b *strings.Builder, cols []string, indent string) {
	for i, c := range cols {
		b.WriteString(indent)
		b.WriteString(c)
		if i < len(cols)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
}

func (g *gen) staging(b *strings.Builder, m *model) {
	fmt.Fprintf(b, "-- Staging for raw_%s.%s: typed columns, test rows removed.\n", m.srcDomain, m.srcTable)
	b.WriteString("SELECT\n")
	cols := []string{
		"id",
		"event_date",
		"customer_id",
		"CAST(amount AS DECIMAL(18, 2)) AS amount",
		"lower(status) AS status",
		"updated_at",
	}
	if m.useVar {
		cols = append(cols, `{{ var("source_system") }} AS source_system`)
	}
	cols = append(cols, g.extras(m, "", false, "")...)
	writeColumns(b, cols, "  ")
	fmt.Fprintf(b, "FROM {{ source(\"raw_%s\", %q) }}\n", m.srcDomain, m.srcTable)
	b.WriteString("WHERE status <> 'test'\n")
	if f := g.filter(m, ""); f != "" {
		b.WriteString("  AND " + f + "\n")
	}
}

func alias(i int) string { return "t" + strconv.Itoa(i) }

func (g *gen) join(b *strings.Builder, m *model) {
	if len(m.refs) > 1 {
		fmt.Fprintf(b, "-- %s, enriched from %d more upstream models.\n", m.refs[0].name, len(m.refs)-1)
	} else {
		fmt.Fprintf(b, "-- %s, for the %s domain.\n", m.refs[0].name, m.domain)
	}
	b.WriteString("SELECT\n")
	cols := []string{"t0.id", "t0.event_date", "t0.customer_id", "t0.amount", "t0.status", "t0.updated_at"}
	if len(m.refs) > 1 {
		amount := "t0.amount"
		for i := 1; i < len(m.refs); i++ {
			amount += " + coalesce(" + alias(i) + ".amount, 0)"
		}
		cols[3] = amount + " AS amount"
		cols[5] = "greatest(t0.updated_at, coalesce(t1.updated_at, t0.updated_at)) AS updated_at"
	}
	if m.seed != "" {
		cols = append(cols, "sc.status_group AS seed_status_group")
	}
	second := ""
	if len(m.refs) > 1 {
		second = "t1"
	}
	cols = append(cols, g.extras(m, "t0.", false, second)...)
	writeColumns(b, cols, "  ")
	fmt.Fprintf(b, "FROM {{ ref(%q) }} AS t0\n", m.refs[0].name)
	for i := 1; i < len(m.refs); i++ {
		a := alias(i)
		fmt.Fprintf(b, "LEFT JOIN {{ ref(%q) }} AS %s\n  ON %s.id = t0.id AND %s.event_date = t0.event_date\n", m.refs[i].name, a, a, a)
	}
	if m.seed != "" {
		fmt.Fprintf(b, "LEFT JOIN {{ ref(%q) }} AS sc ON sc.status = t0.status\n", m.seed)
	}
	if f := g.filter(m, "t0."); f != "" {
		b.WriteString("WHERE " + f + "\n")
	}
}

func (g *gen) aggregate(b *strings.Builder, m *model) {
	fmt.Fprintf(b, "-- Daily totals per customer.\n")
	b.WriteString("SELECT\n")
	amount := "sum(t0.amount)"
	if len(m.refs) > 1 {
		amount = "sum(t0.amount + coalesce(t1.amount, 0))"
	}
	cols := []string{
		`{{ surrogate_key(["t0.customer_id", "t0.event_date"]) }} AS id`,
		"t0.event_date",
		"t0.customer_id",
		amount + " AS amount",
		"max(t0.status) AS status",
		"max(t0.updated_at) AS updated_at",
		"count(*) AS row_count",
	}
	cols = append(cols, g.extras(m, "t0.", true, "")...)
	writeColumns(b, cols, "  ")
	fmt.Fprintf(b, "FROM {{ ref(%q) }} AS t0\n", m.refs[0].name)
	if len(m.refs) > 1 {
		fmt.Fprintf(b, "JOIN {{ ref(%q) }} AS t1 ON t1.id = t0.id\n", m.refs[1].name)
	}
	if f := g.filter(m, "t0."); f != "" {
		b.WriteString("WHERE " + f + "\n")
	}
	b.WriteString("GROUP BY t0.customer_id, t0.event_date\n")
}

func (g *gen) dedupe(b *strings.Builder, m *model) {
	b.WriteString("-- The latest version of every row.\n")
	b.WriteString("WITH ranked AS (\n  SELECT\n")
	cols := []string{"t0.id", "t0.event_date", "t0.customer_id", "t0.amount", "t0.status", "t0.updated_at"}
	cols = append(cols, "row_number() OVER (PARTITION BY t0.id ORDER BY t0.updated_at DESC, t0.amount) AS version_rank")
	writeColumns(b, cols, "    ")
	fmt.Fprintf(b, "  FROM {{ ref(%q) }} AS t0\n", m.refs[0].name)
	if f := g.filter(m, "t0."); f != "" {
		b.WriteString("  WHERE " + f + "\n")
	}
	b.WriteString(")\nSELECT\n")
	out := []string{"id", "event_date", "customer_id", "amount", "status", "updated_at"}
	out = append(out, g.extras(m, "", false, "")...)
	writeColumns(b, out, "  ")
	b.WriteString("FROM ranked\nWHERE version_rank = 1\n")
}

func (g *gen) union(b *strings.Builder, m *model) {
	b.WriteString("-- Rows of both upstream models.\n")
	f := g.filter(m, "")
	for i, r := range m.refs {
		if i > 0 {
			b.WriteString("UNION ALL\n")
		}
		fmt.Fprintf(b, "SELECT id, event_date, customer_id, amount, status, updated_at\nFROM {{ ref(%q) }}\n", r.name)
		if f != "" {
			b.WriteString("WHERE " + f + "\n")
		}
	}
}

func (g *gen) star(b *strings.Builder, m *model) {
	b.WriteString("-- Voided rows removed.\n")
	fmt.Fprintf(b, "SELECT *\nFROM {{ ref(%q) }}\nWHERE status <> 'void'\n", m.refs[0].name)
}
