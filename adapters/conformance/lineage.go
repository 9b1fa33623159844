package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// rowLineage: with lineage_columns every row a partition or a table
// writes carries the run id and the logical time of the run that wrote it;
// a forced partition takes the new run's and the others keep theirs; a
// build with nothing to do leaves them; verify compares the rest. A merge
// stamps inserted and updated rows (row_lineage/merge).
func rowLineage(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/daily.sql": strings.Replace(dailyModel, "[checks]", lineageOn+"[checks]", 1),
		"models/totals.sql": "/* idemc\nmaterialized = \"table\"\n" + lineageOn + "*/\n" +
			`SELECT user_id, count(*) AS n FROM {{ ref("daily") }} GROUP BY user_id`,
	}))
	res := e.build(asOf, nil)
	e.mustSucceed(res)
	first := res.RunID
	equal(t, "daily rows stamped by the first run", e.stamped("daily", first, asOf, ""), "7 7")
	equal(t, "totals rows stamped by the first run", e.stamped("totals", first, asOf, ""), "3 3")

	res = e.build(asOf, nil)
	e.mustSucceed(res)
	if len(res.Units) != 0 {
		t.Errorf("a build with nothing to do ran %d units", len(res.Units))
	}
	equal(t, "daily after a no-op build", e.stamped("daily", first, asOf, ""), "7 7")

	later := "2026-07-06T00:00:00Z"
	res = e.build(later, func(o *compiler.Options) { o.Select, o.Partition = []string{"daily"}, "2026-07-02" })
	e.mustSucceed(res)
	equal(t, "the forced partition", e.stamped("daily", res.RunID, later, "2026-07-02"), "2 2")
	equal(t, "the other partitions", e.stamped("daily", first, asOf, "2026-07-01"), "2 2")
	e.verifyIdentical("daily", "totals")

	tgt.run(t, "merge", func(t *testing.T) {
		e := newEnv(t, tgt, base(map[string]string{
			"models/src.sql": `SELECT 1 AS id, 'one' AS v`,
			"models/m.sql":   "/* idemc\nmaterialized = \"incremental\"\nunique_key = \"id\"\n" + lineageOn + "*/\nSELECT id, v FROM {{ ref(\"src\") }}",
		}))
		res := e.build(asOf, nil)
		e.mustSucceed(res)
		equal(t, "m after its first run", e.stamped("m", res.RunID, asOf, ""), "1 1")
		e.write(map[string]string{"models/src.sql": `SELECT 1 AS id, 'ONE' AS v UNION ALL SELECT 2, 'two'`})
		res = e.build(asOf, nil)
		e.mustSucceed(res)
		equal(t, "m: the updated and the inserted row", e.stamped("m", res.RunID, asOf, ""), "2 2")
	})
}

const lineageOn = "lineage_columns = true\n"

// verifyIdentical runs idemc verify on the models and requires every unit
// identical (the lineage columns differ from run to run by design).
func (e *env) verifyIdentical(models ...string) {
	e.t.Helper()
	p, err := project.Load(e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	at, _ := time.Parse(time.RFC3339, asOf)
	vr, err := runner.Verify(context.Background(), p, runner.VerifyOptions{Runs: 2, Threads: 2,
		Compile: compiler.Options{AsOf: at, Models: true, Select: models}})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range vr {
		if !r.Identical {
			e.t.Errorf("verify %s: %v %v %s", r.Unit, r.Fingerprints, r.Diff, r.Error)
		}
	}
}

// stamped counts a table's rows (of one day when day is set) and those
// whose lineage columns are run's id and logical time, as "rows stamped".
func (e *env) stamped(table, run, at, day string) string {
	e.t.Helper()
	ts, err := time.Parse(time.RFC3339, at)
	if err != nil {
		e.t.Fatal(err)
	}
	where := ""
	if day != "" {
		d, _ := time.Parse(time.DateOnly, day)
		where = " WHERE " + e.d.Quote("d") + " = " + e.d.WindowLiteral(d, "day")
	}
	q := fmt.Sprintf("SELECT count(*), sum(CASE WHEN %s = %s AND %s = %s THEN 1 ELSE 0 END) FROM %s%s",
		e.d.Quote(plan.LineageRunID), e.d.String(run), e.d.Quote(plan.LineageAsOf), e.d.Timestamp(ts), e.rel(table), where)
	rows := e.query(q)
	return rows[0][0] + " " + rows[0][1]
}
