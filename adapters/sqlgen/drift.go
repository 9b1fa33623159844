package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// driftQuery renders a drift rule (DESIGN §14) as a check query: it
// returns a row, the evidence, when the rule fires. Both count the
// written region as min_rows does, inside the write's transaction; the
// row-count rule compares that count with the median row_count the audit
// table records for the model's history, read in the same transaction.
// from is the destination under alias t and whereOnly its region's WHERE
// clause ("" for the whole relation).
func (g Gen) driftQuery(c *plan.Check, w *plan.Write, from, whereOnly string) string {
	count := fmt.Sprintf("SELECT count(*) AS n FROM %s%s", from, whereOnly)
	if c.Kind == plan.CheckDriftZeroRows {
		return fmt.Sprintf("SELECT n AS row_count FROM (%s) AS c\nWHERE n = 0", count)
	}
	ratio := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	return fmt.Sprintf("SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM\n(%s) AS c,\n(%s) AS h\nWHERE h.k >= %d AND (c.n < %s * h.median OR c.n > %s * h.median)",
		count, g.driftMedian(g.driftHistory(c, w)), plan.DriftMinHistory, ratio(c.MinRatio), ratio(c.MaxRatio))
}

// driftHistory selects the row_count of the unit's history, as l: for a
// partition, the latest succeeded attempt of each of the model's last
// Window partitions before it (by partition key: the partitions nearest in
// data time, whatever order a backfill built them in, and never later
// ones, so that a rebuilt partition is judged as it was); for an
// unpartitioned model, its last Window succeeded runs before this one.
func (g Gen) driftHistory(c *plan.Check, w *plan.Write) string {
	audit := g.Qualify(w.State.Audit)
	succeeded := func(alias string) string {
		return fmt.Sprintf("%s.job_name = %s AND %s.status = 'succeeded'", alias, g.String(w.Model), alias)
	}
	where := succeeded("a")
	if w.Window == nil {
		// Not this run's own row: BigQuery runs a warn check after its
		// script committed the unit's succeeded row.
		return fmt.Sprintf("SELECT a.row_count FROM %s AS a\nWHERE %s AND a.partition_key = '' AND a.run_id <> %s\nORDER BY a.ended_at DESC\nLIMIT %d",
			audit, where, g.String(auditOf(w, "").RunID), c.Window)
	}
	// The window's partition keys first (an index range read backwards
	// from the unit's key), then their attempts: ranking every earlier
	// partition's attempts cost ~10 ms at 300 partitions on PostgreSQL.
	// A join, not IN: MySQL takes no LIMIT in an IN subquery.
	keys := fmt.Sprintf("SELECT DISTINCT p.partition_key FROM %s AS p\nWHERE %s AND p.partition_key < %s\nORDER BY p.partition_key DESC\nLIMIT %d",
		audit, succeeded("p"), g.String(w.Window.Key), c.Window)
	latest := fmt.Sprintf("SELECT a.row_count, ROW_NUMBER() OVER (PARTITION BY a.partition_key ORDER BY a.ended_at DESC) AS latest\nFROM %s AS a\nJOIN (\n%s\n) AS w ON a.partition_key = w.partition_key\nWHERE %s",
		audit, Indent(keys), where)
	return fmt.Sprintf("SELECT s.row_count FROM (\n%s\n) AS s\nWHERE s.latest = 1", Indent(latest))
}

// driftMedian is one row: the median of history's row_count, and k, how
// many rows it has. An engine with a median aggregate spells it
// (Spelling.Median); the others take the middle one or two rows by
// ROW_NUMBER, with no integer division (whose spelling differs): row i of
// k is a middle row when 2i is k, k+1 or k+2.
func (g Gen) driftMedian(history string) string {
	if g.S.Median != nil {
		return fmt.Sprintf("SELECT %s AS median, count(*) AS k FROM (\n%s\n) AS l", g.S.Median("l.row_count"), Indent(history))
	}
	return fmt.Sprintf("SELECT avg(o.row_count) AS median, max(o.k) AS k FROM (\n  SELECT l.row_count, ROW_NUMBER() OVER (ORDER BY l.row_count) AS i, count(*) OVER () AS k FROM (\n%s\n  ) AS l\n) AS o\nWHERE 2 * o.i BETWEEN o.k AND o.k + 2",
		Indent(Indent(history)))
}

// DriftStatusQuery lists the latest finished row (idemc_latest's where the
// state has it, as StatusQueryOf reads) of each unit whose
// checks name a drift rule (status --drift): job, partition, status, row
// count, run id, checks. jobs, when not nil, are the models to read.
func DriftStatusQuery(g adapters.Literals, s plan.State, jobs []string) string {
	where := "idemc_rank = 1 AND status IN ('succeeded', 'failed') AND checks LIKE " + g.String("%"+plan.DriftPrefix+"%")
	if jobs != nil {
		lits := make([]string, len(jobs))
		for i, j := range jobs {
			lits[i] = g.String(j)
		}
		where += " AND job_name IN (" + strings.Join(lits, ", ") + ")"
	}
	return fmt.Sprintf("SELECT job_name, partition_key, status, row_count, run_id, checks FROM (\n%s\n) AS latest\nWHERE %s\nORDER BY job_name, partition_key", unitRows(g, s), where)
}
