package runner

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// TestCloudKindSwitch (issue 17, item 7): on BigQuery and Spark a view
// becomes a table or an incremental table and back — it used to fail on
// every rerun until the relation was dropped by hand — and a run killed
// after any statement of the switch is repaired by the next: the
// destination ends of the new kind, nothing is left beside it. A failing
// check keeps the old relation. Spark renames both kinds (ALTER TABLE|VIEW
// … RENAME TO), so a refused second rename puts the old relation back.
// BigQuery renames tables only: a table gives way to a view by a rename
// and the view is created in its place (a refused CREATE VIEW renames the
// table back); a view gives way to a table by being dropped once the
// checked table waits at __idemc_old, so a refused last rename leaves no
// destination until the next run finishes the switch.
func TestCloudKindSwitch(t *testing.T) {
	bqCols := []plan.Column{{Name: "id", Type: "INTEGER"}, {Name: "d", Type: "DATE"}}
	kindSwitch{engine: "bigquery", cols: bqCols, failOn: "`id` IS NULL",
		putIn: func(from, to string) (string, bool) {
			if to == plan.View {
				return "CREATE VIEW `analytics`.`events`", true
			}
			return "`events__idemc_old` RENAME TO", false
		}}.check(t)
	kindSwitch{engine: "spark", cols: []plan.Column{{Name: "id", Type: "BIGINT"}, {Name: "d", Type: "DATE"}}, failOn: "`id` IS NULL",
		putIn: func(string, string) (string, bool) { return "`events__idemc_new` RENAME TO", true }}.check(t)
}

// TestCloudKindSwapShapes: the recipe of a materialization switch on
// BigQuery and Spark. BigQuery writes and checks the new table in one
// script, swaps it in by three DDL jobs after COMMIT, then records the
// unit in a second script; its labels ride on the recipe's steps (the
// audit row's is the first that runs, before any write job). Spark
// stages, checks and writes the new table, then renames. A view is
// created aside and checked there before the swap, on both.
func TestCloudKindSwapShapes(t *testing.T) {
	for _, c := range []struct {
		engine, to, shape string
		swap              []string
	}{
		{"bigquery", plan.Table, "audit_start lock schema schema schema schema begin delete insert check commit publish publish publish schema begin audit_finish commit cleanup cleanup cleanup", []string{
			"ALTER TABLE IF EXISTS `analytics`.`events__idemc_new` RENAME TO `events__idemc_old`",
			"DROP VIEW IF EXISTS `analytics`.`events`",
			"ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`"}},
		{"bigquery", plan.View, "schema schema schema audit_start lock stage check publish publish schema audit_finish cleanup cleanup cleanup", []string{
			"ALTER TABLE IF EXISTS `analytics`.`events` RENAME TO `events__idemc_old`",
			"CREATE VIEW `analytics`.`events` AS\nSELECT id, d FROM raw.events"}},
		{"bigquery", plan.Incremental, "audit_start lock schema schema schema schema begin delete insert validate check commit publish publish publish schema begin audit_finish commit cleanup cleanup cleanup", nil},
		{"spark", plan.Table, "audit_start lock schema schema schema stage check publish publish publish schema audit_finish cleanup cleanup cleanup cleanup", []string{
			"ALTER VIEW `analytics`.`events` RENAME TO `analytics`.`events__idemc_old`",
			"ALTER TABLE `analytics`.`events__idemc_new` RENAME TO `analytics`.`events`"}},
		{"spark", plan.View, "schema schema schema audit_start lock stage check publish publish schema audit_finish cleanup cleanup cleanup", []string{
			"ALTER TABLE `analytics`.`events` RENAME TO `analytics`.`events__idemc_old`",
			"ALTER VIEW `analytics`.`events__idemc_new` RENAME TO `analytics`.`events`"}},
		{"spark", plan.Incremental, "audit_start lock schema schema schema schema stage validate check publish publish insert cleanup cleanup publish publish schema audit_finish cleanup cleanup cleanup cleanup", nil},
	} {
		ad, _ := adapters.Lookup(c.engine)
		r := &run{d: ad.Dialect, ad: ad}
		w := kindWrite(c.to)
		fromView := c.to != plan.View
		w.Schema = &plan.SchemaChange{Kind: &plan.KindSwap{FromView: fromView}}
		steps := sqlgen.Recipe(r.d, w)
		if got := purposes(steps); got != c.shape {
			t.Errorf("%s → %s:\n got %s\nwant %s", c.engine, c.to, got, c.shape)
		}
		var swap []string
		for _, s := range steps {
			if s.Purpose == plan.Publish && strings.Contains(s.SQL, "RENAME TO") || strings.HasPrefix(s.SQL, "CREATE VIEW") || s.SQL == "DROP VIEW IF EXISTS `analytics`.`events`" {
				swap = append(swap, s.SQL)
			}
		}
		if c.swap != nil && strings.Join(swap, "\n;\n") != strings.Join(c.swap, "\n;\n") {
			t.Errorf("%s → %s: the swap is\n%s\nwant\n%s", c.engine, c.to, strings.Join(swap, "\n;\n"), strings.Join(c.swap, "\n;\n"))
		}
	}
}
