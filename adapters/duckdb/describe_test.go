package duckdb

import (
	"context"
	"database/sql/driver"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/idemc/idemc/plan"
)

// TestPreparedColumnsMatchRows: the prepared describe names every column
// and type as running the query does (the schema sync compares them with
// the catalog's), takes the prepared path for plain types, and falls back
// for the others.
func TestPreparedColumnsMatchRows(t *testing.T) {
	ctx := context.Background()
	eng, err := Open(ctx, map[string]string{"path": filepath.Join(t.TempDir(), "w.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	as, err := eng.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	s := as.(session)
	var plain []string
	for _, name := range plainTypes {
		plain = append(plain, "CAST(NULL AS "+name+") AS \"c "+strings.ToLower(name)+"\"")
	}
	plain = append(plain, "CAST('{}' AS JSON) AS j", "DATE '2025-01-01' AS d", "00 AS m", "1 AS n", "'x' AS s", "now() AS ts")
	for _, tc := range []struct {
		name     string
		q        string
		prepared bool
	}{
		{"plain", "SELECT " + strings.Join(plain, ", "), true},
		{"batch", "SELECT * FROM (\nSELECT DATE '2025-01-02' AS d, 00 AS m, 1 AS n\n) AS idemc_describe LIMIT 0", true},
		{"decimal", "SELECT 1.25 AS x, CAST(1 AS DECIMAL(18,3)) AS y", false},
		{"nested", "SELECT [1, 2] AS l, {'a': 1} AS st, map([1], ['a']) AS m, 1 AS n", false},
		{"null", "SELECT NULL AS x", true}, // INTEGER, both ways
		{"enum", "SELECT CAST('a' AS ENUM ('a', 'b')) AS e", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := s.Session.Columns(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Columns(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("prepared describe\n%v\nrows describe\n%v", got, want)
			}
			var direct []plan.Column
			if err := s.Conn.Raw(func(dc any) error {
				st, err := dc.(*duckdb.Conn).PrepareContext(ctx, tc.q)
				if err != nil {
					return err
				}
				defer st.Close()
				direct, err = preparedColumns(st.(driver.Stmt))
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if (direct != nil) != tc.prepared {
				t.Errorf("prepared path taken: %v, want %v", direct != nil, tc.prepared)
			}
		})
	}
	// A bad query is the engine's error, as when it runs.
	if _, err := s.Columns(ctx, "SELECT * FROM nowhere"); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("describe of a missing table: %v", err)
	}
}
