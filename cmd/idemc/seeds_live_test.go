package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/conformance"
	"github.com/idemc/idemc/plan"
)

// typedSeed has a column of every kind, identifiers with leading zeros and
// a leading +, NULLs, a quoted comma, quote and line break, and columns whose
// kind column_types declares.
const typedSeed = `id,zip,phone,amount,ok,d,ts,note,code,n,at
1,00123,+33123456,2.5,true,2026-07-01,2026-07-01 10:00:00.123456,"a, ""b""
c",10,7,2026-07-01
2,02139,0612345678,-3,FALSE,2026-12-31,2026-07-02T23:59:59,plain,0042,1.25,2026-07-02 08:30:00
3,,,,,,,,,,
`

// TestSeedSameOnEveryEngine loads one typed seed on DuckDB, PostgreSQL and
// MariaDB and requires the same column kinds and the same values on each.
// The live servers are skipped when absent (required in CI).
func TestSeedSameOnEveryEngine(t *testing.T) {
	pg := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	my := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	dir := t.TempDir()
	schema := fmt.Sprintf("idemc_seedtest_%d", os.Getpid())
	settings := map[string]map[string]string{
		"local": {"engine": "duckdb", "path": filepath.Join(dir, "target", "w.duckdb")},
		"pg":    {"engine": "postgres", "dsn": pg},
		"mysql": {"engine": "mysql", "dsn": my},
	}
	toml := fmt.Sprintf(`name = "seeds"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
[targets.pg]
engine = "postgres"
dsn = %q
schema = %q
[targets.mysql]
engine = "mysql"
dsn = %q
schema = %q
[seeds]
schema = %q
[seeds.typed]
column_types = { code = "text", n = "double", at = "timestamp" }
`, pg, schema, my, schema, schema)
	for name, text := range map[string]string{"project.toml": toml, "seeds/typed.csv": typedSeed} {
		full := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := plan.Relation{Schema: schema, Name: "typed"}
	var want string
	for _, target := range []string{"local", "pg", "mysql"} {
		s := settings[target]
		ad, _ := adapters.Lookup(s["engine"])
		if target != "local" {
			t.Cleanup(func() { dropSchema(t, ad, s, schema) })
		}
		var out, errb bytes.Buffer
		if code := run([]string{"seed", "--project", dir, "--target", target}, &out, &errb); code != 0 {
			t.Fatalf("seed --target %s: exit %d\n%s%s", target, code, out.String(), errb.String())
		}
		got := seedContents(t, ad, s, r)
		t.Logf("%s:\n%s", target, got)
		if want == "" {
			want = got
			continue
		}
		if got != want {
			t.Errorf("%s differs from DuckDB:\n%s", target, firstDifference(want, got))
		}
	}
	for _, line := range []string{
		"id bigint\nzip text\nphone text\namount double\nok boolean\nd date\nts timestamp\nnote text\ncode text\nn double\nat timestamp",
		"1\t00123\t+33123456\t2.5\tyes\t2026-07-01\t2026-07-01 10:00:00.123456\ta, \"b\"\nc\t10\t7\t2026-07-01 00:00:00",
		"2\t02139\t0612345678\t-3\tno\t2026-12-31\t2026-07-02 23:59:59\tplain\t0042\t1.25\t2026-07-02 08:30:00",
		"3\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL",
	} {
		if !strings.Contains(want, line) {
			t.Errorf("DuckDB lacks the row\n%s", line)
		}
	}
}

// seedContents reads the typed seed back in a form every engine renders
// alike: each column's kind (by what it can do) and its values as text.
func seedContents(t *testing.T, ad *adapters.Adapter, s map[string]string, r plan.Relation) string {
	t.Helper()
	ctx := context.Background()
	eng, err := ad.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := eng.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	cols, _, err := sess.Relation(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range cols {
		fmt.Fprintf(&b, "%s %s\n", c.Name, kindOf(c.Type))
	}
	q := ad.Dialect.Quote
	// A boolean and a date render alike once turned into text.
	query := fmt.Sprintf(`SELECT %[1]s, %[2]s, %[3]s, %[4]s,
	  CASE WHEN %[5]s THEN 'yes' WHEN NOT %[5]s THEN 'no' END,
	  CAST(%[6]s AS CHAR(10)), %[7]s, %[8]s, %[9]s, %[10]s, %[11]s
	FROM %[12]s ORDER BY %[1]s`,
		q("id"), q("zip"), q("phone"), q("amount"), q("ok"), q("d"), q("ts"), q("note"), q("code"), q("n"), q("at"), ad.Dialect.Qualify(r))
	_, rows, err := sess.Query(ctx, query, 0)
	if err != nil {
		t.Fatalf("%s: %v", s["engine"], err)
	}
	for _, row := range rows {
		b.WriteString(strings.Join(row, "\t") + "\n")
	}
	return b.String()
}

// kindOf names an engine's column type by the seed kind it holds.
func kindOf(typ string) string {
	t := strings.ToLower(typ)
	switch {
	case t == "bigint":
		return "bigint"
	case strings.HasPrefix(t, "double"):
		return "double"
	case t == "boolean" || strings.HasPrefix(t, "tinyint"):
		return "boolean"
	case t == "date":
		return "date"
	case strings.HasPrefix(t, "timestamp") || strings.HasPrefix(t, "datetime"):
		return "timestamp"
	case t == "text" || strings.HasPrefix(t, "varchar") || strings.HasSuffix(t, "text"):
		return "text"
	}
	return "? " + typ
}

func dropSchema(t *testing.T, ad *adapters.Adapter, s map[string]string, schema string) {
	eng, err := ad.Open(context.Background(), s)
	if err != nil {
		t.Error(err)
		return
	}
	defer eng.Close()
	sess, err := eng.Session(context.Background())
	if err != nil {
		t.Error(err)
		return
	}
	defer sess.Close()
	q := "DROP SCHEMA IF EXISTS " + ad.Dialect.Quote(schema)
	if s["engine"] == "postgres" {
		q += " CASCADE"
	}
	if _, err := adapters.ExecSQL(context.Background(), sess, q); err != nil {
		t.Error(err)
	}
}
