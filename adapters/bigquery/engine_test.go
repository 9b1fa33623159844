package bigquery

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/bigquery/dialect"
	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/plan"
)

// runUnit executes a recipe on one session the way the runner does
// (runner/unit.go): validate and check steps are queries whose rows are
// failures; an error after BEGIN sends the dialect's ROLLBACK; cleanups run
// after a failure too.
func runUnit(t *testing.T, s adapters.Session, steps []plan.Step) error {
	t.Helper()
	ctx := context.Background()
	inTx := false
	fail := func(err error) error {
		if inTx {
			_, _ = s.Exec(ctx, &plan.Step{Purpose: plan.Rollback, SQL: dialect.NewDialect().Rollback()})
		}
		for _, st := range steps {
			if st.Purpose == plan.Cleanup {
				_, _ = s.Exec(ctx, &st)
			}
		}
		return err
	}
	for _, st := range steps {
		switch st.Purpose {
		case plan.Validate, plan.CheckStep:
			res, err := s.Exec(ctx, &st)
			rows := res.Rows
			if err != nil {
				return fail(err)
			}
			if len(rows) > 0 && st.Check.Severity != "warn" {
				return fail(fmt.Errorf("check %s failed", st.Check.Name))
			}
			continue
		}
		if _, err := s.Exec(ctx, &st); err != nil {
			if st.Purpose == plan.Cleanup {
				continue
			}
			return fail(err)
		}
		switch st.Purpose {
		case plan.Begin:
			inTx = true
		case plan.Commit:
			inTx = false
		}
	}
	return nil
}

func testState() plan.State {
	return plan.StateIn("analytics")
}

func partitionWrite(strategy string) *plan.Write {
	w := dialecttest.DayWrite(strategy)
	w.Select = "SELECT event_key, event_date, amount FROM `raw`.`events` WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'"
	w.Checks = append(w.Checks, dialecttest.MinRowsWarn())
	w.State = testState()
	w.Audit = &plan.AuditRow{RunID: "20260703T060000.000Z-cafe0001", Job: "events_daily", Partition: "2026-07-02", Attempt: 2, CodeHash: "h1", Target: "bigquery"}
	return w
}

func kinds(jobs []*fakeJob) string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		q := strings.ToUpper(strings.TrimSpace(j.SQL))
		switch {
		case strings.HasPrefix(q, "BEGIN TRANSACTION"):
			out[i] = "SCRIPT"
		case strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS"):
			out[i] = "CREATE"
		case strings.HasPrefix(q, "CREATE OR REPLACE TABLE"):
			out[i] = "STAGE"
		case strings.HasPrefix(q, "INSERT INTO `ANALYTICS`.`IDEMC_AUDIT`") && strings.Contains(q, "'RUNNING'"):
			out[i] = "AUDIT START"
		case strings.HasPrefix(q, "INSERT INTO `ANALYTICS`.`IDEMC_AUDIT`"): // append-only: the final row
			out[i] = "AUDIT FINISH"
		case strings.HasPrefix(q, "UPDATE `ANALYTICS`.`IDEMC_AUDIT`"):
			out[i] = "AUDIT FINISH"
		case strings.HasPrefix(q, "SELECT") && j.Config["destinationTable"] != nil:
			out[i] = "PUBLISH"
		case strings.HasPrefix(q, "SELECT"):
			out[i] = "QUERY"
		case strings.HasPrefix(q, "DROP"):
			out[i] = "DROP"
		case strings.HasPrefix(q, "MERGE INTO `ANALYTICS`.`IDEMC_LOCKS`"):
			out[i] = "CLAIM"
		case strings.HasPrefix(q, "DELETE FROM `ANALYTICS`.`IDEMC_LOCKS`"):
			out[i] = "RELEASE"
		default:
			out[i] = q
		}
	}
	return strings.Join(out, " | ")
}

func TestScriptTransactionIsOneJob(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	s, _ := e.Session(context.Background())
	if err := runUnit(t, s, dialect.NewDialect().Recipe(partitionWrite("delete_insert"))); err != nil {
		t.Fatal(err)
	}
	jobs := f.submitted()
	if got, want := kinds(jobs), "CREATE | AUDIT START | CLAIM | SCRIPT | QUERY | RELEASE"; got != want {
		t.Fatalf("jobs:\n got %s\nwant %s", got, want)
	}
	script := jobs[3]
	// The whole write is one script: BEGIN TRANSACTION; DELETE; INSERT;
	// ASSERTs; the audit's final row, inserted (append-only: an UPDATE of
	// the shared audit table conflicts with other units'); COMMIT.
	var heads []string
	for _, st := range strings.Split(script.SQL, ";\n") {
		w := strings.Fields(st)
		heads = append(heads, strings.Join(w[:min(2, len(w))], " "))
	}
	if got, want := strings.Join(heads, " | "), "BEGIN TRANSACTION | DELETE FROM | INSERT INTO | ASSERT NOT | ASSERT NOT | INSERT INTO | COMMIT TRANSACTION;"; got != want {
		t.Fatalf("script statements:\n got %s\nwant %s\n%s", got, want, script.SQL)
	}
	if !strings.Contains(script.SQL, "AS 'idemc check unique(event_key)'") || !strings.Contains(script.SQL, "AS 'idemc check not_null(event_date)'") {
		t.Errorf("the error checks must be ASSERTs in the script:\n%s", script.SQL)
	}
	if strings.Contains(script.SQL, "min_rows") {
		t.Errorf("a warn check must not fail the script:\n%s", script.SQL)
	}
	wantID := s.(*Session).JobID("script", 1)
	if !strings.HasPrefix(wantID, "idemc_events_daily_2026-07-02_a2_script_") || script.ID != wantID {
		t.Errorf("script job id %q, want the derived %q", script.ID, wantID)
	}
	if script.Location != "EU" {
		t.Errorf("location %q, want EU", script.Location)
	}
	for _, j := range jobs {
		if j.Labels["idemc_run"] != "20260703t060000_000z-cafe0001" || j.Labels["idemc_model"] != "events_daily" ||
			j.Labels["idemc_partition"] != "2026-07-02" || j.Labels["idemc_attempt"] != "2" {
			t.Errorf("job %s labels %v, want the unit's run id, model, partition and attempt", j.ID, j.Labels)
		}
	}
	// The warn check runs after COMMIT, on the committed region.
	if q := jobs[4].SQL; !strings.Contains(q, "WHERE n < 1") {
		t.Errorf("last job should be the warn check: %s", q)
	}
	// The same unit and attempt derive the same id in another session
	// (a resubmission finds the job).
	s2, _ := e.Session(context.Background())
	s2.(*Session).setLabels(map[string]string{"idemc_attempt": "2", "idemc_model": "events_daily", "idemc_partition": "2026-07-02", "idemc_run": "other"})
	if id := s2.(*Session).JobID("script", 1); id != wantID {
		t.Errorf("job id not deterministic: %s vs %s", id, wantID)
	}
}

func TestFailingAssertRollsBackTheScript(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	f.fail = func(sql string) string {
		if strings.HasPrefix(sql, "BEGIN TRANSACTION") {
			return "idemc check unique(event_key) at [9:1]"
		}
		return ""
	}
	s, _ := e.Session(context.Background())
	err := runUnit(t, s, dialect.NewDialect().Recipe(partitionWrite("delete_insert")))
	if err == nil || !strings.Contains(err.Error(), "check unique(event_key) failed") {
		t.Fatalf("want the failing ASSERT to fail the unit with the check's name, got %v", err)
	}
	// Nothing after the failed script: ROLLBACK discards the buffer (the
	// script already rolled back as a whole), and no warn check runs.
	if got, want := kinds(f.submitted()), "CREATE | AUDIT START | CLAIM | SCRIPT | RELEASE"; got != want {
		t.Fatalf("jobs:\n got %s\nwant %s", got, want)
	}
	if s.(*Session).inTx {
		t.Error("the session is still in a transaction after ROLLBACK")
	}
}

func TestInsertOverwriteWritesThePartitionWithWriteTruncate(t *testing.T) {
	for _, tc := range []struct {
		gran, key, decorator string
		start                time.Time
		end                  time.Time
	}{
		{"day", "2026-07-02", "$20260702", time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)},
		{"hour", "2026-07-02T13", "$2026070213", time.Date(2026, 7, 2, 13, 0, 0, 0, time.UTC), time.Date(2026, 7, 2, 14, 0, 0, 0, time.UTC)},
		{"month", "2026-07", "$202607", time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)},
		{"year", "2026", "$2026", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.gran, func(t *testing.T) {
			f := newFakeBigQuery(t)
			e := f.engine(t, "US")
			w := partitionWrite("insert_overwrite")
			w.Window = &plan.Window{Start: tc.start, End: tc.end, Granularity: tc.gran, Key: tc.key}
			w.Audit.Partition = tc.key
			s, _ := e.Session(context.Background())
			if err := runUnit(t, s, dialect.NewDialect().Recipe(w)); err != nil {
				t.Fatal(err)
			}
			jobs := f.submitted()
			if got, want := kinds(jobs), "CREATE | AUDIT START | CLAIM | STAGE | QUERY | QUERY | QUERY | PUBLISH | AUDIT FINISH | DROP | RELEASE"; got != want {
				t.Fatalf("jobs:\n got %s\nwant %s", got, want)
			}
			pub := jobs[7]
			dst, _ := pub.Config["destinationTable"].(map[string]any)
			if dst["projectId"] != "proj" || dst["datasetId"] != "analytics" || dst["tableId"] != "events_daily"+tc.decorator {
				t.Errorf("destination %v, want proj.analytics.events_daily%s", dst, tc.decorator)
			}
			if pub.Config["writeDisposition"] != "WRITE_TRUNCATE" || pub.Config["createDisposition"] != "CREATE_NEVER" {
				t.Errorf("dispositions %v / %v", pub.Config["writeDisposition"], pub.Config["createDisposition"])
			}
			if !strings.Contains(pub.ID, "_publish_") || !strings.Contains(jobs[3].ID, "_stage_") {
				t.Errorf("write jobs need derived ids: stage %q, publish %q", jobs[3].ID, pub.ID)
			}
			stage := dialect.StageRelation(w).Name
			if !strings.HasPrefix(stage, "events_daily__idemc_stage_"+strings.TrimPrefix(tc.decorator, "$")+"_") {
				t.Errorf("staging table %s: want the partition in its name", stage)
			}
			for _, j := range jobs[3:6] {
				if !strings.Contains(j.SQL, "`"+stage+"`") {
					t.Errorf("checks must read the staging table %s: %s", stage, j.SQL)
				}
			}
			if !strings.Contains(jobs[0].SQL, "PARTITION BY") {
				t.Errorf("destination must be partitioned: %s", jobs[0].SQL)
			}
		})
	}
}

func TestInsertOverwriteFailingCheckPublishesNothing(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "US")
	f.rows = func(sql string) ([]string, [][]string) {
		if strings.Contains(sql, "HAVING count(*) > 1") {
			return []string{"event_key", "n"}, [][]string{{"k1", "2"}}
		}
		return []string{"n"}, nil
	}
	s, _ := e.Session(context.Background())
	err := runUnit(t, s, dialect.NewDialect().Recipe(partitionWrite("insert_overwrite")))
	if err == nil || !strings.Contains(err.Error(), "unique(event_key)") {
		t.Fatalf("want the check to fail, got %v", err)
	}
	got := kinds(f.submitted())
	if strings.Contains(got, "PUBLISH") || strings.Contains(got, "AUDIT FINISH") {
		t.Fatalf("a failed check on the stage must publish nothing: %s", got)
	}
	if !strings.HasSuffix(got, "DROP | RELEASE") {
		t.Errorf("the staging table is dropped after a failure: %s", got)
	}
}

func TestResubmissionFindsTheJob(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	s, _ := e.Session(context.Background())
	sess := s.(*Session)
	steps := dialect.NewDialect().Recipe(partitionWrite("delete_insert"))
	// The steps' labels name the unit; derive its script id.
	sess.setLabels(steps[0].Job.Labels)
	id := sess.JobID("script", 1)
	// A job with that id exists already and carries this run's label: an
	// earlier send of this very submission (the answer was lost).
	f.preJob(id, "20260703t060000_000z-cafe0001", "RUNNING")
	if err := runUnit(t, s, steps); err != nil {
		t.Fatal(err)
	}
	for _, j := range f.submitted() {
		if strings.HasPrefix(j.SQL, "BEGIN TRANSACTION") {
			t.Fatalf("the script was submitted again (%s) instead of waiting for the existing job %s", j.ID, id)
		}
	}
}

func TestOtherRunsJobDoesNotStandIn(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	s, _ := e.Session(context.Background())
	sess := s.(*Session)
	steps := dialect.NewDialect().Recipe(partitionWrite("delete_insert"))
	sess.setLabels(steps[0].Job.Labels)
	id := sess.JobID("script", 1)
	// Same unit and attempt, but another run's finished job (an audit table
	// reset, or a concurrent run): this unit must still write, under _r2.
	f.preJob(id, "some-other-run", "")
	if err := runUnit(t, s, steps); err != nil {
		t.Fatal(err)
	}
	var scripts []string
	for _, j := range f.submitted() {
		if strings.HasPrefix(j.SQL, "BEGIN TRANSACTION") {
			scripts = append(scripts, j.ID)
		}
	}
	if len(scripts) != 1 || scripts[0] != id+"_r2" {
		t.Fatalf("want one script submitted as %s_r2, got %v", id, scripts)
	}
}

func TestRetriedTransactionGetsANewJobID(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	tries := 0
	f.fail = func(sql string) string {
		if strings.HasPrefix(sql, "BEGIN TRANSACTION") {
			tries++
			if tries == 1 {
				return "Transaction is aborted due to concurrent update against table proj:analytics.events_daily"
			}
		}
		return ""
	}
	s, _ := e.Session(context.Background())
	steps := dialect.NewDialect().Recipe(partitionWrite("delete_insert"))
	err := runUnit(t, s, steps)
	if err == nil || !e.Retryable(err) {
		t.Fatalf("a concurrent-update abort must be retryable, got %v", err)
	}
	// The runner retries the transaction from BEGIN on the same session.
	begin := 0
	for i, st := range steps {
		if st.Purpose == plan.Begin {
			begin = i
		}
	}
	if err := runUnit(t, s, steps[begin:]); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range f.submitted() {
		if strings.HasPrefix(j.SQL, "BEGIN TRANSACTION") {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) != 2 || ids[1] != ids[0]+"_r2" {
		t.Fatalf("script ids %v: the retry needs a new id", ids)
	}
}

func TestPreviousAttemptStillRunningIsWaitedFor(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	s, _ := e.Session(context.Background())
	sess := s.(*Session)
	sess.setLabels(map[string]string{"idemc_attempt": "1", "idemc_model": "events_daily", "idemc_partition": "2026-07-02", "idemc_run": "dead-run"})
	prev := sess.JobID("script", 1)
	f.preJob(prev, "dead-run", "RUNNING")
	if err := runUnit(t, s, dialect.NewDialect().Recipe(partitionWrite("delete_insert"))); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	still := f.byID[prev].Stmt
	f.mu.Unlock()
	if still != "" {
		t.Fatal("attempt 1's running job was not looked at before attempt 2 was submitted")
	}
}

func TestQueriesInsideTheScriptAreRefused(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "")
	s, _ := e.Session(context.Background())
	ctx := context.Background()
	if _, err := s.Exec(ctx, &plan.Step{Purpose: plan.Begin, SQL: dialect.BeginSQL}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Query(ctx, "SELECT count(*) FROM t", 1); err == nil {
		t.Fatal("a SELECT inside the buffered transaction cannot see its writes and must be refused")
	}
	check := &plan.Check{Name: "min_rows(1)", Kind: plan.CheckMinRows, Severity: "error", MinRows: 1}
	if res, err := s.Exec(ctx, &plan.Step{Purpose: plan.CheckStep, Check: check, Deferred: true, SQL: "ASSERT (SELECT count(*) FROM t) > 0 AS 'x'"}); err != nil || res.Rows != nil {
		t.Fatalf("an ASSERT is buffered: %v %v", res.Rows, err)
	}
	if _, err := s.Exec(ctx, &plan.Step{Purpose: plan.Rollback, SQL: dialect.RollbackSQL}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.submitted()); n != 0 {
		t.Fatalf("a rolled-back buffer sends nothing; %d jobs were sent", n)
	}
}

func TestSessionReadsAndDescribes(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	s, _ := e.Session(context.Background())
	ctx := context.Background()
	f.rows = func(sql string) ([]string, [][]string) {
		return []string{"table_schema", "table_name"}, [][]string{{"analytics", "events_daily"}, {"raw", "NULL"}}
	}
	cols, rows, err := s.Query(ctx, dialect.NewDialect().RelationsQuery(), 0)
	if err != nil || len(rows) != 2 || cols[1] != "table_name" || rows[1][1] != "NULL" {
		t.Fatalf("query: %v %v %v", cols, rows, err)
	}
	if q := f.submitted()[0].SQL; !strings.Contains(q, "FROM `region-eu`.INFORMATION_SCHEMA.TABLES") {
		t.Errorf("relations are read region-wide for a target with a location: %s", q)
	}
	got, err := s.Columns(ctx, dialect.NewDialect().DescribeQuery("SELECT 1 AS event_key"))
	if err != nil || len(got) != 2 || got[0].Name != "event_key" || got[1].Type != "NUMERIC" {
		t.Fatalf("columns: %v %v", got, err)
	}
	if j := f.submitted()[1]; !j.DryRun {
		t.Error("describing a query must be a dry run (no cost)")
	}
	if _, ok, err := s.Relation(ctx, plan.Relation{Schema: "analytics", Name: "missing"}); ok || err != nil {
		t.Fatalf("missing table: ok %v err %v", ok, err)
	}
	f.tables["analytics.events_daily"] = []string{"event_key", "event_date"}
	rc, ok, err := s.Relation(ctx, plan.Relation{Schema: "analytics", Name: "events_daily"})
	if !ok || err != nil || len(rc) != 2 {
		t.Fatalf("table: %v %v %v", rc, ok, err)
	}
	n, err := adapters.ExecSQL(ctx, s, "DELETE FROM `analytics`.`t` AS t WHERE true")
	if err != nil || n != 3 {
		t.Fatalf("DML outside a transaction reports its rows: %d %v", n, err)
	}
}

// TestAsideSwapJobs: a unit that changes columns runs as
// sqlgen.Recipe composes it (adapters/sqlgen/compose.go): the copy is a
// DDL job, the script writes and checks the copy, the swap is its own DDL job with a derived
// id (never inside a script: BigQuery refuses DDL on permanent tables in a
// transaction), and the audit row commits in a second script. A failing
// ASSERT stops the unit before the swap job.
func TestAsideSwapJobs(t *testing.T) {
	d := dialect.NewDialect()
	w := partitionWrite("delete_insert")
	aside := w.Target
	aside.Name += "__idemc_new"
	wa := *w
	wa.Target = aside
	body := d.Recipe(&wa)
	// The runner's steps carry no job: the labels a recipe step set stay
	// on the session (here the copy's, standing for the unit's earlier steps).
	steps := []plan.Step{{Purpose: plan.SchemaStep, SQL: d.CopyTable(aside, w.Target, true)[0], Job: &plan.JobSpec{Labels: body[0].Job.Labels}},
		{Purpose: plan.SchemaStep, SQL: d.AddColumn(aside, plan.Column{Name: "note", Type: "STRING"})}}
	in := false
	for _, s := range body {
		in = in || s.Purpose == plan.Begin
		if in && s.Purpose != plan.AuditFinish && s.Purpose != plan.StateStep {
			steps = append(steps, s)
		}
		if s.Purpose == plan.Commit {
			break
		}
	}
	steps = append(steps, plan.Step{Purpose: plan.Publish, SQL: d.SwapTable(w.Target, aside, aside)},
		plan.Step{Purpose: plan.Begin, SQL: dialect.BeginSQL}, d.AuditFinishStep(w, ""), plan.Step{Purpose: plan.Commit, SQL: dialect.CommitSQL},
		plan.Step{Purpose: plan.Cleanup, SQL: d.DropTable(aside)})
	for _, fail := range []bool{false, true} {
		f := newFakeBigQuery(t)
		if fail {
			f.fail = func(sql string) string {
				if strings.HasPrefix(sql, dialect.BeginSQL) && strings.Contains(sql, "ASSERT") {
					return "idemc check unique(event_key) at [9:1]"
				}
				return ""
			}
		}
		s, _ := f.engine(t, "EU").Session(context.Background())
		err := runUnit(t, s, steps)
		var got []string
		for _, j := range f.submitted() {
			q := j.SQL
			switch {
			case strings.HasPrefix(q, "CREATE OR REPLACE TABLE `analytics`.`events_daily` CLONE"):
				got = append(got, "SWAP")
				if !strings.Contains(j.ID, "_swap_") {
					t.Errorf("the swap job needs a derived id, got %q", j.ID)
				}
			case strings.HasPrefix(q, dialect.BeginSQL):
				if strings.Contains(q, "CLONE") || strings.Contains(q, "ALTER TABLE") {
					t.Errorf("DDL inside a script:\n%s", q)
				}
				got = append(got, "SCRIPT")
			default:
				got = append(got, strings.Join(strings.Fields(q)[:2], " "))
			}
		}
		want := "CREATE OR | ALTER TABLE | SCRIPT | SWAP | SCRIPT | DROP TABLE"
		if fail {
			want = "CREATE OR | ALTER TABLE | SCRIPT | DROP TABLE"
		}
		if strings.Join(got, " | ") != want || (err != nil) != fail {
			t.Errorf("failing check %v: jobs %s (err %v), want %s", fail, strings.Join(got, " | "), err, want)
		}
	}
}

// TestJobSpecComesFromTheStep: a job's labels, kind (its derived id),
// destination and disposition come from Step.Job alone; SQL that looks
// like the old in-band settings (SET @@query_label, a /* idemc: … */
// directive, BEGIN TRANSACTION text) is sent as it is, never read.
func TestJobSpecComesFromTheStep(t *testing.T) {
	f := newFakeBigQuery(t)
	s, _ := f.engine(t, "EU").Session(context.Background())
	ctx := context.Background()
	labels := map[string]string{"idemc_run": "r1", "idemc_model": "m", "idemc_partition": "2026-07-02", "idemc_attempt": "1"}
	dst := plan.Relation{Schema: "analytics", Name: "m$20260702"}
	steps := []*plan.Step{
		{Purpose: plan.Publish, SQL: "SELECT 1 AS x", Job: &plan.JobSpec{Kind: "publish", Destination: &dst, Disposition: "WRITE_TRUNCATE", Labels: labels}},
		{Purpose: plan.Prepare, SQL: "SET @@query_label = 'idemc_model:other,idemc_attempt:9'"},
		{Purpose: plan.Insert, SQL: "/* idemc: job=stage destination=analytics.t write_disposition=WRITE_APPEND */\nINSERT INTO t SELECT 1"},
		{Purpose: plan.Insert, SQL: "BEGIN TRANSACTION"},
	}
	for _, st := range steps {
		if _, err := s.Exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	jobs := f.submitted()
	if len(jobs) != len(steps) {
		t.Fatalf("%d jobs for %d steps (a BEGIN TRANSACTION text opened a script?)", len(jobs), len(steps))
	}
	pub := jobs[0]
	if d, _ := pub.Config["destinationTable"].(map[string]any); d["projectId"] != "proj" || d["datasetId"] != "analytics" || d["tableId"] != "m$20260702" {
		t.Errorf("destination %v, want proj.analytics.m$20260702", d)
	}
	if pub.Config["writeDisposition"] != "WRITE_TRUNCATE" || !strings.HasPrefix(pub.ID, "idemc_m_2026-07-02_a1_publish_") {
		t.Errorf("publish job %s: disposition %v", pub.ID, pub.Config["writeDisposition"])
	}
	for i, j := range jobs {
		if !maps.Equal(j.Labels, labels) {
			t.Errorf("job %d (%s) labels %v, want the step's %v", i, firstWords(j.SQL), j.Labels, labels)
		}
		if i > 0 && (j.Config["destinationTable"] != nil || j.Config["writeDisposition"] != nil || strings.Contains(j.ID, "_stage_")) {
			t.Errorf("job %d (%s) took settings from its text: %s %v", i, firstWords(j.SQL), j.ID, j.Config)
		}
		if j.SQL != steps[i].SQL {
			t.Errorf("job %d sent %q, want the step's SQL unchanged", i, j.SQL)
		}
	}
}

func firstWords(q string) string {
	f := strings.Fields(q)
	return strings.Join(f[:min(3, len(f))], " ")
}

// TestInformationSchemaQualified: every catalog query the Session sends
// names its INFORMATION_SCHEMA's region (a target with a location) or
// dataset (without one), whatever its case; a qualified one is left alone.
func TestInformationSchemaQualified(t *testing.T) {
	cases := []struct{ location, query, want string }{
		{"", dialect.NewDialect().RelationsQuery(), "FROM `proj.analytics`.INFORMATION_SCHEMA.TABLES"},
		{"", "SELECT table_type FROM information_schema.tables WHERE lower(table_name) = 'x'", "FROM `proj.analytics`.information_schema.tables WHERE"},
		{"US", "SELECT schema_name FROM information_schema.schemata", "FROM `region-us`.information_schema.schemata"},
		{"", "SELECT 1 FROM `other.ds`.INFORMATION_SCHEMA.TABLES", "FROM `other.ds`.INFORMATION_SCHEMA.TABLES"},
	}
	for _, c := range cases {
		f := newFakeBigQuery(t)
		s, _ := f.engine(t, c.location).Session(context.Background())
		f.rows = func(string) ([]string, [][]string) { return []string{"x"}, nil }
		if _, _, err := s.Query(context.Background(), c.query, 0); err != nil {
			t.Fatal(err)
		}
		if q := f.submitted()[0].SQL; !strings.Contains(q, c.want) || strings.Count(strings.ToUpper(q), "INFORMATION_SCHEMA") != 1 {
			t.Errorf("location %q: %s\n sent %s\n want %s", c.location, c.query, q, c.want)
		}
	}
}

// TestScriptStatementEndingInComment: a buffered statement whose last line
// is a line comment (a model file ending in one) gets its ";" on the next
// line, so the script keeps the statements after it.
func TestScriptStatementEndingInComment(t *testing.T) {
	f := newFakeBigQuery(t)
	s, _ := f.engine(t, "").Session(context.Background())
	ctx := context.Background()
	steps := []plan.Step{
		{Purpose: plan.Begin, SQL: dialect.BeginSQL},
		{Purpose: plan.Insert, SQL: "INSERT INTO `analytics`.`t` (`a`)\nSELECT 1 AS a -- the model's last line"},
		{Purpose: plan.AuditFinish, SQL: "UPDATE `analytics`.`idemc_audit` SET status = 'succeeded' WHERE TRUE"},
		{Purpose: plan.Commit, SQL: dialect.CommitSQL},
	}
	for i := range steps {
		if _, err := s.Exec(ctx, &steps[i]); err != nil {
			t.Fatal(err)
		}
	}
	script := f.submitted()[0].SQL
	want := "SELECT 1 AS a -- the model's last line\n;\nUPDATE `analytics`.`idemc_audit`"
	if !strings.Contains(script, want) {
		t.Fatalf("the comment swallows the next statement:\n%s", script)
	}
}
