package analyze

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/plan"
)

// lineageText renders lineage as "col <- t.a, t.b" lines ("?" and the reason when unknown,
// "{a|b}.c" for an unqualified column of a join of tables).
func lineageText(ls []plan.ColumnLineage) []string {
	var out []string
	for _, l := range ls {
		var srcs []string
		for _, s := range l.Sources {
			if s.Table == "" {
				srcs = append(srcs, "{"+strings.Join(s.Candidates, "|")+"}."+s.Column)
			} else {
				srcs = append(srcs, s.Table+"."+s.Column)
			}
		}
		line := l.Column + " <- " + strings.Join(srcs, ", ")
		if l.Unknown != "" {
			line += " ? " + l.Unknown
		}
		out = append(out, line)
	}
	return out
}

func TestLineage(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []string // nil: no lineage (a wildcard or not parsed)
	}{
		{"plain and aliased", "SELECT a, b AS bb, x.c FROM t AS x",
			[]string{"a <- t.a", "bb <- t.b", "c <- t.c"}},
		{"source name", "SELECT u.id, name FROM raw.users AS u",
			[]string{"id <- raw.users.id", "name <- raw.users.name"}},
		{"expressions and constants", "SELECT md5(concat_ws('|', a, b)) AS k, 'shop' AS s, count(*) AS n, sum(c) * 100 AS c FROM t GROUP BY a",
			[]string{"k <- t.a, t.b", "s <- ", "n <- ", "c <- t.c"}},
		{"join qualified", "SELECT u.id, count(e.k) AS n FROM users AS u LEFT JOIN events AS e ON e.uid = u.id GROUP BY u.id",
			[]string{"id <- users.id", "n <- events.k"}},
		{"join unqualified between tables", "SELECT id FROM users JOIN events ON events.uid = users.id",
			[]string{"id <- {events|users}.id"}},
		{"join unqualified resolved by a derived table's columns", "SELECT k, name FROM (SELECT k FROM a) AS d JOIN (SELECT name FROM b) AS e ON 1 = 1",
			[]string{"k <- a.k", "name <- b.name"}},
		{"join unqualified ambiguous with a table", "SELECT k FROM (SELECT k FROM a) AS d JOIN b ON 1 = 1",
			[]string{"k <-  ? column k is not qualified and may come from d or b"}},
		{"derived table", "SELECT v, total FROM (SELECT e.v, e.a + e.b AS total, row_number() OVER (PARTITION BY e.v ORDER BY e.ts) AS rn FROM raw.ev AS e) AS d WHERE rn = 1",
			[]string{"v <- raw.ev.v", "total <- raw.ev.a, raw.ev.b"}},
		{"cte and column list", "WITH c(x, y) AS (SELECT a, b + 1 FROM t), d AS (SELECT x AS z FROM c) SELECT z, (SELECT max(y) FROM c) AS m FROM d",
			[]string{"z <- t.a", "m <- t.b"}},
		{"cte star", "WITH c AS (SELECT * FROM t) SELECT a FROM c",
			[]string{"a <- t.a"}},
		{"union by position", "SELECT a AS x FROM t UNION ALL SELECT b FROM u",
			[]string{"x <- t.a, u.b"}},
		{"window function inputs", "SELECT row_number() OVER (PARTITION BY g ORDER BY ts) AS rn FROM t",
			[]string{"rn <- t.g, t.ts"}},
		{"correlated subquery", "SELECT o.id, (SELECT count(i.x) FROM items AS i WHERE i.oid = o.id) AS n FROM orders AS o",
			[]string{"id <- orders.id", "n <- items.x"}},
		{"unknown qualifier", "SELECT z.a FROM t",
			[]string{"a <-  ? column z.a names no table of the FROM clause"}},
		{"no from", "SELECT 1 AS one, a FROM (SELECT 2 AS b) AS d",
			[]string{"one <- ", "a <-  ? column a is not in the SELECT list"}},
		{"top-level wildcard", "SELECT * FROM t", nil},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := p.Analyze(Input{SQL: tt.sql, Materialized: "table", Lineage: true})
			if !res.Parsed {
				t.Fatalf("not parsed: %v", res.Findings)
			}
			got := lineageText(res.Lineage)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || (got == nil) != (tt.want == nil) {
				t.Errorf("lineage of %s\n got: %q\nwant: %q", tt.sql, got, tt.want)
			}
		})
	}
}

// TestLineageNotParsed: a model the parser cannot read has no lineage at all (the docs site
// shows it as unknown), not a partial guess.
func TestLineageNotParsed(t *testing.T) {
	res := NewParser().Analyze(Input{SQL: "SELECT a::int AS a FROM t QUALIFY row_number() OVER () = 1", Materialized: "table", Lineage: true})
	if res.Parsed || res.Lineage != nil {
		t.Fatalf("parsed %v, lineage %v; want no lineage", res.Parsed, res.Lineage)
	}
	// Not asked for, it is not traced.
	if res := NewParser().Analyze(Input{SQL: "SELECT a FROM t", Materialized: "table"}); !res.Parsed || res.Lineage != nil {
		t.Fatalf("lineage %v without Input.Lineage", res.Lineage)
	}
}
