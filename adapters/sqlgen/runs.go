package sqlgen

import (
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// RunQuery reads one run of idemc_runs, for idemc status --run.
func RunQuery(g adapters.Literals, s plan.State, runID string) string {
	return fmt.Sprintf(`SELECT run_id, command, options, target, as_of, git_commit, started_at, ended_at, outcome, retry_of, succeeded, failed, skipped
FROM %s WHERE run_id = %s`, g.Qualify(s.Runs), g.String(runID))
}
