package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

// soundState: "up to date" means what a full rebuild would leave (DESIGN
// §9), on every engine. A seed read through a view reloads before the table
// that counts it; a reverted seed runs again; a table dropped outside idemc
// is rebuilt (and what reads it reruns: its data version is the new run's);
// a relationships check is not a data input.
func soundState(t *testing.T, tgt Target) {
	const asOf = "2026-07-03T00:00:00Z"
	e := newEnv(t, tgt, map[string]string{
		"seeds/s.csv": "k\na\nb\n",
		"models/v.sql": `/* idemc
materialized = "view"
*/
SELECT k FROM {{ ref("s") }}`,
		"models/counts.sql": `/* idemc
materialized = "table"
*/
SELECT count(*) AS n FROM {{ ref("v") }}`,
		"models/dim.sql": `/* idemc
materialized = "table"
*/
SELECT 1 AS id, 'one' AS name`,
		"models/fact.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
[checks]
relationships = { id = "dim.id" }
*/
SELECT {{ start }} AS d, 1 AS id, n FROM {{ ref("counts") }}`,
	})
	one := func(o *compiler.Options) {}
	e.mustSucceed(e.build(asOf, one))
	equal(t, "counts", e.fingerprint("counts"), "2")

	// A new seed row reaches counts (through the view) and fact in one build.
	e.write(map[string]string{"seeds/s.csv": "k\na\nb\nc\n"})
	e.mustSucceed(e.build(asOf, one))
	equal(t, "counts after a seed row", e.fingerprint("counts"), "3")
	equal(t, "fact after a seed row", e.fingerprint("fact"), "2026-07-01 00:00:00\t1\t3\n2026-07-02 00:00:00\t1\t3")

	// Reverting the seed runs it again.
	e.write(map[string]string{"seeds/s.csv": "k\na\nb\n"})
	e.mustSucceed(e.build(asOf, one))
	equal(t, "counts after the revert", e.fingerprint("counts"), "2")

	// A table dropped outside idemc is rebuilt by a plain build.
	e.exec("DROP TABLE " + e.rel("counts"))
	res := e.build(asOf, one)
	e.mustSucceed(res)
	equal(t, "counts after a drop", e.fingerprint("counts"), "2")
	equal(t, "fact after a drop", e.fingerprint("fact"), "2026-07-01 00:00:00\t1\t2\n2026-07-02 00:00:00\t1\t2")

	// A seed that gains a column (and retypes one) is reloaded although a
	// view reads it (PostgreSQL binds views to the table's columns).
	e.write(map[string]string{"seeds/s.csv": "k,note\na,1.5\nb,2\n"})
	e.mustSucceed(e.build(asOf, one))
	rows := e.query("SELECT k, note FROM " + e.d.Qualify(plan.Relation{Schema: e.schema + "_raw", Name: "s"}) + " ORDER BY k")
	if len(rows) != 2 || rows[0][0] != "a" || !strings.HasPrefix(rows[0][1], "1.5") || !strings.HasPrefix(rows[1][1], "2") {
		t.Errorf("the seed with its new column holds %v", rows)
	}
	equal(t, "counts after the new column", e.fingerprint("counts"), "2")

	// Rebuilding the dimension a check reads does not rerun the fact.
	e.write(map[string]string{"models/dim.sql": `/* idemc
materialized = "table"
*/
SELECT 1 AS id, 'uno' AS name`})
	res = e.build(asOf, one)
	e.mustSucceed(res)
	if len(res.Units) != 1 || res.Units[0].ID != "dim" {
		var ids []string
		for _, u := range res.Units {
			ids = append(ids, u.ID)
		}
		t.Errorf("after changing dim, ran %v, want [dim]", ids)
	}
	if res = e.build(asOf, one); len(res.Units) != 0 {
		t.Errorf("a build after a build ran %d units", len(res.Units))
	}
}

// defaultSchema: a target without `schema` writes to the engine's default
// schema (DuckDB main, PostgreSQL public, MySQL the DSN's database), and the
// state finds its tables there: a second build is up to date.
func defaultSchema(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, map[string]string{})
	name := strings.ReplaceAll(e.schema, "idemc_c", "idemc_ds")
	e.write(map[string]string{"project.toml": e.targetToml(fmt.Sprintf("state_schema = %q\n", e.schema)), "models/" + name + ".sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x"})
	t.Cleanup(func() { e.exec("DROP TABLE IF EXISTS " + e.d.Qualify(plan.Relation{Name: name})) })
	const asOf = "2026-07-03T00:00:00Z"
	e.mustSucceed(e.build(asOf, nil))
	res := e.build(asOf, nil)
	e.mustSucceed(res)
	if len(res.Units) != 0 || res.UpToDate != 1 {
		t.Fatalf("the second build ran %d units (%d up to date): the table in the default schema was not found", len(res.Units), res.UpToDate)
	}
}
