package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// stateServer is a fake warehouse for planning: it answers the bulk state
// queries of readState from its rows, and every other statement as
// fakeSession does.
type stateServer struct {
	fakeServer
	d         adapters.Dialect
	st        plan.State
	relations [][]string // (schema, name, table_type) of the relations that exist
	latest    [][]string // StatusQuery rows
}

type stateEngine struct {
	adapters.Engine
	srv *stateServer
}

func (e *stateEngine) Session(context.Context) (adapters.Session, error) {
	return &stateSession{fakeSession{srv: &e.srv.fakeServer}, e.srv}, nil
}

type stateSession struct {
	fakeSession
	srv *stateServer
}

func (s *stateSession) Query(ctx context.Context, q string, limit int) ([]string, [][]string, error) {
	switch q {
	case s.srv.d.RelationsQuery():
		return []string{"schema", "name", "table_type"}, s.srv.relations, nil
	case sqlgen.StatusQuery(s.srv.d, s.srv.st):
		return []string{"job_name"}, s.srv.latest, nil
	}
	return s.fakeSession.Query(ctx, q, limit)
}

func (s *stateSession) Relation(_ context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	if r.Name == "daily" && slices.ContainsFunc(s.srv.relations, func(row []string) bool { return row[1] == "daily" }) {
		return batchColumns(), true, nil
	}
	return nil, false, nil
}

// plannerProject is one daily model reading a view, on PostgreSQL.
func plannerProject(t *testing.T) *project.Project {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"project.toml":   "name = \"p\"\ndefault_target = \"pg\"\n[targets.pg]\nengine = \"postgres\"\ndsn = \"postgres://u@127.0.0.1:1/db\"\nschema = \"s\"\n",
		"models/src.sql": "/* idemc\nmaterialized = \"view\"\n*/\nSELECT DATE '2026-07-01' AS d, 1 AS k, 2 AS n",
		"models/daily.sql": "/* idemc\nmaterialized = \"incremental\"\nstrategy = \"delete_insert\"\npartition_by = \"d\"\n" +
			"granularity = \"day\"\nstart = \"2026-07-01\"\n*/\nSELECT d, k, n FROM {{ ref(\"src\") }}",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanFromState: which units a build runs, given what the audit table
// and the catalog say (DESIGN §9), through the runner's own state reading.
func TestPlanFromState(t *testing.T) {
	p := plannerProject(t)
	opts := compiler.Options{Models: true, Select: []string{"daily"},
		AsOf: time.Date(2026, 7, 4, 0, 0, 0, 0, time.UTC)}
	prep, err := compiler.Prepare(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := prep.Plan(opts)
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{} // partition -> the inputs a run would record now
	for _, u := range pre.Units {
		inputs[u.Partition] = u.Inputs
	}
	if len(inputs) != 3 {
		t.Fatalf("%d units planned without state, want 3 days", len(inputs))
	}
	row := func(day, status, in string) []string {
		return []string{"daily", day, status, "1", "1", "2026-07-05 00:00:00", "2026-07-05 00:00:01", "20260705T000000.000Z-00000001",
			"h", "NULL", in, "20260705T000000.000Z-00000001", "2026-07-05 00:00:00"}
	}
	done := func(days ...string) [][]string {
		var rows [][]string
		for _, d := range days {
			rows = append(rows, row(d, "succeeded", inputs[d]))
		}
		return rows
	}
	exists := [][]string{{"s", "daily", "BASE TABLE"}, {"s", "src", "BASE TABLE"}}
	cases := []struct {
		name      string
		relations [][]string
		latest    [][]string
		want      []string // partitions that run
	}{
		{"nothing recorded", exists, nil, []string{"2026-07-01", "2026-07-02", "2026-07-03"}},
		{"all succeeded with today's inputs", exists, done("2026-07-01", "2026-07-02", "2026-07-03"), nil},
		{"one failed", exists, append(done("2026-07-01", "2026-07-03"), row("2026-07-02", "failed", inputs["2026-07-02"])), []string{"2026-07-02"}},
		{"one abandoned", exists, append(done("2026-07-01", "2026-07-02"), row("2026-07-03", "abandoned", inputs["2026-07-03"])), []string{"2026-07-03"}},
		{"one written with other inputs", exists, append(done("2026-07-01", "2026-07-02"), row("2026-07-03", "succeeded", "other")), []string{"2026-07-03"}},
		{"one never recorded", exists, done("2026-07-01", "2026-07-03"), []string{"2026-07-02"}},
		{"the table was dropped outside idemc", [][]string{{"s", "src", "BASE TABLE"}}, done("2026-07-01", "2026-07-02", "2026-07-03"),
			[]string{"2026-07-01", "2026-07-02", "2026-07-03"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ad, _ := adapters.Lookup("postgres")
			srv := &stateServer{fakeServer: fakeServer{held: map[string]int{}}, d: ad.Dialect, st: plan.StateIn("s"), relations: c.relations, latest: c.latest}
			res, err := buildOn(context.Background(), p, Options{Compile: opts, Threads: 1}, prep, pre, &stateEngine{srv: srv}, ad, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, u := range res.Units {
				if u.Status != "succeeded" {
					t.Errorf("%s %s: %s", u.ID, u.Status, u.Error)
				}
				ran = append(ran, u.Partition)
			}
			slices.Sort(ran)
			if !slices.Equal(ran, c.want) {
				t.Errorf("ran %v, want %v (up to date: %v)", ran, c.want, res.UpToDateUnits)
			}
			if n := len(c.want); n > 0 && !slices.ContainsFunc(srv.log, func(q string) bool { return strings.Contains(q, "idemc_runs") }) {
				t.Errorf("a run with %d units recorded no idemc_runs row", n)
			}
			if len(c.want) == 0 && len(srv.log) > 0 && slices.ContainsFunc(srv.log, isWrite) {
				t.Errorf("an up-to-date build wrote: %s", firstLine(srv.log[slices.IndexFunc(srv.log, isWrite)]))
			}
		})
	}
}

// isWrite reports whether a statement writes data (not a state table's
// idempotent CREATE).
func isWrite(q string) bool {
	for _, p := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "DROP"} {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}
