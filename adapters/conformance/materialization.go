package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Materialization changes (issue 17, item 7): a model switched between
// view, table and incremental (partitioned, and keyed without partitions)
// replaces its relation on the next build, on every engine, and a switch
// whose checks fail leaves the previous relation, kind and rows.

// matKinds are the materializations a model switches between.
var matKinds = []string{"view", "table", "part", "key"}

// matModel is a model of kind k over the events seed: every kind gives the
// same rows. check, when set, is a [checks] line.
func matModel(k, check string) string {
	head := map[string]string{
		"view":  "materialized = \"view\"\n",
		"table": "materialized = \"table\"\n",
		"part":  "materialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n",
		"key":   "materialized = \"incremental\"\nstrategy = \"merge\"\nunique_key = \"id\"\n",
	}[k]
	if check != "" {
		head += "[checks]\n" + check + "\n"
	}
	where := ""
	if k == "part" {
		where = " WHERE d >= {{ start }} AND d < {{ end }}"
	}
	return "/* idemc\n" + head + "*/\nSELECT id, d, amount FROM {{ source(\"raw\", \"events\") }}" + where
}

// matTransitions runs every switch between two materializations at once,
// one model per pair (m_<from>_<to>).
func matTransitions(t *testing.T, tgt Target) {
	files := map[string]string{}
	var names []string
	for _, a := range matKinds {
		for _, b := range matKinds {
			if a != b {
				n := "m_" + a + "_" + b
				names = append(names, n)
				files["models/"+n+".sql"] = matModel(a, "")
			}
		}
	}
	e := newEnv(t, tgt, base(files))
	e.mustSucceed(e.build(asOf, nil))
	want := e.fingerprint("m_view_table")
	src := e.query("SELECT count(*), sum(amount) FROM " + e.d.Qualify(plan.Relation{Schema: e.schema + "_raw", Name: "events"}))

	// A switch whose check fails keeps the previous relation.
	before := map[string]string{}
	for _, n := range names {
		before[n] = e.relKind(n) + "\n" + e.fingerprint(n)
		e.write(map[string]string{"models/" + n + ".sql": matModel(strings.Split(n, "_")[2], "min_rows = 100")})
	}
	res := e.build(asOf, nil)
	failed := map[string]bool{}
	for _, u := range res.Units {
		failed[u.Model] = failed[u.Model] || u.Status == "failed"
	}
	for _, u := range res.Units {
		// A model that becomes partitioned is replaced by its first unit;
		// the others wait for it, and are skipped when it fails.
		if u.Status != "failed" && !(u.Status == "skipped" && u.Partition != "" && failed[u.Model]) {
			t.Errorf("%s with a failing check: %s", u.ID, u.Status)
		}
	}
	for _, n := range names {
		equal(t, n+" after a failed switch", e.relKind(n)+"\n"+e.fingerprint(n), before[n])
	}

	for _, n := range names {
		e.write(map[string]string{"models/" + n + ".sql": matModel(strings.Split(n, "_")[2], "")})
	}
	e.mustSucceed(e.build(asOf, nil))
	for _, n := range names {
		kind := "table"
		if strings.HasSuffix(n, "_view") {
			kind = "view"
		}
		equal(t, n+"'s relation after the switch", e.relKind(n), kind)
		equal(t, n+" after the switch", e.fingerprint(n), want)
	}
	// No write went through an old view into its source (MySQL's views
	// are updatable), and nothing was left aside.
	equal(t, "the source after the switches", fmt.Sprint(e.query("SELECT count(*), sum(amount) FROM "+e.d.Qualify(plan.Relation{Schema: e.schema + "_raw", Name: "events"}))), fmt.Sprint(src))
	// idemc's own tables are not leftovers: the state tables, and the lock
	// and heartbeat tables of an engine whose units claim a row (Spark).
	st := plan.StateIn(e.schema)
	own := []string{st.Audit.Name, st.Marks.Name, st.Runs.Name, st.Latest.Name, sqlgen.ClaimRelation(st).Name, sqlgen.HeartbeatRelation(st).Name}
	var left []string
	for _, n := range e.tables() {
		if strings.Contains(n, "idemc_") && !slices.Contains(own, n) {
			left = append(left, n)
		}
	}
	if len(left) > 0 {
		t.Fatalf("relations left over: %v", left)
	}
	// State noticed the change above (the models reran); now nothing to do.
	res = e.build(asOf, nil)
	e.mustSucceed(res)
	if res.Succeeded != 0 {
		t.Fatalf("a rerun after the switches wrote %d units, want every unit up to date", res.Succeeded)
	}
}

// relKind is "view" or "table" as information_schema says, "" when missing.
func (e *env) relKind(name string) string {
	if kind, ok := e.sessionKind(name); ok {
		return kind
	}
	rows := e.query(fmt.Sprintf("SELECT table_type FROM information_schema.tables WHERE table_schema = %s AND table_name = %s", e.d.String(e.schema), e.d.String(name)))
	if len(rows) == 0 {
		return ""
	}
	if strings.Contains(strings.ToUpper(rows[0][0]), "VIEW") {
		return "view"
	}
	return "table"
}

// sessionKind is relKind on an engine without information_schema (Spark),
// asked of its session; ok is false elsewhere.
func (e *env) sessionKind(name string) (string, bool) {
	e.t.Helper()
	s, done := e.session()
	defer done()
	kind, ok, err := adapters.SessionKind(context.Background(), s, plan.Relation{Schema: e.schema, Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return kind, ok
}
