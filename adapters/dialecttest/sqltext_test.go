package dialecttest

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/plan"
)

// TestCheckSQLTextFails feeds CheckSQLText correct and wrong statements:
// each wrong one must be named.
func TestCheckSQLTextFails(t *testing.T) {
	all := TextRules{InsertColumns: true, NoIsTrue: true, QualifiedInfoSchema: true}
	cases := []struct{ sql, want string }{
		{"INSERT INTO \"A\".\"T\" (\"X\")\nSELECT \"X\" FROM (\nSELECT 1 AS x\n) AS idemc_batch", ""},
		{"INSERT INTO `a`.`t` SELECT * FROM `a`.`u`", ""}, // a whole-table copy into its LIKE copy
		{"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)", ""},
		{"SELECT 1 FROM `p.d`.INFORMATION_SCHEMA.TABLES", ""},
		{"SELECT ok FROM c WHERE n > 0 AND NOT coalesce(ok, FALSE)", ""},
		{"INSERT OVERWRITE INTO \"A\".\"T\"\nSELECT 1 AS x", "INSERT without a column list"},
		{"INSERT INTO `a`.`t`\nSELECT x FROM y WHERE z", "INSERT without a column list"},
		{"INSERT INTO t SELECT * FROM u WHERE d = 1", "INSERT without a column list"},
		{"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k)", "MERGE's INSERT without a column list"},
		{"SELECT ok FROM c WHERE n > 0 AND ok IS NOT TRUE", "rejects IS [NOT] TRUE"},
		{"SELECT table_name FROM INFORMATION_SCHEMA.TABLES", "unqualified INFORMATION_SCHEMA"},
		{"CREATE VIEW v AS SELECT 1 " + TrailingComment + " UNION ALL SELECT 2", "trailing comment swallows"},
		{"CREATE VIEW v AS\nSELECT 1\n" + TrailingComment, ""}, // the printed plan puts ";" on its own line
	}
	for _, c := range cases {
		got := strings.Join(CheckSQLText(all, []plan.Step{{Purpose: plan.Publish, SQL: c.sql}}), "; ")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.sql, got, c.want)
		}
	}
}
