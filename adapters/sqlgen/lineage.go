package sqlgen

import (
	"fmt"
	"time"

	"github.com/idemc/idemc/plan"
)

// LineageSelect is a model's SELECT with the row lineage columns after its
// own: the run id and the run's logical time as typed literals, so the
// compiled SQL is what runs (DESIGN §14). Their types are the audit's
// run_id and as_of types, so a row joins to its audit row: text (MySQL
// casts to CHAR(255), a VARCHAR(255), because CAST AS CHAR would type the
// column by the literal's length in CREATE TABLE … AS) and the audit's
// timestamp. Without a run id (idemc compile) it is printed '<run_id>'.
func (g Gen) LineageSelect(sel, runID string, asOf time.Time) string {
	if runID == "" {
		runID = "<run_id>" // as the compiled audit rows print it
	}
	return fmt.Sprintf("SELECT idemc_lineage.*, CAST(%s AS %s) AS %s, CAST(%s AS %s) AS %s FROM (\n%s\n) AS idemc_lineage",
		g.String(runID), or(g.S.RunIDCast, g.S.TextType), g.Quote(plan.LineageRunID),
		g.Timestamp(asOf), or(g.S.Timestamp, "TIMESTAMP"), g.Quote(plan.LineageAsOf), sel)
}
