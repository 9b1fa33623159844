package runner_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// The "interrupting" engine is DuckDB behind a scripted session: the
// statement that matches stop.match is the one in flight when the user
// presses Ctrl-C. It cancels the build's context and then blocks until the
// cancellation reaches it, as a driver aborting a running query does. With
// stop.breaks set, the session is dead afterwards ("bad connection"), as
// database/sql connections of pgx and go-sql-driver/mysql are once a
// query was cancelled, so the runner must record the unit on a fresh one.
var stop struct {
	sync.Mutex
	match  string
	cancel context.CancelFunc
	breaks bool
}

func init() {
	duck, ok := adapters.Lookup("duckdb")
	if !ok {
		panic("duckdb is not registered")
	}
	adapters.Register(&adapters.Adapter{
		Name: "interrupting", Dialect: duck.Dialect, Capabilities: duck.Capabilities, Settings: duck.Settings,
		Client: adapters.Client{Open: func(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
			e, err := duck.Open(ctx, settings)
			if err != nil {
				return nil, err
			}
			return &interruptingEngine{Engine: e}, nil
		}},
	})
}

type interruptingEngine struct{ adapters.Engine }

func (e *interruptingEngine) Session(ctx context.Context) (adapters.Session, error) {
	s, err := e.Engine.Session(ctx)
	if err != nil {
		return nil, err
	}
	return &interruptingSession{Session: s}, nil
}

type interruptingSession struct {
	adapters.Session
	dead bool
}

var errBadConn = errors.New("driver: bad connection")

func (s *interruptingSession) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	if s.dead {
		return plan.Result{}, errBadConn
	}
	stop.Lock()
	hit := stop.match != "" && strings.Contains(st.SQL, stop.match)
	cancel, breaks := stop.cancel, stop.breaks
	if hit {
		stop.match = "" // one interrupt
	}
	stop.Unlock()
	if !hit {
		return s.Session.Exec(ctx, st)
	}
	cancel()
	<-ctx.Done()
	s.dead = breaks
	return plan.Result{}, ctx.Err()
}

func (s *interruptingSession) Query(ctx context.Context, q string, limit int) ([]string, [][]string, error) {
	if s.dead {
		return nil, nil, errBadConn
	}
	return s.Session.Query(ctx, q, limit)
}

// interruptFiles: a and b, slow reading both, 20 partitions of daily
// reading slow. With one thread, slow runs third and daily never starts.
func interruptFiles(engine string) map[string]string {
	return map[string]string{
		"project.toml": `name = "interrupt"
default_target = "local"
[targets.local]
engine = "` + engine + `"
path = "target/w.duckdb"
schema = "main"
`,
		"models/a.sql":    "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x",
		"models/b.sql":    "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 2 AS x",
		"models/slow.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT x FROM {{ ref(\"a\") }} UNION ALL SELECT x FROM {{ ref(\"b\") }}",
		"models/daily.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT d, x FROM (SELECT DATE '2026-07-01' + CAST(x AS INTEGER) AS d, x FROM {{ ref("slow") }}) AS s
WHERE d >= {{ start }} AND d < {{ end }}`,
	}
}

// TestInterruptMidWalk: Ctrl-C while slow's rebuild runs. The run is
// interrupted, not failed: a and b stay succeeded, slow is rolled back and
// its audit row is abandoned with an "interrupted" error (never left
// running, never succeeded), the 20 partitions are counted as not started
// and not listed, run_results.json says interrupted, and a plain rerun
// finishes the rest.
func TestInterruptMidWalk(t *testing.T) {
	for _, breaks := range []bool{false, true} {
		name := "connection_survives"
		if breaks {
			name = "connection_dies"
		}
		t.Run(name, func(t *testing.T) { interruptMidWalk(t, breaks) })
	}
}

func interruptMidWalk(t *testing.T, breaks bool) {
	dir := testtree.Write(t, interruptFiles("interrupting"))
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 7, 21, 0, 0, 0, 0, time.UTC)
	opts := compiler.Options{AsOf: asOf, Models: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop.Lock()
	stop.match, stop.cancel, stop.breaks = `CREATE OR REPLACE TABLE "main"."slow"`, cancel, breaks
	stop.Unlock()
	var out bytes.Buffer
	res, err := runner.Build(ctx, p, runner.Options{Compile: opts, Threads: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted() || res.OK() || res.Outcome != runner.OutcomeInterrupted {
		t.Fatalf("outcome %q, OK %v:\n%s", res.Outcome, res.OK(), out.String())
	}
	if res.Succeeded != 2 || res.RolledBack != 1 || res.NotStarted != 20 || res.Failed != 0 || res.Skipped != 0 {
		t.Fatalf("counts: %d succeeded, %d rolled back, %d not started, %d failed, %d skipped",
			res.Succeeded, res.RolledBack, res.NotStarted, res.Failed, res.Skipped)
	}
	for _, u := range res.Units {
		if u.ID == "slow" && (u.Status != runner.StatusInterrupted || !strings.HasPrefix(u.Error, "interrupted")) {
			t.Fatalf("slow: %s %q", u.Status, u.Error)
		}
	}
	text := out.String()
	want := `interrupted: 2 succeeded, 1 rolled back, 20 not started — run "idemc retry" to finish`
	if !strings.Contains(text, want) {
		t.Errorf("summary missing %q:\n%s", want, text)
	}
	for _, bad := range []string{"skipped", "Fix the cause", "context canceled", "not_started", "daily"} {
		if strings.Contains(text, bad) {
			t.Errorf("output says %q:\n%s", bad, text)
		}
	}
	lines := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "[") {
			lines++
		}
	}
	if lines != 3 {
		t.Errorf("%d unit lines, want one each for a, b and slow:\n%s", lines, text)
	}
	audit := auditRows(t, filepath.Join(dir, "target", "w.duckdb"))
	if want := "a:succeeded b:succeeded slow:abandoned:interrupted"; audit != want {
		t.Errorf("audit %q, want %q", audit, want)
	}
	var saved struct {
		Outcome    string `json:"outcome"`
		RolledBack int    `json:"rolled_back"`
		NotStarted int    `json:"not_started"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "target", "run_results.json"))
	if err == nil {
		err = json.Unmarshal(b, &saved)
	}
	if err != nil || saved.Outcome != "interrupted" || saved.RolledBack != 1 || saved.NotStarted != 20 {
		t.Errorf("run_results.json: %+v %v", saved, err)
	}
	// A plain rerun completes the run: slow and every partition.
	again := build(t, dir, opts, 1)
	if again.Succeeded != 21 || again.UpToDate != 2 {
		t.Fatalf("rerun: %d succeeded, %d up to date", again.Succeeded, again.UpToDate)
	}
}

// auditRows lists job:status[:interrupted] for every audit row, in order.
func auditRows(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT job_name, status, coalesce(error, '') LIKE 'interrupted%' FROM main.idemc_audit ORDER BY job_name, partition_key, attempt`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var job, status string
		var intr bool
		if err := rows.Scan(&job, &status, &intr); err != nil {
			t.Fatal(err)
		}
		s := job + ":" + status
		if intr {
			s += ":interrupted"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}
