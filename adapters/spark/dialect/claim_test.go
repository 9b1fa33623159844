package dialect

import (
	"testing"

	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/plan"
)

// TestClaimSQL: the unit claim's statements (sqlgen/claim.go) as this
// engine spells them (no update: Delta finds two claims of one key partition in conflict), and the claim step's spec, which the runner
// completes.
func TestClaimSQL(t *testing.T) {
	d := NewDialect()
	st := plan.StateIn("analytics")
	for _, tc := range []struct{ name, got, want string }{
		{"lock table", d.ClaimDDL(st), "CREATE TABLE IF NOT EXISTS `analytics`.`idemc_locks` (\n  lock_key STRING NOT NULL,\n  run_id STRING NOT NULL,\n  claimed_at TIMESTAMP\n) USING DELTA PARTITIONED BY (lock_key, run_id)"},
		{"claim", d.Claim(st, "k'1", "r1"), "MERGE INTO `analytics`.`idemc_locks` AS t\nUSING (SELECT 1 AS one) AS s\nON t.lock_key = 'k\\'1'\nWHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('k\\'1', 'r1', CURRENT_TIMESTAMP)"},
		{"holder", d.ClaimHolder(st, "k'1"), "SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = 'k\\'1' ORDER BY claimed_at, run_id LIMIT 1"},
		{"release", d.ClaimRelease(st, "k'1", "'r1'"), "DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = 'k\\'1' AND run_id = 'r1'"},
		{"run end", d.ClaimsEnd(st, "r1"), "DELETE FROM `analytics`.`idemc_locks` WHERE run_id = 'r1'"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
	w := testWrite("delete_insert")
	dialecttest.CheckClaimStep(t, w, d.Recipe(w), "`analytics`.`events_daily`/2026-07-02")
}
