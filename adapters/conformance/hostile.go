package conformance

// Hostile input (issue 6, item 6; DESIGN §3, §5, §7): names and values that
// carry quotes, semicolons and comments are quoted by the dialect or
// rendered as literals, so they cannot change the statements run; partition
// values are parsed before they reach SQL; secrets never reach output,
// errors, logs, target/ artifacts or the audit table.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/plan"
)

// Hostile runs the hostile input scenarios on a target.
func Hostile(t *testing.T, tgt Target) {
	t.Run("identifiers", func(t *testing.T) { hostileIdentifiers(t, tgt) })
	t.Run("vars", func(t *testing.T) { hostileVars(t, tgt) })
	t.Run("partition_values", func(t *testing.T) { hostilePartitions(t, tgt) })
	t.Run("secrets", func(t *testing.T) { hostileSecrets(t, tgt) })
	t.Run("checks", func(t *testing.T) { hostileChecks(t, tgt) })
	t.Run("fatal_engine_errors", func(t *testing.T) { hostileFatal(t, tgt) })
}

// Names that would end a quoted identifier or a string, end a statement or
// start a comment if they were not quoted: every quote character of the
// three engines, a semicolon, "--" and "/*".
const (
	hostileSchema = "_q\"b'c`d;--/*"
	hostileSeed   = "ev'e;nts--"
	hostileDay    = "d'ay; --"
	hostileCol    = "a\"b'c`d; DROP TABLE canary; --"
	hostileAlias  = "t'; DROP TABLE canary; --"
	hostileTs     = "u\"pd'at; --"
)

// Values that would break out of a string literal.
var hostileValues = []string{
	"x'); DROP TABLE canary; --",
	`y\' OR 1=1 -- `,
	"*/ z /*",
}

// hostileEnv is an env whose target and seed schemas carry hostile names.
func hostileEnv(t *testing.T, tgt Target, files map[string]string) *env {
	t.Helper()
	e := newEnv(t, tgt, files)
	e.schema += hostileSchema
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"hostile\"\ndefault_target = \"t\"\n[targets.t]\nengine = %q\nschema = %s\n", tgt.Engine, tomlString(e.schema))
	for k, v := range tgt.Settings(e.dir) {
		fmt.Fprintf(&b, "%s = %s\n", k, tomlString(v))
	}
	raw := e.schema + "_raw"
	fmt.Fprintf(&b, "[sources.raw]\nschema = %s\ntables = [%s]\n[seeds]\nschema = %s\n", tomlString(raw), tomlString(hostileSeed), tomlString(raw))
	e.write(map[string]string{"project.toml": b.String()})
	return e
}

// tomlString is a TOML basic string. "*/" is written "*\u002F": the header
// is a SQL comment, which a literal "*/" would end.
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "*/", `*\u002F`).Replace(s) + `"`
}

// hostileIdentifiers: schema, seed (source table), column, partition
// column, key and alias names, and check values, all hostile. Two builds
// succeed, the rows are right and the canary tables survive.
func hostileIdentifiers(t *testing.T, tgt Target) {
	ad, _ := adapters.Lookup(tgt.Engine)
	d := ad.Dialect
	files, odd, accepted := hostileFiles(d)
	e := hostileEnv(t, tgt, files)
	raw := e.schema + "_raw"
	// Canaries in both schemas, created before the first build.
	for _, sc := range []string{e.schema, raw} {
		canary := d.Qualify(plan.Relation{Schema: sc, Name: "canary"})
		e.exec(d.CreateSchema(plan.Relation{Schema: sc, Name: "x"}), "CREATE TABLE "+canary+" (n INT)", "INSERT INTO "+canary+" VALUES (1)")
	}
	for i := 0; i < 2; i++ {
		res := e.build("2026-07-03T00:00:00Z", func(o *compiler.Options) {
			if i == 1 {
				o.Start, o.End = "2026-07-01", "2026-07-03"
			}
		})
		e.mustSucceed(res)
	}
	for _, sc := range []string{e.schema, raw} {
		if got := e.query("SELECT count(*) FROM " + d.Qualify(plan.Relation{Schema: sc, Name: "canary"})); got[0][0] != "1" {
			t.Fatalf("canary in %q: %v", sc, got)
		}
	}
	checkHostileTables(t, e, d)
	hostileFailingCheck(t, e, d, odd, accepted)
}

// hostileFiles is the hostile identifiers' project: a seed, an
// incremental, a merge and a watermark model on hostile names, and an
// aliased table; odd is the incremental model's text and accepted its
// accepted values, as written.
func hostileFiles(d adapters.Dialect) (files map[string]string, odd string, accepted []string) {
	q := d.Quote
	csv := fmt.Sprintf("id,%s,%s,%s\n", csvField(hostileDay), csvField(hostileCol), csvField(hostileTs))
	for i, v := range hostileValues {
		for day := 1; day <= 2; day++ {
			csv += fmt.Sprintf("%d,2026-07-0%d,%s,2026-07-0%d 1%d:00:00\n", 10*day+i, day, csvField(v), day, i)
		}
	}
	for _, v := range hostileValues {
		accepted = append(accepted, tomlString(v))
	}
	odd = fmt.Sprintf(`/* idemc
materialized = "incremental"
partition_by = %s
start = "2026-07-01"
[checks]
unique = ["id"]
not_null = ["id", %s, %s]
accepted_values = { %s = [%s] }
row_count_matches = { source = %s, column = %s }
min_rows = 1
*/
SELECT id, %s, %s FROM {{ source("raw", %s) }}
WHERE %s >= {{ start }} AND %s < {{ end }}
`, tomlString(hostileDay), tomlString(hostileDay), tomlString(hostileCol), tomlString(hostileCol), strings.Join(accepted, ", "),
		tomlString("raw."+hostileSeed), tomlString(hostileDay),
		q(hostileDay), q(hostileCol), tomlString(hostileSeed), q(hostileDay), q(hostileDay))
	merge := fmt.Sprintf(`/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = ["select", "my key"]
merge_exclude_columns = ["first'seen"]
[checks]
unique = ["select", "my key"]
not_null = ["select"]
relationships = { %s = %s }
*/
SELECT id AS %s, %s AS %s, %s AS %s, 'v1' AS %s FROM {{ ref("odd") }}
`, tomlString(hostileCol), tomlString("odd."+hostileCol),
		q("select"), q(hostileCol), q("my key"), q(hostileCol), q(hostileCol), q("first'seen"))
	files = map[string]string{
		"seeds/" + hostileSeed + ".csv": csv,
		"models/odd.sql":                odd,
		"models/odd_merge.sql":          merge,
		// A watermark on a hostile column: the high-water mark is read and
		// written in idemc_state.
		"models/odd_wm.sql": fmt.Sprintf(`/* idemc
materialized = "incremental"
unique_key = "id"
watermark = { column = %s, lag = "5m", overlap = "1h" }
*/
SELECT id, %s FROM {{ source("raw", %s) }}
WHERE %s >= {{ watermark_start }} AND %s < {{ watermark_end }}
`, tomlString(hostileTs), q(hostileTs), tomlString(hostileSeed), q(hostileTs), q(hostileTs)),
		"models/aliased.sql":    "/* idemc\nmaterialized = \"table\"\nalias = " + tomlString(hostileAlias) + "\n*/\nSELECT 1 AS n",
		"models/uses_alias.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT n FROM {{ ref(\"aliased\") }}",
	}
	return files, odd, accepted
}

// checkHostileTables: the values came through unchanged, once each, into
// every model's table, the high-water mark and the aliased table.
func checkHostileTables(t *testing.T, e *env, d adapters.Dialect) {
	q := d.Quote
	rel := func(name string) string { return d.Qualify(plan.Relation{Schema: e.schema, Name: name}) }
	for _, v := range hostileValues {
		got := e.query(fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = %s", rel("odd"), q(hostileCol), d.String(v)))
		if got[0][0] != "2" {
			t.Errorf("odd has %s rows with %s = %q, want 2", got[0][0], hostileCol, v)
		}
	}
	if got := e.query("SELECT count(*) FROM " + rel("odd")); got[0][0] != "6" {
		t.Errorf("odd has %s rows, want 6", got[0][0])
	}
	if got := e.query("SELECT count(*), count(DISTINCT " + q("my key") + ") FROM " + rel("odd_merge")); got[0][0] != "6" || got[0][1] != "3" {
		t.Errorf("odd_merge has %v rows/distinct keys, want 6 and 3", got[0])
	}
	if got := e.query("SELECT count(*) FROM " + rel("odd_wm")); got[0][0] != "6" {
		t.Errorf("odd_wm has %s rows, want 6", got[0][0])
	}
	if got := e.query("SELECT high_water FROM " + rel("idemc_state") + " WHERE job_name = 'odd_wm'"); len(got) != 1 || !strings.HasPrefix(got[0][0], "2026-07-02 12:00:00") {
		t.Errorf("odd_wm's high-water mark: %v, want 2026-07-02 12:00:00", got)
	}
	if got := e.query("SELECT n FROM " + rel(hostileAlias)); len(got) != 1 || got[0][0] != "1" {
		t.Errorf("the aliased table %q: %v", hostileAlias, got)
	}
	if got := e.query("SELECT n FROM " + rel("uses_alias")); len(got) != 1 {
		t.Errorf("uses_alias: %v", got)
	}
	if got := columns(e, "odd"); got != "id,"+strings.ToLower(hostileDay)+","+strings.ToLower(hostileCol) {
		t.Errorf("odd's columns: %q", got)
	}

}

// hostileFailingCheck: a failing check whose sample holds the hostile
// values fails its unit, its audit row records the values verbatim, and
// nothing else happens.
func hostileFailingCheck(t *testing.T, e *env, d adapters.Dialect, odd string, accepted []string) {
	rel := func(name string) string { return d.Qualify(plan.Relation{Schema: e.schema, Name: name}) }
	raw := e.schema + "_raw"
	e.write(map[string]string{"models/odd.sql": strings.Replace(odd, "accepted_values = { "+tomlString(hostileCol)+" = ["+strings.Join(accepted, ", ")+"] }",
		"accepted_values = { "+tomlString(hostileCol)+" = [\"only\"] }", 1)})
	res := e.build("2026-07-03T00:00:00Z", func(o *compiler.Options) { o.Partition = "2026-07-01"; o.Seeds = false })
	u := e.unit(res, "odd/2026-07-01")
	if u.Status != "failed" || !strings.Contains(u.Error, "accepted_values") {
		t.Fatalf("odd/2026-07-01 with a failing check: %s %s", u.Status, u.Error)
	}
	got := e.query(fmt.Sprintf("SELECT error, checks FROM %s WHERE job_name = 'odd' AND status = 'failed'", rel("idemc_audit")))
	if len(got) != 1 {
		t.Fatalf("failed audit rows of odd: %v", got)
	}
	for _, v := range hostileValues {
		if !strings.Contains(got[0][0], v) {
			t.Errorf("the audit error does not hold the sample value %q verbatim: %s", v, got[0][0])
		}
	}
	if got := e.query("SELECT count(*) FROM " + rel("odd")); got[0][0] != "6" {
		t.Errorf("odd has %s rows after the failed check, want 6", got[0][0])
	}
	for _, sc := range []string{e.schema, raw} {
		if got := e.query("SELECT count(*) FROM " + d.Qualify(plan.Relation{Schema: sc, Name: "canary"})); got[0][0] != "1" {
			t.Fatalf("canary in %q after the failed check: %v", sc, got)
		}
	}
}

// csvField quotes a CSV field.
func csvField(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// exec runs statements on the target.
func (e *env) exec(stmts ...string) {
	e.t.Helper()
	s, done := e.session()
	defer done()
	for _, q := range stmts {
		if _, err := adapters.ExecSQL(context.Background(), s, q); err != nil {
			e.t.Fatalf("%v\n%s", err, q)
		}
	}
}

// hostileVars: --vars values are literals, whatever they hold.
func hostileVars(t *testing.T, tgt Target) {
	vars := map[string]any{
		"quote":     "x'; DROP TABLE canary; --",
		"backslash": `a\'; DROP TABLE canary; -- `,
		"trailing":  `ends with a backslash\`,
		"comment":   "*/ DROP TABLE canary; /*",
		"newline":   "line1\n-- c\nDROP TABLE canary;",
		"dollar":    "$$; DROP TABLE canary; $$",
		"backtick":  "`; DROP TABLE canary; -- \"",
		"unicode":   "ʼ′‘’＇; DROP TABLE canary; --",
		"who":       "nobody' OR '1'='1",
	}
	names := []string{"quote", "backslash", "trailing", "comment", "newline", "dollar", "backtick", "unicode"}
	var sel []string
	for _, n := range names {
		sel = append(sel, fmt.Sprintf("{{ var(%q) }} AS v_%s", n, n))
	}
	e := newEnv(t, tgt, base(map[string]string{
		"models/v.sql":      "/* idemc\nmaterialized = \"table\"\n*/\nSELECT " + strings.Join(sel, ", "),
		"models/picked.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT id FROM {{ source(\"raw\", \"users\") }} WHERE name = {{ var(\"who\") }}",
		"models/canary.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS n",
	}))
	for i := 0; i < 2; i++ {
		e.mustSucceed(e.build(asOf, func(o *compiler.Options) { o.Vars = vars }))
	}
	cols := "v_" + strings.Join(names, ", v_")
	got := e.query("SELECT " + cols + " FROM " + e.rel("v"))
	if len(got) != 1 {
		t.Fatalf("v has %d rows, want 1", len(got))
	}
	for i, n := range names {
		if got[0][i] != vars[n] {
			t.Errorf("var %s came back as %q, want %q", n, got[0][i], vars[n])
		}
	}
	if got := e.query("SELECT count(*) FROM " + e.rel("picked")); got[0][0] != "0" {
		t.Errorf("a var compared in a WHERE matched %s rows, want 0", got[0][0])
	}
	if got := e.query("SELECT count(*) FROM " + e.rel("canary")); got[0][0] != "1" {
		t.Errorf("canary: %v", got)
	}
}

// hostilePartitions: partition values and bounds are parsed by type before
// they reach SQL; a hostile one is bad input and nothing is written.
func hostilePartitions(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(nil))
	for _, o := range []compiler.Options{
		{Partition: "2026-07-01'; DROP TABLE canary; --"},
		{Partition: "2026-07-01 /* */ OR 1=1"},
		{Partition: "2026-07-01--"},
		{Start: "2026-07-01'; DELETE FROM daily; --", End: "2026-07-03"},
		{Start: "2026-07-01", End: "2026-07-03'); DROP TABLE canary; --"},
	} {
		_, err := e.buildErr(asOf, func(c *compiler.Options) { c.Partition, c.Start, c.End = o.Partition, o.Start, o.End })
		if err == nil || !errors.Is(err, diag.ErrBadInput) {
			t.Errorf("partition %q / window %q–%q: %v, want a bad-input error", o.Partition, o.Start, o.End, err)
		}
	}
	if e.schemaExists() {
		t.Errorf("a refused build created the schema %s", e.schema)
	}
}
