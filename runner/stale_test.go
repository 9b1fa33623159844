package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/idemc/idemc/plan"
)

// TestStaleStagesDropped: Spark's stages are Delta tables that a killed
// run leaves behind (they used to stay forever); the next run drops those
// of dead runs and keeps a live run's and its own.
func TestStaleStagesDropped(t *testing.T) {
	eng := &beatEngine{running: [][]string{{"20260630T000000.000Z-dead0000"}, {"20260630T000000.000Z-live0000"}}}
	r := beatRun(t, eng)
	st := r.d.(interface{ RunTag(string) string })
	stage := func(run string) string { return "events__idemc_stage_x_20260702_" + st.RunTag(run) }
	dead, live, own := stage("20260630T000000.000Z-dead0000"), stage("20260630T000000.000Z-live0000"), stage(r.res.RunID)
	// A model whose own name holds "__idemc_": its dead stage is found
	// past the first one (it used to stay forever).
	oddDead := "raw__idemc_import__idemc_stage_x_20260702_" + st.RunTag("20260630T000000.000Z-dead0000")
	r.tables = []plan.Relation{{Schema: "analytics", Name: "events"}, {Schema: "analytics", Name: "raw__idemc_import"}, {Schema: "analytics", Name: "raw"}}
	r.db = &dbState{relations: map[plan.Relation]bool{}}
	// An HTTP landing table of the dead run and one of the live run (on
	// every engine, not only Spark's).
	landDead, landLive := "events__idemc_http_"+st.RunTag("20260630T000000.000Z-dead0000"), "events__idemc_http_"+st.RunTag("20260630T000000.000Z-live0000")
	for _, n := range []string{"events", dead, live, own, landDead, landLive, "other__idemc_stage_x_20260702_" + st.RunTag("x"), oddDead} {
		r.db.relations[plan.Relation{Schema: "analytics", Name: n}] = true
	}
	// The live run beats from another host; the dead one has no beat.
	eng.beats = nil
	eng.beatsFor = map[string][][]string{"20260630T000000.000Z-live0000": {{"elsewhere", "1"}}}
	if err := r.dropStaleStages(context.Background(), &beatSession{e: eng}); err != nil {
		t.Fatal(err)
	}
	if eng.sent("DROP TABLE IF EXISTS `analytics`.`"+dead+"`") != 1 {
		t.Errorf("the dead run's stage was not dropped:\n%s", strings.Join(eng.log, "\n"))
	}
	if eng.sent("DROP TABLE IF EXISTS `analytics`.`"+landDead+"`") != 1 {
		t.Errorf("the dead run's landing table was not dropped:\n%s", strings.Join(eng.log, "\n"))
	}
	if eng.sent("DROP TABLE IF EXISTS `analytics`.`"+oddDead+"`") != 1 {
		t.Errorf("the dead run's stage of raw__idemc_import was not dropped:\n%s", strings.Join(eng.log, "\n"))
	}
	if n := eng.sent("DROP TABLE"); n != 3 {
		t.Errorf("%d drops, want only the dead run's stages and landing table:\n%s", n, strings.Join(eng.log, "\n"))
	}
}
