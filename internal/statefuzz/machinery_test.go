package statefuzz

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Tests of the fuzzer itself: they pass whatever state idemc is in.

func TestSequenceIsDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		p1, ops1, th1 := Sequence(seed, 6)
		p2, ops2, th2 := Sequence(seed, 6)
		s := Schemas{Prefix: "fz"}
		if fmt.Sprint(p1.Files(s, "")) != fmt.Sprint(p2.Files(s, "")) || fmt.Sprint(ops1) != fmt.Sprint(ops2) || th1 != th2 {
			t.Fatalf("seed %d: two generations differ", seed)
		}
	}
}

// TestGeneratedProjectsBuild: every generated project builds cleanly from
// scratch (its checks pass on its data), so a difference is idemc's.
func TestGeneratedProjectsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bin := idemcBinary(t)
	e := &Engine{Name: "duckdb"}
	o := &Oracle{Engine: e, Bin: bin, Root: t.TempDir()}
	for seed := uint64(1); seed <= 10; seed++ {
		p, _, _ := Sequence(seed, 0)
		res, err := o.Build(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Exit != 0 {
			t.Errorf("seed %d: a fresh build exits %d:\n%s", seed, res.Exit, res.Output)
		}
	}
}

// TestCompareDetectsInjectedDifference builds a project twice (idemc's
// warehouse and the oracle), damages idemc's outside idemc, and requires
// Compare to see each kind of damage, and nothing on the intact warehouse.
func TestCompareDetectsInjectedDifference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	ctx := context.Background()
	bin := idemcBinary(t)
	e := &Engine{Name: "duckdb"}
	o := &Oracle{Engine: e, Bin: bin, Root: t.TempDir()}
	p := &Project{
		Seeds: []*Seed{{Name: "s1", Rows: []SeedRow{{1, "2026-07-01", "k1", 5, "a"}, {2, "2026-07-02", "", 7, "b"}}}},
		Models: []*Model{
			{Name: "m1", Kind: KindTable, Shape: ShapePass, Refs: []string{"s1"}},
			{Name: "m2", Kind: KindDeleteInsert, Shape: ShapePass, Refs: []string{"m1"}, Start: "2026-07-01"},
			{Name: "m3", Kind: KindMerge, Shape: ShapePass, Refs: []string{"s1"}, Key: []string{"k", "id"}},
		},
	}
	want, err := o.Build(ctx, p)
	if err != nil || want.Exit != 0 {
		t.Fatalf("oracle: %v %+v", err, want)
	}
	w := e.NewWarehouse(t.TempDir())
	if err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if out := runIdemc(ctx, bin, w, nil, "build", "--as-of", AsOf); out.Exit != 0 {
		t.Fatalf("build: %s", out.Output)
	}
	intact, err := w.Dump(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(p, intact, intact, 0, want, nil); d != nil {
		t.Fatalf("an intact warehouse differs: %v", d)
	}
	if d := Compare(p, intact, intact, 1, want, nil); len(d) != 1 || d[0].What != "exit" {
		t.Errorf("a wrong exit code: got %v", d)
	}
	sch := w.Schemas
	damage := []struct{ what, sql string }{
		{"rows", fmt.Sprintf(`UPDATE "%s"."m1" SET amount = 99 WHERE id = 1`, sch.Target())},
		{"rows", fmt.Sprintf(`DELETE FROM "%s"."m2" WHERE id = 2`, sch.Target())},
		{"merge", fmt.Sprintf(`INSERT INTO "%s"."m3" (id, day, k, amount, cat) VALUES (42, DATE '2026-07-01', NULL, 1, 'a')`, sch.Target())},
		{"columns", fmt.Sprintf(`ALTER TABLE "%s"."s1" ADD COLUMN junk INTEGER`, sch.Seeds())},
		{"missing", fmt.Sprintf(`DROP TABLE "%s"."m1"`, sch.Target())},
	}
	for _, dmg := range damage {
		if err := w.Exec(ctx, dmg.sql); err != nil {
			t.Fatal(err)
		}
		got, err := w.Dump(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		diffs := Compare(p, got, intact, 0, want, nil)
		found := false
		for _, d := range diffs {
			found = found || d.What == dmg.what
		}
		if !found {
			t.Errorf("after %s: want a %q difference, got %v", dmg.sql, dmg.what, diffs)
		}
	}
}

// TestComparePreviousStateWhenOracleFails: where the oracle's unit failed,
// idemc must keep its previous rows, and changed rows are a difference.
func TestComparePreviousStateWhenOracleFails(t *testing.T) {
	p := &Project{Models: []*Model{{Name: "m1", Kind: KindTable, Shape: ShapePass, Refs: []string{"s1"}}}}
	rel := func(vals ...string) *Rel {
		r := &Rel{Exists: true, Names: []string{"id"}, Cols: []string{"id bigint"}}
		for _, v := range vals {
			r.Rows = append(r.Rows, []string{v})
		}
		return r
	}
	o := &OracleResult{Outcome: Outcome{Exit: 1, Units: map[string]map[string]string{"m1": {"": "failed"}}}, Dump: Dump{"m1": {}}}
	if d := Compare(p, Dump{"m1": rel("1")}, Dump{"m1": rel("1")}, 1, o, nil); d != nil {
		t.Errorf("previous state kept: %v", d)
	}
	if d := Compare(p, Dump{"m1": rel("1", "2")}, Dump{"m1": rel("1")}, 1, o, nil); len(d) != 1 || d[0].What != "rows" {
		t.Errorf("a failed unit that changed rows: %v", d)
	}
}

// TestShrinkReducesSyntheticFailure: a replay that fails exactly when m3
// exists and its relation is dropped is shrunk to that one operation and
// to m3 and what it reads.
func TestShrinkReducesSyntheticFailure(t *testing.T) {
	p, _, _ := Sequence(5, 0)
	for len(p.Models) < 4 {
		p, _, _ = Sequence(uint64(len(p.Models)*100+7), 0)
	}
	target := p.Models[2].Name
	ops := []Op{
		{Kind: OpVerify}, {Kind: OpSeedAppend, Node: p.Seeds[0].Name, Row: SeedRow{Day: "2026-07-01", Cat: "a"}},
		{Kind: OpDropOutside, Node: target, S: "drop"}, {Kind: OpModelEdit, Node: p.Models[0].Name, N: 3},
		{Kind: OpKill, N: 10}, {Kind: OpVerify},
	}
	replays := 0
	replay := func(_ context.Context, q *Project, ops []Op, threads int) (*Failure, error) {
		replays++
		for i, op := range ops {
			if op.Kind == OpDropOutside && op.Node == target && q.Model(target) != nil {
				return &Failure{Project: q, Ops: ops, Step: i + 1, Threads: threads, After: "build", Diffs: []Difference{{Node: target, What: "missing"}}}, nil
			}
		}
		return nil, nil
	}
	f, _ := replay(context.Background(), p, ops, 1)
	small := Shrink(context.Background(), replay, f, 500)
	if small.Step != 1 || small.Ops[0].Kind != OpDropOutside {
		t.Errorf("operations not shrunk: %v", small.Ops[:small.Step])
	}
	for _, m := range small.Project.Models {
		if m.Name != target && !ancestor(small.Project, m.Name, target) {
			t.Errorf("model %s is left although %s does not read it", m.Name, target)
		}
	}
	for _, s := range small.Project.Seeds {
		if len(s.Rows) > 0 {
			t.Errorf("seed %s keeps %d rows", s.Name, len(s.Rows))
		}
	}
	repro := small.Repro()
	for _, want := range []string{"-- project.toml --", "-- models/" + target + ".sql --", "sql 'DROP", "exec idemc build"} {
		if !strings.Contains(repro, want) {
			t.Errorf("the reproduction lacks %q:\n%s", want, repro)
		}
	}
	t.Logf("%d replays; reproduction:\n%s", replays, repro)
}

// ancestor reports whether a is read, directly or not, by b.
func ancestor(p *Project, a, b string) bool {
	m := p.Model(b)
	if m == nil {
		return false
	}
	for _, r := range m.Refs {
		if r == a || ancestor(p, a, r) {
			return true
		}
	}
	return false
}

// TestMaterializeOp: a switch applies only where the generator would allow
// the kind (an agg model stays a view or table, a model something reads
// never becomes a merge), gives a merge a key and a partitioned model a
// start, and is a no-op on a model that is gone, so that any subsequence
// of operations stays valid.
func TestMaterializeOp(t *testing.T) {
	p := &Project{
		Seeds: []*Seed{{Name: "s1"}},
		Models: []*Model{
			{Name: "m1", Kind: KindTable, Shape: ShapePass, Refs: []string{"s1"}},
			{Name: "m2", Kind: KindView, Shape: ShapePass, Refs: []string{"m1"}},
			{Name: "m3", Kind: KindTable, Shape: ShapeAgg, Refs: []string{"s1"}},
		},
	}
	for _, tc := range []struct {
		op       Op
		wantKind string // of op.Node after; "" = the model is gone
	}{
		{Op{Kind: OpMaterialize, Node: "m1", S: KindDeleteInsert, N: 2}, KindDeleteInsert},
		{Op{Kind: OpMaterialize, Node: "m1", S: KindMerge}, KindTable}, // m2 reads m1
		{Op{Kind: OpMaterialize, Node: "m2", S: KindMerge, N: 1}, KindMerge},
		{Op{Kind: OpMaterialize, Node: "m3", S: KindInsertOverwrite}, KindTable},
		{Op{Kind: OpMaterialize, Node: "m3", S: KindView}, KindView},
		{Op{Kind: OpMaterialize, Node: "gone", S: KindView}, ""},
	} {
		q := tc.op.Apply(p, nil)
		m := q.Model(tc.op.Node)
		switch {
		case m == nil && tc.wantKind != "":
			t.Errorf("%s: the model is gone", tc.op)
		case m != nil && m.Kind != tc.wantKind:
			t.Errorf("%s: kind %s, want %s", tc.op, m.Kind, tc.wantKind)
		case m != nil && m.Kind == KindMerge && len(m.Key) == 0:
			t.Errorf("%s: a merge model without a key", tc.op)
		case m != nil && m.Partitioned() && m.Start == "":
			t.Errorf("%s: a partitioned model without a start", tc.op)
		}
		if p.Model("m1").Kind != KindTable {
			t.Fatalf("%s changed the project it was applied to", tc.op)
		}
	}
	if f, ok := (Op{Kind: OpMaterialize, Fault: "crash:schema", Retry: true}).fault(); !ok || f.Kind != OpKill || f.S != "schema" || !f.Retry {
		t.Errorf("crash fault: %+v %v", f, ok)
	}
	if f, ok := (Op{Kind: OpMaterialize, Fault: "sigint:120"}).fault(); !ok || f.Kind != OpInterrupt || f.N != 120 {
		t.Errorf("sigint fault: %+v %v", f, ok)
	}
}

// TestCompareViewLeftInPlace: where the oracle's unit failed or was
// skipped, a view left in place may show new rows (its inputs changed),
// but a relation whose kind changed is a difference.
func TestCompareViewLeftInPlace(t *testing.T) {
	p := &Project{Models: []*Model{{Name: "m1", Kind: KindView, Shape: ShapePass, Refs: []string{"s1"}}}}
	rel := func(view bool, vals ...string) *Rel {
		r := &Rel{Exists: true, View: view, Names: []string{"id"}, Cols: []string{"id bigint"}}
		for _, v := range vals {
			r.Rows = append(r.Rows, []string{v})
		}
		return r
	}
	o := &OracleResult{Outcome: Outcome{Exit: 1, Units: map[string]map[string]string{"m1": {"": "skipped"}}}, Dump: Dump{"m1": {}}}
	if d := Compare(p, Dump{"m1": rel(true, "1", "2")}, Dump{"m1": rel(true, "1")}, 1, o, nil); d != nil {
		t.Errorf("a view left in place whose input changed: %v", d)
	}
	if d := Compare(p, Dump{"m1": rel(false, "1")}, Dump{"m1": rel(true, "1")}, 1, o, nil); len(d) != 1 || d[0].What != "kind" {
		t.Errorf("a failed unit that replaced the view by a table: %v", d)
	}
	if d := Compare(p, Dump{"m1": rel(false, "1", "2")}, Dump{"m1": rel(false, "1")}, 1, o, nil); len(d) != 1 || d[0].What != "rows" {
		t.Errorf("a failed unit that changed a table's rows: %v", d)
	}
}

// TestPlanDiffs: the plan check finds a unit planned and not run, or run
// and not planned, and says nothing for a refused build.
func TestPlanDiffs(t *testing.T) {
	ran := Outcome{Units: map[string]map[string]string{"m": {"2026-07-01": "succeeded", "2026-07-02": "skipped"}, "s": {"": "succeeded"}}}
	for _, tt := range []struct {
		name    string
		planned []string
		out     Outcome
		want    bool
	}{
		{"same", []string{"m/2026-07-01", "m/2026-07-02", "s"}, ran, false},
		{"one not planned", []string{"m/2026-07-01", "s"}, ran, true},
		{"one not run", []string{"m/2026-07-01", "m/2026-07-02", "m/2026-07-03", "s"}, ran, true},
		{"up to date", []string{}, Outcome{}, false},
		{"refused", []string{"x"}, Outcome{Exit: 2}, false},
	} {
		if got := len(planDiffs(tt.planned, tt.out)) > 0; got != tt.want {
			t.Errorf("%s: difference = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestReplanDiffs: a plan right after a successful build must be empty;
// a refused plan (nil) is left to the exit code comparison.
func TestReplanDiffs(t *testing.T) {
	for _, tt := range []struct {
		name    string
		planned []string
		want    bool
	}{
		{"nothing to run", []string{}, false},
		{"refused", nil, false},
		{"a model reruns", []string{"m2"}, true},
	} {
		if got := len(replanDiffs(tt.planned)) > 0; got != tt.want {
			t.Errorf("%s: difference = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestIncFiltersOwnStream: the is_incremental() filters come from a
// stream of their own: a sequence's project and operations are otherwise
// what they were without them; some sequences have filters, only on
// models of the common row shape.
func TestIncFiltersOwnStream(t *testing.T) {
	t.Setenv(IncFiltersEnv, "1")
	with := 0
	for seed := uint64(1); seed <= 40; seed++ {
		p, ops, _ := Sequence(seed, 6)
		r := newRand(seed)
		q := Generate(r)
		var drawn []Op
		for _, op := range ops {
			if op.Kind != OpLineage { // inserted from the lineage stream
				drawn = append(drawn, op)
			}
		}
		if fmt.Sprint(GenerateOps(r, q, 6)) != fmt.Sprint(drawn) {
			t.Fatalf("seed %d: the operations changed with the filters", seed)
		}
		if p.IncFilters() {
			with++
		}
		for i, m := range p.Models {
			if m.IncFilter && m.Shape == ShapeAgg {
				t.Errorf("seed %d: %s (%s, %s) has a filter", seed, m.Name, m.Kind, m.Shape)
			}
			c := *m
			c.IncFilter = false
			if fmt.Sprint(c) != fmt.Sprint(*q.Models[i]) {
				t.Fatalf("seed %d: model %s changed with the filters", seed, m.Name)
			}
		}
	}
	if with == 0 || with == 40 {
		t.Errorf("%d of 40 sequences have is_incremental() filters; want some, not all", with)
	}
}

// TestCompareLineage: with lineage_columns on, idemc's warehouse and the
// oracle's differ in every run id yet compare equal (the columns' names
// and types are compared, their values are not), while a row whose stamp
// is not the logical time's, or whose data changed, is a difference.
func TestCompareLineage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	ctx := context.Background()
	bin := idemcBinary(t)
	e := &Engine{Name: "duckdb"}
	o := &Oracle{Engine: e, Bin: bin, Root: t.TempDir()}
	p := &Project{Lineage: true,
		Seeds: []*Seed{{Name: "s1", Rows: []SeedRow{{1, "2026-07-01", "k1", 5, "a"}, {2, "2026-07-02", "", 7, "b"}}}},
		Models: []*Model{
			{Name: "m1", Kind: KindTable, Shape: ShapePass, Refs: []string{"s1"}},
			{Name: "m2", Kind: KindDeleteInsert, Shape: ShapePass, Refs: []string{"m1"}, Start: "2026-07-01"},
			{Name: "m3", Kind: KindView, Shape: ShapePass, Refs: []string{"m2"}},
		},
	}
	want, err := o.Build(ctx, p)
	if err != nil || want.Exit != 0 {
		t.Fatalf("oracle: %v %+v", err, want)
	}
	w := e.NewWarehouse(t.TempDir())
	if err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if out := runIdemc(ctx, bin, w, nil, "build", "--as-of", AsOf); out.Exit != 0 {
		t.Fatalf("build: %s", out.Output)
	}
	intact, err := w.Dump(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(intact["m2"].Cols, ","), "_idemc_run_id text") || strings.Contains(strings.Join(intact["m3"].Cols, ","), "_idemc") {
		t.Fatalf("lineage columns: m2 %v, m3 (a view) %v", intact["m2"].Cols, intact["m3"].Cols)
	}
	if d := Compare(p, intact, intact, 0, want, nil); d != nil {
		t.Fatalf("an intact warehouse differs: %v", d)
	}
	sch := w.Schemas
	for _, dmg := range []struct{ what, sql string }{
		{"lineage", fmt.Sprintf(`UPDATE "%s"."m1" SET _idemc_as_of = TIMESTAMP '2026-07-05 00:00:00' WHERE id = 1`, sch.Target())},
		{"lineage", fmt.Sprintf(`UPDATE "%s"."m2" SET _idemc_run_id = NULL WHERE id = 2`, sch.Target())},
		{"rows", fmt.Sprintf(`UPDATE "%s"."m2" SET amount = 99 WHERE id = 1`, sch.Target())},
	} {
		if err := w.Exec(ctx, dmg.sql); err != nil {
			t.Fatal(err)
		}
		got, err := w.Dump(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range Compare(p, got, intact, 0, want, nil) {
			found = found || d.What == dmg.what
		}
		if !found {
			t.Errorf("after %s: want a %q difference", dmg.sql, dmg.what)
		}
	}
}

// TestInterruptProof: which outcomes of a build sent SIGINT prove nothing
// (the signal never reached idemc's handler), and which are judged. A
// build that exits 0 without a word from the handler proves nothing when
// the signal was sent as its work ended or later (the handler is gone then
// by design), or where SIGINT is ignored; sent well before the end, it is
// judged. The CI runs of 7 December 2026: seeds 62 and 94 (a no-op build
// exited 0 295 ms after the signal), seed 181 (266 ms).
func TestInterruptProof(t *testing.T) {
	done := "up to date: s1, m1, m2\n\nDone in 0.11s: 0 succeeded, 0 failed, 0 skipped, 3 up to date, 0 warnings (run x)\n"
	handled := "\ninterrupt: rolling back the units in flight and starting no new one (press Ctrl-C again to quit at once)\n" + done
	end := time.Date(2026, 12, 7, 16, 38, 37, 0, time.UTC) // the run's work ended
	ended := func(o Outcome) Outcome { o.RunEnd = end; return o }
	for _, c := range []struct {
		name    string
		o       Outcome
		sent    time.Time
		lag     time.Duration
		ignored bool
		proof   bool
	}{
		{"exit 130", ended(Outcome{Exit: 130, Output: handled}), end.Add(-time.Second), 400 * time.Millisecond, false, true},
		{"killed before the handler", Outcome{Exit: 130, Signaled: true}, end, 300 * time.Millisecond, false, false},
		{"killed by the signal after output", ended(Outcome{Exit: 130, Signaled: true, Output: done}), end, 300 * time.Millisecond, false, true},
		{"exit 0, sent after the work ended", ended(Outcome{Exit: 0, Output: done}), end.Add(20 * time.Millisecond), 266 * time.Millisecond, false, false},
		{"exit 0, sent within the margin before the end", ended(Outcome{Exit: 0, Output: done}), end.Add(-100 * time.Millisecond), 295 * time.Millisecond, false, false},
		{"exit 0, sent well before the end: the handler missed it", ended(Outcome{Exit: 0, Output: done}), end.Add(-time.Second), 1100 * time.Millisecond, false, true},
		{"exit 0, no record, ended as the signal landed", Outcome{Exit: 0, Output: done}, end, 50 * time.Millisecond, false, false},
		{"exit 0, no record, lived on after the signal", Outcome{Exit: 0, Output: done}, end, 295 * time.Millisecond, false, true},
		{"dropped before the handler, SIGINT ignored", ended(Outcome{Exit: 0, Output: done}), end.Add(-time.Second), 1100 * time.Millisecond, true, false},
		{"handled and exit 0, SIGINT ignored", ended(Outcome{Exit: 0, Output: handled}), end.Add(-time.Second), 1100 * time.Millisecond, true, true},
		{"handled and exit 0", ended(Outcome{Exit: 0, Output: handled}), end.Add(-time.Second), 1100 * time.Millisecond, false, true},
		{"handled and exit 0 as the signal landed", ended(Outcome{Exit: 0, Output: handled}), end, 100 * time.Millisecond, false, false},
	} {
		if got := !noProof(c.o, c.sent, c.lag, c.ignored); got != c.proof {
			t.Errorf("%s: judged %v, want %v", c.name, got, c.proof)
		}
	}
}
