package main

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/internal/testtree"
)

// TestDemo builds the repository's demo project twice, as the README's
// first command does, and checks that every table is identical after the
// second build and that idemc test passes.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"project.toml", "models", "macros", "seeds", "tests"} {
		testtree.Copy(t, filepath.Join("..", "..", name), filepath.Join(dir, name))
	}
	idemc := func(want int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, "--project", dir), &out, &errb); code != want {
			t.Fatalf("idemc %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String()
	}
	out := idemc(0, "build", "--as-of", "2026-08-01T00:00:00Z")
	if !strings.Contains(out, " 0 failed, 0 skipped") {
		t.Fatalf("demo build did not succeed:\n%s", out)
	}
	first := fingerprint(t, filepath.Join(dir, "target", "warehouse.duckdb"))
	// Every partition again: the same rows.
	idemc(0, "build", "--as-of", "2026-08-01T00:00:00Z", "--start", "2026-07-01", "--end", "2026-08-01")
	second := fingerprint(t, filepath.Join(dir, "target", "warehouse.duckdb"))
	if first != second {
		t.Fatalf("second build changed the warehouse:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	out = idemc(0, "test")
	if !strings.Contains(out, " 0 failed") {
		t.Fatalf("idemc test:\n%s", out)
	}
	out = idemc(0, "status", "--select", "events_daily", "--partition", "2026-07-30")
	if !strings.Contains(out, "2026-07-30") || !strings.Contains(out, "succeeded") {
		t.Fatalf("status:\n%s", out)
	}
}

// fingerprint lists every demo table's rows in a fixed order.
func fingerprint(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{"raw.staging_events", "raw.users", "main.events_daily", "main.dim_users", "main.user_summary"} {
		rows, err := db.Query("SELECT * FROM " + table + " ORDER BY ALL")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				b.WriteString(sqlgen.Text(v))
				b.WriteByte('\t')
			}
			b.WriteByte('\n')
			n++
		}
		rows.Close()
		if n == 0 {
			t.Fatalf("%s is empty", table)
		}
	}
	return b.String()
}
