package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver

	"github.com/idemc/idemc/internal/testtree"
)

// dbtProject is the dbt project both tools build (issue 15, item 4).
const dbtProject = "../../testdata/dbt/jaffle"

// findDBT is the dbt of scripts/dbt.sh: $IDEMC_DBT, else target/dbt in
// the repo, else dbt on PATH; "" when there is none.
func findDBT() string {
	if p := os.Getenv("IDEMC_DBT"); p != "" {
		return p
	}
	if p, err := filepath.Abs("../../target/dbt/bin/dbt"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("dbt"); err == nil {
		return p
	}
	return ""
}

// copyProject copies the dbt test project into a fresh folder, so that
// neither tool writes into testdata.
func copyProject(t *testing.T) string {
	dst := t.TempDir()
	testtree.Copy(t, dbtProject, dst, "target")
	return dst
}

// idemcBuild seeds and builds the project at dir with idemc, in process,
// and returns the build's output. Seeds first, as for dbt: the project
// reads a seed through source(), which is no edge of the graph.
func idemcBuild(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	var out bytes.Buffer
	for _, cmd := range []string{"seed", "build"} {
		var errb bytes.Buffer
		out.Reset()
		args := append([]string{cmd, "--project", dir}, extra...)
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("idemc %s: exit %d\n%s%s", cmd, code, out.String(), errb.String())
		}
	}
	return out.String()
}

// TestDBTCompare builds testdata/dbt/jaffle with dbt (dbt seed, dbt run)
// into one DuckDB file and with idemc into another, and compares every
// relation: the same columns, and the same rows as multisets. Seed column
// types differ (dbt-duckdb's INTEGER, idemc's BIGINT), so values are
// compared normalized (normalize). Skips without dbt, except under
// IDEMC_REQUIRE_LIVE=1 (CI runs scripts/dbt.sh first).
func TestDBTCompare(t *testing.T) {
	dbt := findDBT()
	if dbt == "" {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatal("dbt is not installed and IDEMC_REQUIRE_LIVE=1: run eval \"$(scripts/dbt.sh)\"")
		}
		t.Skip("dbt is not installed: eval \"$(scripts/dbt.sh)\" installs it")
	}
	dbtDir, idemcDir := copyProject(t), copyProject(t)
	dbtFile := filepath.Join(dbtDir, "dbt.duckdb")
	for _, cmd := range []string{"seed", "run"} {
		c := exec.Command(dbt, cmd, "--profiles-dir", dbtDir, "--project-dir", dbtDir)
		c.Dir = dbtDir
		c.Env = append(os.Environ(), "JAFFLE_DUCKDB_PATH="+dbtFile, "DBT_SEND_ANONYMOUS_USAGE_STATS=false")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("dbt %s: %v\n%s", cmd, err, out)
		}
	}
	idemcFile := filepath.Join(idemcDir, "idemc.duckdb")
	t.Setenv("JAFFLE_DUCKDB_PATH", idemcFile)
	idemcBuild(t, idemcDir)

	want := dumpDuckDB(t, dbtFile)
	compareRelations(t, "dbt", want, "idemc", dumpDuckDB(t, idemcFile))
	// A second build runs nothing: fct_payments's code hash covers both
	// of its renders, so it does not change once the table exists.
	if out := idemcBuild(t, idemcDir); !strings.Contains(out, " 0 succeeded, 0 failed, 0 skipped, 9 up to date") {
		t.Errorf("the second idemc build ran units:\n%s", out)
	}
	// A code change reruns fct_payments on top of its table: it takes the
	// is_incremental() branch and must leave every relation as it was.
	fct := filepath.Join(idemcDir, "models", "marts", "fct_payments.sql")
	b, err := os.ReadFile(fct)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fct, append(b, "\n-- changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := idemcBuild(t, idemcDir); !strings.Contains(out, " 1 succeeded, 0 failed") {
		t.Errorf("the build after an edit of fct_payments did not run it alone:\n%s", out)
	}
	compareRelations(t, "dbt", want, "idemc (built again, incremental)", dumpDuckDB(t, idemcFile))
	if len(want) != 9 {
		t.Errorf("dbt built %d relations, want the project's 9 (3 seeds, 3 staging views, 3 marts)", len(want))
	}
}

// relation is one relation's columns and its rows, each row its
// normalized values joined, sorted (a multiset).
type relation struct {
	columns []string
	rows    []string
}

func dumpDuckDB(t *testing.T, file string) map[string]relation {
	t.Helper()
	db, err := sql.Open("duckdb", file+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return dumpRelations(t, db, "main", `SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'`)
}

// dumpRelations reads every relation the query lists (idemc's own state
// tables left out) from schema.
func dumpRelations(t *testing.T, db *sql.DB, schema, listQuery string) map[string]relation {
	t.Helper()
	rows, err := db.Query(listQuery)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(strings.ToLower(n), "idemc_") {
			names = append(names, n)
		}
	}
	rows.Close()
	out := map[string]relation{}
	for _, n := range names {
		out[strings.ToLower(n)] = readRelation(t, db, schema, n)
	}
	return out
}

func readRelation(t *testing.T, db *sql.DB, schema, name string) relation {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf("SELECT * FROM %s.%s", schema, name))
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	defer rows.Close()
	types, _ := rows.ColumnTypes()
	var r relation
	for _, ct := range types {
		r.columns = append(r.columns, strings.ToLower(ct.Name()))
	}
	for rows.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = normalize(types[i].DatabaseTypeName(), v)
		}
		r.rows = append(r.rows, strings.Join(parts, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(r.rows)
	return r
}

// normalize renders a value so that the engines' types for the same
// value compare equal: integers of any width as integers; decimals and
// doubles as numbers rounded to 6 places (dbt-duckdb's DOUBLE against a
// DECIMAL, PostgreSQL's numeric against DuckDB's double); dates as
// YYYY-MM-DD whatever the driver returns.
func normalize(dbType string, v any) string {
	if v == nil {
		return "NULL"
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	typ := strings.ToUpper(dbType)
	switch {
	case strings.Contains(typ, "INT"):
		if n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
	case strings.HasPrefix(typ, "DECIMAL") || strings.HasPrefix(typ, "NUMERIC") || typ == "DOUBLE" || typ == "FLOAT" ||
		typ == "FLOAT8" || typ == "FLOAT4" || typ == "REAL" || typ == "NEWDECIMAL":
		var f float64
		switch x := v.(type) {
		case interface{ Float64() float64 }:
			f = x.Float64()
		default:
			var err error
			if f, err = strconv.ParseFloat(fmt.Sprint(v), 64); err != nil {
				return fmt.Sprint(v)
			}
		}
		return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64)
	case typ == "DATE":
		if tm, ok := v.(time.Time); ok {
			return tm.Format("2006-01-02")
		}
		if s := fmt.Sprint(v); len(s) >= 10 {
			return s[:10]
		}
	}
	if tm, ok := v.(time.Time); ok {
		return tm.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// compareRelations reports every relation that one side lacks or whose
// columns or rows differ, and logs the relations that agree.
func compareRelations(t *testing.T, an string, a map[string]relation, bn string, b map[string]relation) {
	t.Helper()
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			t.Errorf("%s has relation %s, %s does not", bn, n, an)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ra, rb := a[n], b[n]
		if _, ok := b[n]; !ok {
			t.Errorf("%s has relation %s, %s does not", an, n, bn)
			continue
		}
		if strings.Join(ra.columns, ",") != strings.Join(rb.columns, ",") {
			t.Errorf("%s: columns differ:\n  %s: %v\n  %s: %v", n, an, ra.columns, bn, rb.columns)
			continue
		}
		if strings.Join(ra.rows, "\n") != strings.Join(rb.rows, "\n") {
			t.Errorf("%s: rows differ:\n  %s:\n    %s\n  %s:\n    %s", n, an, strings.Join(ra.rows, "\n    "), bn, strings.Join(rb.rows, "\n    "))
			continue
		}
		t.Logf("%s: same %d columns and %d rows in %s and %s", n, len(ra.columns), len(ra.rows), an, bn)
	}
}
