package sqlgen

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/plan"
)

// Staged are the parts of the shapes that build a batch in a real staging
// table (verify-then-publish on Spark and for BigQuery's insert_overwrite,
// the key writes of BigQuery's script): the table, the statement that
// fills it and the publish of a verified stage.
type Staged struct {
	// Relation names the unit's staging table: a real table beside the
	// destination, so that two runs or two units never share one.
	Relation func(w *plan.Write) plan.Relation
	// Create fills stage (its SQL name) with batch, the batch's query.
	Create func(w *plan.Write, stage, batch string) plan.Step
	// Publish writes the checked stage to the destination
	// (verify-then-publish only).
	Publish func(w *plan.Write, stage string) []plan.Step
	// Noun is what the checks' comments call the staged rows ("batch",
	// "partition").
	Noun string
}

// verifyThenPublish is the verify-then-publish shape: prepare, audit
// start, the batch staged in a real table, its validation and every check
// on the stage, the engine's publish, audit finish (counting the stage),
// the stage dropped.
func (g Gen) verifyThenPublish(h Hooks, w *plan.Write) []plan.Step {
	st := h.Staged
	stageRel := st.Relation(w)
	stage := g.Qualify(stageRel)
	sw := *w
	sw.Target = stageRel
	var steps []plan.Step
	if w.Materialized == plan.Incremental {
		steps = append(steps, h.Prepare(w))
	}
	steps = append(steps, g.AuditStartStep(w))
	batch := w.Select
	if w.Materialized == plan.Incremental {
		batch = g.Guarded(w)
	}
	steps = append(steps, st.Create(w, stage, batch))
	partition := w.Materialized == plan.Incremental && partitionWrite(w)
	if partition {
		pn := PartitionNullCheck(w.PartitionBy)
		steps = append(steps, plan.Step{Purpose: plan.Validate, Comment: "a NULL " + w.PartitionBy + " would land in no partition", SQL: g.CheckQuery(pn, &sw, false), Check: pn})
	}
	if w.Materialized == plan.Incremental && len(w.UniqueKey) > 0 && !partition {
		bk := BatchKeyCheck(w.UniqueKey)
		steps = append(steps, plan.Step{Purpose: plan.Validate, Comment: "refuse a batch that repeats a key before writing anything", SQL: g.CheckQueryOn(bk, w, false, stage), Check: bk})
	}
	for _, c := range w.Checks {
		steps = append(steps, plan.Step{Purpose: plan.CheckStep, Comment: fmt.Sprintf("check %s (%s) on the staged %s, before publishing", c.Name, c.Severity, st.Noun), SQL: g.StageCheck(c, &sw), Check: c})
	}
	steps = append(steps, st.Publish(w, stage)...)
	steps = append(steps, g.AuditFinishStep(w, "SELECT count(*) FROM "+stage))
	return append(steps, plan.Step{Purpose: plan.Cleanup, Comment: "drop the staging table", SQL: "DROP TABLE IF EXISTS " + stage})
}

// StageCheck renders a declared check over the staged batch (sw is the
// write with the stage as its target): the region a partition write
// publishes is exactly the batch; for key writes the batch stands for the
// keys it will write.
func (g Gen) StageCheck(c *plan.Check, sw *plan.Write) string {
	onStage := *sw
	if onStage.Window == nil || onStage.PartitionBy == "" {
		// The whole staging table is the batch.
		onStage.Materialized = plan.Table
		onStage.UniqueKey = nil
	}
	return g.CheckQueryOn(c, &onStage, false, g.Qualify(sw.Target))
}

// script is the one-script shape (BigQuery): prepare and, for a key
// write, its batch staged in a real table and validated (DDL and queries
// outside the script); then BEGIN, the write, the error checks as ASSERTs,
// the state and audit rows, COMMIT, every step between BEGIN and COMMIT
// marked Deferred (the Session buffers them into one script job, whose
// ASSERTs are judged when it commits); the warn checks run after COMMIT on
// the committed region.
func (g Gen) script(h Hooks, w *plan.Write) []plan.Step {
	dest := g.Qualify(w.Target)
	steps := []plan.Step{h.Prepare(w), g.AuditStartStep(w)}
	add := func(p plan.Purpose, comment, sql string) {
		steps = append(steps, plan.Step{Purpose: p, Comment: comment, SQL: sql})
	}
	begin := func() { add(plan.Begin, h.BeginNote, h.Begin) }
	partition := w.Window != nil && w.PartitionBy != "" && w.Strategy != "merge"
	staged := w.Materialized == plan.Incremental && !partition
	stage, count := "", ""
	switch {
	case w.Materialized == plan.Table:
		begin()
		add(plan.Delete, "rebuild: empty the table inside the transaction (keeps its options and grants)", h.EmptyTable(dest))
		add(plan.Insert, "rebuild the rows", g.InsertByName(w))
		count = "SELECT count(*) FROM " + dest
	case partition:
		begin()
		steps = append(steps, g.partitionSteps(w)...)
		steps = append(steps, g.Assert(PartitionNullCheck(w.PartitionBy), w, ""))
		count = fmt.Sprintf("SELECT count(*) FROM %s AS t WHERE %s", dest, g.Window(w, "t"))
	default:
		// A real table, not a TEMP TABLE of the script: the warn checks
		// after COMMIT still need the batch's keys.
		stage = g.Qualify(h.Staged.Relation(w))
		steps = append(steps, h.Staged.Create(w, stage, g.Guarded(w)))
		if len(w.UniqueKey) > 0 {
			bk := BatchKeyCheck(w.UniqueKey)
			steps = append(steps, plan.Step{Purpose: plan.Validate, Comment: "refuse a batch that repeats a key before writing anything", SQL: g.CheckQueryOn(bk, w, false, stage), Check: bk})
		}
		begin()
		steps = append(steps, g.writeSteps(h, w, stage)...)
		count = "SELECT count(*) FROM " + stage
	}
	var warn []plan.Step
	for _, c := range w.Checks {
		if c.Severity == "warn" {
			warn = append(warn, plan.Step{Purpose: plan.CheckStep, Comment: fmt.Sprintf("check %s (warn), on the committed region", c.Name), SQL: g.CheckQueryOn(c, w, false, stage), Check: c})
			continue
		}
		steps = append(steps, g.Assert(c, w, stage))
	}
	if staged {
		steps = append(steps, g.StateSteps(w, stage)...)
	}
	fin := g.AuditFinishStep(w, "")
	fin.Comment = "record success, in the script transaction"
	if g.S.AuditAppendOnly {
		// The final row is inserted with its count, evaluated in the
		// script: no UPDATE of the shared audit table.
		fin.SQL = strings.Replace(fin.SQL, plan.Token(plan.SlotRows), "("+count+")", 1)
		fin.Comment = "record success and the row count, counted inside the script transaction"
	}
	steps = append(steps, fin)
	if !g.S.AuditAppendOnly {
		add(plan.StateStep, "the audit row's row_count, counted inside the script transaction", g.auditCount(w, count))
	}
	add(plan.Commit, h.CommitNote, h.Commit)
	steps = deferScript(steps)
	steps = append(steps, warn...)
	if stage != "" {
		add(plan.Cleanup, "drop the staging table", "DROP TABLE IF EXISTS "+stage)
	}
	return steps
}

// deferScript marks the steps between BEGIN and COMMIT Deferred: buffered
// into the script, their ASSERTs judged when it commits.
func deferScript(steps []plan.Step) []plan.Step {
	in := false
	for i := range steps {
		switch steps[i].Purpose {
		case plan.Begin:
			in = true
		case plan.Commit:
			in = false
		default:
			steps[i].Deferred = in
		}
	}
	return steps
}

// AssertMessage is the message of a check's ASSERT, by which an engine
// tells which check stopped a failed script.
func AssertMessage(c *plan.Check) string { return "idemc check " + c.Name }

// Assert renders a check as an ASSERT of a script: it fails (and rolls the
// script back) when the check's query, over the batch in stage ("" for
// none), returns a row. Declared checks keep the check purpose; implicit
// batch checks are validate steps.
func (g Gen) Assert(c *plan.Check, w *plan.Write, stage string) plan.Step {
	p := plan.CheckStep
	if c.Kind == plan.CheckBatchKeys || c.Kind == plan.CheckPartitionNull {
		p = plan.Validate
	}
	return plan.Step{Purpose: p, Comment: fmt.Sprintf("check %s (%s) as an ASSERT inside the script: a failure rolls it back", c.Name, c.Severity), Check: c,
		SQL: fmt.Sprintf("ASSERT NOT EXISTS (\n%s\n) AS %s", g.CheckQueryOn(c, w, false, stage), g.String(AssertMessage(c)))}
}

// InsertByName inserts the model's rows by column name when the columns
// are known, so that a reordered SELECT, or a table whose columns the
// runner synced to the model's (TableInPlace: new ones appended at the
// end), still gets each value in its column.
func (g Gen) InsertByName(w *plan.Write) string {
	dest := g.Qualify(w.Target)
	if w.Columns == nil {
		return fmt.Sprintf("INSERT INTO %s\n%s", dest, w.Select)
	}
	cols := g.ColumnList(w.Columns, "")
	return fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM (\n%s\n) AS idemc_batch", dest, cols, cols, w.Select)
}

// auditCount sets the unit's row_count from a count evaluated in the
// script (the audit_finish step's count slot is filled outside it).
func (g Gen) auditCount(w *plan.Write, count string) string {
	r := auditOf(w, "")
	return fmt.Sprintf("UPDATE %s SET row_count = (%s)\nWHERE run_id = %s AND job_name = %s AND partition_key = %s",
		g.Qualify(w.State.Audit), count, g.String(r.RunID), g.String(r.Job), g.String(r.Partition))
}
