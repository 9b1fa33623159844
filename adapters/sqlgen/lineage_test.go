package sqlgen_test

import (
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	bigquery "github.com/idemc/idemc/adapters/bigquery/dialect"
	duckdb "github.com/idemc/idemc/adapters/duckdb/dialect"
	mysql "github.com/idemc/idemc/adapters/mysql/dialect"
	postgres "github.com/idemc/idemc/adapters/postgres/dialect"
	snowflake "github.com/idemc/idemc/adapters/snowflake/dialect"
	spark "github.com/idemc/idemc/adapters/spark/dialect"
)

// TestLineageSelect: the lineage columns follow the model's own, typed as
// the audit's run_id and as_of are on each engine; a run id with a quote
// stays a literal; without a run (idemc compile) it is '<run_id>'.
func TestLineageSelect(t *testing.T) {
	at := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		d    adapters.PlanDialect
		run  string
		want string
	}{
		{duckdb.NewDialect(), "r1", `SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (`},
		{postgres.NewDialect(), "r'1", `SELECT idemc_lineage.*, CAST('r''1' AS TEXT) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (`},
		// CAST AS CHAR alone would type the column VARCHAR(len of the id) in CREATE TABLE … AS.
		{mysql.NewDialect(), "r1", "SELECT idemc_lineage.*, CAST('r1' AS CHAR(255)) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS DATETIME(6)) AS `_idemc_as_of` FROM ("},
		{snowflake.NewDialect(), "r1", `SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_IDEMC_RUN_ID", CAST('2026-07-03 06:00:00'::TIMESTAMP_NTZ AS TIMESTAMP_NTZ) AS "_IDEMC_AS_OF" FROM (`},
		{bigquery.NewDialect(), "r'1", "SELECT idemc_lineage.*, CAST('r\\'1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM ("},
		{spark.NewDialect(), "", "SELECT idemc_lineage.*, CAST('<run_id>' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM ("},
	}
	for _, tt := range tests {
		got := tt.d.LineageSelect("SELECT 1 AS id -- a trailing comment", tt.run, at)
		want := tt.want + "\nSELECT 1 AS id -- a trailing comment\n) AS idemc_lineage"
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.d.Name(), got, want)
		}
	}
}
