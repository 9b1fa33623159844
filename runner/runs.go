package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

// runOptions are the planning options a run records in idemc_runs, so that
// idemc retry can make the same plan again.
type runOptions struct {
	Command     string         `json:"command"`
	Select      []string       `json:"select,omitempty"`
	Exclude     []string       `json:"exclude,omitempty"`
	Partition   string         `json:"partition,omitempty"`
	Start       string         `json:"start,omitempty"`
	End         string         `json:"end,omitempty"`
	FullRefresh bool           `json:"full_refresh,omitempty"`
	Vars        map[string]any `json:"vars,omitempty"`
	Seeds       bool           `json:"seeds"`
	Models      bool           `json:"models"`
	Tests       bool           `json:"tests"`
}

// prepareState creates the state tables once (a run that finds them writes
// nothing before it knows there is work) and adds the audit columns an
// earlier release did not have.
func (r *run) prepareState(ctx context.Context, sess adapters.Session) error {
	cols, haveAudit, err := sess.Relation(ctx, r.state.Audit)
	have := haveAudit
	if err == nil && have {
		var present bool
		present, err = latestPresent(ctx, sess, r.d, r.state)
		r.latestMissing = !present // filled from the audit table, not created empty
	}
	if err == nil && have {
		_, have, err = sess.Relation(ctx, r.state.Marks)
	}
	if err == nil && have {
		_, have, err = sess.Relation(ctx, r.state.Runs)
	}
	if err != nil {
		return fmt.Errorf("runner: reading the audit table: %w", err)
	}
	if !have {
		for _, q := range r.d.StateDDL(r.state) {
			if r.latestMissing && slices.Contains(sqlgen.LatestDDLOf(r.d, r.state), q) {
				continue
			}
			if err := execIdempotent(ctx, r.eng, sess, &plan.Step{SQL: q}); err != nil {
				return fmt.Errorf("runner: creating the audit table: %w", err)
			}
		}
	}
	if haveAudit {
		for _, q := range r.d.AuditMigrations(r.state, cols) {
			if _, err := adapters.ExecSQL(ctx, sess, q); err != nil {
				return fmt.Errorf("runner: adding columns to the audit table: %w", err)
			}
		}
	}
	return nil
}

// execIdempotent runs an idempotent DDL statement (CREATE … IF NOT EXISTS)
// and tolerates a concurrent creator: PostgreSQL's IF NOT EXISTS reads the
// catalog before writing it, so two sessions creating one schema, table,
// type or index at once can fail a catalog unique index (23505 on
// pg_namespace, pg_type, pg_class); run again, the statement finds the
// object and does nothing. Only errors the engine classifies as such a race
// (adapters.DDLRacer) are tried again, a few times; any other fails at once.
// The waits grow from 30 ms, or from the first wait of an engine that
// declares a RetryBackoff (Spark: its racer is another session's whole
// CREATE, seconds on a busy server).
func execIdempotent(ctx context.Context, e adapters.Engine, sess adapters.Session, s *plan.Step) error {
	racer, _ := e.(adapters.DDLRacer)
	step := 30 * time.Millisecond
	if first := firstWait(e); first > 0 {
		step = first
	}
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if _, err = sess.Exec(ctx, s); err == nil || ctx.Err() != nil || racer == nil || !racer.LostDDLRace(err) {
			return err
		}
		if attempt < 4 {
			time.Sleep(time.Duration(attempt) * step)
		}
	}
	return err
}

// startRun records this invocation and its planning options.
func (r *run) startRun(ctx context.Context, sess adapters.Session, pl *plan.Plan, o compiler.Options) error {
	cmd := r.o.Command
	if cmd == "" {
		cmd = "build"
	}
	opts := r.recorded
	if opts == nil {
		opts = &runOptions{Command: cmd, Select: o.Select, Exclude: o.Exclude, Partition: o.Partition, Start: o.Start, End: o.End,
			FullRefresh: o.FullRefresh, Vars: o.Vars, Seeds: o.Seeds, Models: o.Models, Tests: r.o.Tests}
	}
	b, err := json.Marshal(struct {
		*runOptions
		provenance
	}{opts, provenance{Argv: r.o.Argv, GitDirty: gitDirty(r.p.Root), ProjectHash: projectHash(r.p)}})
	if err != nil {
		return err
	}
	r.runRow = &plan.RunRow{RunID: r.res.RunID, Command: cmd, Options: string(b), Target: pl.Target, AsOf: pl.AsOf,
		GitCommit: o.GitCommit, Started: r.res.Started, RetryOf: r.res.RetryOf}
	if _, err := adapters.ExecSQL(ctx, sess, sqlgen.RunStart(r.d, r.state, r.runRow)); err != nil {
		return fmt.Errorf("runner: recording the run in idemc_runs: %w", err)
	}
	// Only a run with work: an up-to-date build writes nothing.
	if err := r.fillLatest(ctx, sess); err != nil {
		return err
	}
	if q := r.d.AuditIndex(r.state); q != "" {
		if err := execIdempotent(ctx, r.eng, sess, &plan.Step{SQL: q}); err != nil {
			return fmt.Errorf("runner: indexing the audit table: %w", err)
		}
	}
	return nil
}

// finishRun records the run's outcome; it runs even when ctx was cancelled.
func (r *run) finishRun(ctx context.Context, outcome string) {
	if r.runRow == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	sess, err := r.eng.Session(ctx)
	if err != nil {
		return
	}
	defer sess.Close()
	row := *r.runRow
	row.Ended, row.Outcome = time.Now().UTC(), outcome
	row.Succeeded, row.Failed, row.Skipped = r.res.Succeeded, r.res.Failed, r.res.Skipped
	_, _ = adapters.ExecSQL(ctx, sess, sqlgen.RunFinish(r.d, r.state, &row))
}

// retryPlan makes the plan options of the most recent run again: its
// selection, window, flags and logical time, with every unit it finished
// counted as done.
func (r *run) retryPlan(ctx context.Context, sess adapters.Session, o *compiler.Options) error {
	_, rows, err := sess.Query(ctx, sqlgen.LastRunQuery(r.d, r.state), 0)
	if err != nil {
		return fmt.Errorf("runner: reading the last run: %w", err)
	}
	if len(rows) == 0 {
		o.Units = []string{} // nothing recorded: an empty plan
		return nil
	}
	row := rows[0]
	var ro runOptions
	if err := json.Unmarshal([]byte(row[2]), &ro); err != nil {
		return fmt.Errorf("runner: run %s recorded unreadable options: %w", row[0], err)
	}
	root := row[0]
	if r := nullable(row[5]); r != "" {
		root = r
	}
	o.Select, o.Exclude, o.Partition, o.Start, o.End = ro.Select, ro.Exclude, ro.Partition, ro.Start, ro.End
	o.FullRefresh, o.Vars, o.Seeds, o.Models = ro.FullRefresh, ro.Vars, ro.Seeds, ro.Models
	o.Units = nil
	if t := parseTime(row[3]); !t.IsZero() {
		o.AsOf = t
	}
	o.ResumeFrom = root
	r.o.Tests = ro.Tests
	r.res.RetryOf = root
	r.recorded = &ro
	return nil
}
