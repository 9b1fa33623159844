package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

const eventsCSV = `id,d,user_id,amount
1,2026-07-01,a,10
2,2026-07-01,b,20
3,2026-07-02,a,5
4,2026-07-02,c,7
5,2026-07-03,a,1
6,2026-07-03,b,2
7,2026-07-04,c,3
`

const usersCSV = `id,name,updated_at,lsn
1,Ann,2026-07-01 10:00:00,1
2,Bob,2026-07-02 10:00:00,3
3,Cy,2026-07-02 11:58:00,4
`

const dailyModel = `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
[checks]
unique = ["id"]
not_null = ["id", "d"]
row_count_matches = { source = "raw.events", column = "d" }
*/
SELECT id, d, user_id, amount FROM {{ source("raw", "events") }}
WHERE d >= {{ start }} AND d < {{ end }}
`

func base(extra map[string]string) map[string]string {
	files := map[string]string{
		"seeds/events.csv": eventsCSV,
		"seeds/users.csv":  usersCSV,
		"models/daily.sql": dailyModel,
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

const asOf = "2026-07-05T00:00:00Z"

// rerun = same state, for every materialization and seeds.
func rerunSameState(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/users_dim.sql": `/* idemc
materialized = "incremental"
unique_key = "id"
*/
SELECT id, name FROM {{ source("raw", "users") }}`,
		"models/by_key.sql": `/* idemc
materialized = "incremental"
strategy = "delete_insert"
unique_key = "user_id"
*/
SELECT user_id, sum(amount) AS total FROM {{ ref("daily") }} GROUP BY user_id`,
		"models/totals.sql": `/* idemc
materialized = "table"
*/
SELECT user_id, count(*) AS n FROM {{ ref("daily") }} GROUP BY user_id`,
		"models/v.sql": `SELECT id, amount FROM {{ ref("daily") }}`,
	}))
	e.mustSucceed(e.build(asOf, nil))
	tables := []string{"daily", "users_dim", "by_key", "totals", "v"}
	first := map[string]string{}
	for _, tb := range tables {
		first[tb] = e.fingerprint(tb)
	}
	seedQuery := "SELECT id, d, user_id, amount FROM " + e.d.Qualify(plan.Relation{Schema: e.schema + "_raw", Name: "events"}) + " ORDER BY id"
	first["seed"] = strings.Join(flatten(e.query(seedQuery)), "|")
	e.mustSucceed(e.build(asOf, func(o *compiler.Options) { o.Start, o.End = "2026-07-01", "2026-07-05" }))
	for _, tb := range tables {
		equal(t, "second build of "+tb, e.fingerprint(tb), first[tb])
	}
	equal(t, "seed after reload", strings.Join(flatten(e.query(seedQuery)), "|"), first["seed"])
	if got := len(e.query("SELECT 1 FROM " + e.rel("daily"))); got != 7 {
		t.Fatalf("daily has %d rows after two builds, want 7", got)
	}
}

// A failing check leaves the table as it was.
func failedCheck(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(nil))
	e.mustSucceed(e.build(asOf, nil))
	before := e.fingerprint("daily")
	e.write(map[string]string{"models/daily.sql": strings.Replace(dailyModel, "[checks]", "[checks]\nexpect = [\"min(amount) >= 3\"]", 1)})
	res := e.build(asOf, func(o *compiler.Options) { o.Partition = "2026-07-03" })
	u := e.unit(res, "daily/2026-07-03")
	if u.Status != "failed" || !strings.Contains(u.Error, "expect(min(amount) >= 3)") {
		t.Fatalf("unit: %s %s", u.Status, u.Error)
	}
	equal(t, "daily after the failed check", e.fingerprint("daily"), before)
	st := e.auditStatuses("daily")
	if st[len(st)-1] != "2026-07-04:succeeded" || !contains(st, "2026-07-03:failed") {
		t.Fatalf("audit: %v", st)
	}
}

// A statement failing after the insert leaves the table as it was.
func failedInsert(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(nil))
	e.mustSucceed(e.build(asOf, nil))
	before := e.fingerprint("daily")
	e.fault = "fail:daily/2026-07-03:insert" // not t.Setenv: scenarios may run at once
	res := e.build(asOf, func(o *compiler.Options) { o.Start, o.End = "2026-07-01", "2026-07-05" })
	if u := e.unit(res, "daily/2026-07-03"); u.Status != "failed" {
		t.Fatalf("unit: %s", u.Status)
	}
	equal(t, "daily after the failed insert", e.fingerprint("daily"), before)
}

// kill -9 in the middle of a unit: previous state, the unit abandoned, and a
// rerun completes it.
func crashMidUnit(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(nil))
	// Inside the write's transaction, or (verify, then publish: Spark) with
	// the batch staged and not yet published, whose publish is the commit.
	at := "insert"
	if ad, _ := adapters.Lookup(tgt.Engine); !ad.Capabilities.ChecksInWrite {
		at = "stage"
	}
	e.crashChild(asOf, "crash:daily/2026-07-02:"+at)
	if got := e.query("SELECT count(*) FROM " + e.rel("daily") + " WHERE d >= DATE '2026-07-02' AND d < DATE '2026-07-03'"); got[0][0] != "0" {
		t.Fatalf("the killed unit's rows are visible: %v", got)
	}
	if st := e.auditStatuses("daily"); !contains(st, "2026-07-02:running") {
		t.Fatalf("audit after the crash: %v", st)
	}
	res := e.build(asOf, nil)
	e.mustSucceed(res)
	if u := e.unit(res, "daily/2026-07-02"); u.Status != "succeeded" {
		t.Fatal("the crashed unit did not rerun")
	}
	st := e.auditStatuses("daily")
	if !contains(st, "2026-07-02:abandoned") || contains(st, "2026-07-02:running") {
		t.Fatalf("audit after the rerun: %v", st)
	}
	if got := len(e.query("SELECT 1 FROM " + e.rel("daily"))); got != 7 {
		t.Fatalf("daily has %d rows, want 7", got)
	}
}

const mergeModel = `/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = ["a", "b"]
merge_exclude_columns = ["first_seen"]
*/
SELECT a, b, v, first_seen FROM {{ ref("src") }}`

// Merge matches NULL key parts: one row per key over reruns.
func mergeNullKeys(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/src.sql": `SELECT 'x' AS a, 1 AS b, 'one' AS v, 's1' AS first_seen UNION ALL SELECT 'x', NULL, 'null-b', 's1' UNION ALL SELECT NULL, NULL, 'all-null', 's1'`,
		"models/m.sql":   mergeModel,
	}))
	for i := 0; i < 3; i++ {
		e.mustSucceed(e.build(asOf, nil))
	}
	if got := len(e.query("SELECT 1 FROM " + e.rel("m"))); got != 3 {
		t.Fatalf("m has %d rows after three merges, want 3", got)
	}
}

// A batch that repeats a key is refused before anything is written.
func duplicateBatchKeys(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/src.sql": `SELECT 'x' AS a, 1 AS b, 'one' AS v, 's1' AS first_seen`,
		"models/m.sql":   mergeModel,
	}))
	e.mustSucceed(e.build(asOf, nil))
	before := e.fingerprint("m")
	e.write(map[string]string{"models/src.sql": `SELECT 'x' AS a, 1 AS b, 'p' AS v, 's2' AS first_seen UNION ALL SELECT 'x', 1, 'q', 's2' UNION ALL SELECT 'y', 2, 'new', 's2'`})
	res := e.build(asOf, nil)
	u := e.unit(res, "m")
	if u.Status != "failed" || !strings.Contains(u.Error, "batch_unique_key(a, b)") || !strings.Contains(u.Error, "n=2") {
		t.Fatalf("unit: %s %s", u.Status, u.Error)
	}
	equal(t, "m after the refused batch", e.fingerprint("m"), before)
}

// merge_exclude_columns keeps the excluded column of matched rows.
func mergeExclude(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/src.sql": `SELECT 'x' AS a, 1 AS b, 'one' AS v, 's1' AS first_seen`,
		"models/m.sql":   mergeModel,
	}))
	e.mustSucceed(e.build(asOf, nil))
	e.write(map[string]string{"models/src.sql": `SELECT 'x' AS a, 1 AS b, 'ONE' AS v, 's2' AS first_seen UNION ALL SELECT 'y', 2, 'two', 's2'`})
	e.mustSucceed(e.build(asOf, nil))
	equal(t, "m", e.fingerprint("m"), "x\t1\tONE\ts1\ny\t2\ttwo\ts2")
}

// An empty partition fails min_rows.
func emptyPartition(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/daily.sql": strings.Replace(dailyModel, "[checks]", "[checks]\nmin_rows = 1", 1),
	}))
	res := e.build("2026-07-06T00:00:00Z", nil)
	if u := e.unit(res, "daily/2026-07-05"); u.Status != "failed" || !strings.Contains(u.Error, "min_rows(1)") {
		t.Fatalf("unit: %s %s", u.Status, u.Error)
	}
	if u := e.unit(res, "daily/2026-07-04"); u.Status != "succeeded" {
		t.Fatalf("2026-07-04: %s", u.Error)
	}
}

// on_schema_change: fail, append_new_columns, sync_all_columns.
func schemaChange(t *testing.T, tgt Target) {
	model := func(extra, cols string) string {
		return "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n" + extra + "*/\nSELECT " + cols + " FROM {{ source(\"raw\", \"events\") }} WHERE d >= {{ start }} AND d < {{ end }}"
	}
	e := newEnv(t, tgt, base(map[string]string{"models/daily.sql": model("", "id, d, amount")}))
	e.mustSucceed(e.build(asOf, nil))
	e.write(map[string]string{"models/daily.sql": model("", "id, d, amount, user_id")})
	res := e.build(asOf, nil)
	if u := e.unit(res, "daily/2026-07-01"); u.Status != "failed" || !strings.Contains(u.Error, "new columns user_id") {
		t.Fatalf("fail mode: %s %s", u.Status, u.Error)
	}
	e.write(map[string]string{"models/daily.sql": model("on_schema_change = \"append_new_columns\"\n", "id, d, amount, user_id")})
	e.mustSucceed(e.build(asOf, nil))
	if got := columns(e, "daily"); got != "id,d,amount,user_id" {
		t.Fatalf("after append_new_columns: %s", got)
	}
	e.write(map[string]string{"models/daily.sql": model("on_schema_change = \"sync_all_columns\"\n", "id, d, user_id")})
	e.mustSucceed(e.build(asOf, nil))
	if got := columns(e, "daily"); got != "id,d,user_id" {
		t.Fatalf("after sync_all_columns: %s", got)
	}
}

// A watermark model rerun with the same --as-of reads the same window.
func watermarkReread(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/dim.sql": `/* idemc
materialized = "incremental"
unique_key = "id"
watermark = { column = "updated_at", lag = "5m", overlap = "1h" }
*/
SELECT id, name, updated_at FROM {{ source("raw", "users") }}
WHERE updated_at >= {{ watermark_start }} AND updated_at < {{ watermark_end }}`,
	}))
	at := "2026-07-02T12:00:00Z"
	res := e.build(at, nil)
	e.mustSucceed(res)
	first := e.fingerprint("dim")
	if n := e.unit(res, "dim").Rows; n != 2 {
		t.Fatalf("first read %d rows, want 2", n)
	}
	// A row newer than as_of arrives: the rerun with the same as_of reads
	// the same window and leaves the new row for later.
	e.write(map[string]string{"seeds/users.csv": usersCSV + "4,Di,2026-07-09 10:00:00,9\n"})
	res = e.build(at, nil)
	e.mustSucceed(res)
	if n := e.unit(res, "dim").Rows; n != 1 {
		t.Fatalf("reread %d rows, want the 1 row of the overlap", n)
	}
	equal(t, "dim after the reread", e.fingerprint("dim"), first)
	res = e.build("2026-07-03T00:00:00Z", nil)
	e.mustSucceed(res)
	if got := len(e.query("SELECT 1 FROM " + e.rel("dim"))); got != 3 {
		t.Fatalf("dim has %d rows at 2026-07-03, want 3 (the 2026-07-09 row is not due)", got)
	}
}

// Two builds of the same partition at once: no duplicate rows, and the one
// that waited (or, on a single-writer engine, was locked out) says so. The
// first runs in a child process that pauses while it holds the unit.
func concurrentRuns(t *testing.T, tgt Target) {
	if !unitLocked(tgt.Engine) {
		t.Fatalf("%s takes no unit lock: two runs of one unit would not be serialized", tgt.Engine)
	}
	e := newEnv(t, tgt, base(nil))
	e.mustSucceed(e.build(asOf, nil))
	// Pause the first build while it holds the unit: after its lock, or
	// after BEGIN on an engine whose lock is the whole database file.
	hold := "lock"
	if !tgt.Concurrent {
		hold = "begin"
	}
	// The second build starts once the child holds the unit (a fixed
	// head start failed under load: the child had not reached its lock),
	// and the child lets go a few seconds later, while the second build
	// waits on the lock (DuckDB's is refused at once: released after it).
	release := filepath.Join(t.TempDir(), "release")
	child := e.startChild(asOf, "2026-07-02", "await:daily/2026-07-02:"+hold+":"+release)
	defer os.WriteFile(release, nil, 0o644) // never leave the child waiting
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(release + ".reached"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatal("the first build did not reach its " + hold + " within 3 minutes")
		}
	}
	if tgt.Concurrent {
		go func() {
			time.Sleep(3 * time.Second)
			_ = os.WriteFile(release, nil, 0o644)
		}()
	}
	res, err := e.buildErr(asOf, func(o *compiler.Options) { o.Partition = "2026-07-02"; o.Seeds = false })
	_ = os.WriteFile(release, nil, 0o644)
	if werr := child.Wait(); werr != nil {
		t.Fatalf("the first build failed: %v", werr)
	}
	if got := len(e.query("SELECT 1 FROM " + e.rel("daily"))); got != 7 {
		t.Fatalf("daily has %d rows after two concurrent builds, want 7", got)
	}
	switch {
	case err != nil:
		if tgt.Concurrent || !strings.Contains(err.Error(), "locked by another run") {
			t.Fatalf("second build: %v", err)
		}
	case !tgt.Concurrent:
		t.Fatal("the second build was not locked out")
	default:
		e.mustSucceed(res)
		if u := e.unit(res, "daily/2026-07-02"); !strings.Contains(u.Note, "waited") {
			t.Fatalf("the second build did not say it waited: %q", u.Note)
		}
	}
}

// Column names with spaces, quotes and reserved words are quoted everywhere.
func specialNames(t *testing.T, tgt Target) {
	ad, _ := adapters.Lookup(tgt.Engine)
	q := ad.Dialect.Quote
	model := "/* idemc\nmaterialized = \"incremental\"\nstrategy = \"merge\"\nunique_key = [\"select\", \"my key\"]\n[checks]\nunique = [\"select\", \"my key\"]\nnot_null = [\"from\"]\n*/\nSELECT 1 AS " + q("select") + ", 'k' AS " + q("my key") + ", 'v' AS " + q("from") + ", 2 AS " + q(`it's "odd"`)
	e := newEnv(t, tgt, base(map[string]string{"models/odd.sql": model}))
	e.mustSucceed(e.build(asOf, nil))
	e.mustSucceed(e.build(asOf, nil))
	if got := len(e.query("SELECT 1 FROM " + e.rel("odd"))); got != 1 {
		t.Fatalf("odd has %d rows, want 1", got)
	}
}

func columns(e *env, table string) string {
	cols := e.columnsOf(table)
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = strings.ToLower(c.name)
	}
	return strings.Join(out, ",")
}

func flatten(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, ",")
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A build right after a successful one, with the same inputs and logical
// time, issues no statement that could write; a change to one model reruns
// that model and what depends on it, and nothing else.
func upToDate(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/users_dim.sql": `/* idemc
materialized = "incremental"
unique_key = "id"
watermark = { column = "updated_at" }
*/
SELECT id, name, updated_at FROM {{ source("raw", "users") }}
WHERE updated_at >= {{ watermark_start }} AND updated_at < {{ watermark_end }}`,
		"models/totals.sql": `/* idemc
materialized = "table"
*/
SELECT user_id, count(*) AS n FROM {{ ref("daily") }} GROUP BY user_id`,
		"models/other.sql": `/* idemc
materialized = "table"
*/
SELECT id, name FROM {{ ref("users_dim") }}`,
		"models/v.sql": `SELECT id FROM {{ ref("daily") }}`,
	}))
	e.mustSucceed(e.build(asOf, nil))
	res := e.build(asOf, nil)
	e.mustSucceed(res)
	if len(res.Units) != 0 || res.Statements != 0 {
		t.Fatalf("the second build ran %d units and %d statements, want none", len(res.Units), res.Statements)
	}
	if res.UpToDate != 10 { // 2 seeds, 4 daily partitions, users_dim, totals, other, v
		t.Fatalf("%d units up to date, want 10", res.UpToDate)
	}
	// Change daily: its partitions, totals (a table reading it) rerun; the
	// view v reads daily as it is; users_dim and other do not depend on it.
	e.write(map[string]string{"models/daily.sql": strings.Replace(dailyModel, "WHERE d >=", "WHERE amount >= 0 AND d >=", 1)})
	res = e.build(asOf, func(o *compiler.Options) {})
	e.mustSucceed(res)
	var ran []string
	for _, u := range res.Units {
		ran = append(ran, u.ID)
	}
	got := strings.Join(ran, " ")
	for _, want := range []string{"daily/2026-07-01", "daily/2026-07-04", "totals"} {
		if !strings.Contains(got, want) {
			t.Errorf("after changing daily, %s did not run (ran %s)", want, got)
		}
	}
	for _, not := range []string{"users_dim", "other", "events", "users"} {
		for _, id := range ran {
			if id == not {
				t.Errorf("after changing daily, %s ran too (ran %s)", not, got)
			}
		}
	}
}

// viewModel is a view with an accepted_values check; bad, when set, is a
// user_id its SQL puts on row 7.
func viewModel(bad string) string {
	col := "user_id"
	if bad != "" {
		col = "CASE WHEN id = 7 THEN '" + bad + "' ELSE user_id END AS user_id"
	}
	return "/* idemc\nmaterialized = \"view\"\n[checks]\naccepted_values = { user_id = [\"a\", \"b\", \"c\"] }\n*/\nSELECT id, " + col + " FROM {{ ref(\"daily\") }}"
}

// A view's checks run in build right after the view is replaced (DESIGN
// §8): a failing one fails the view and skips what reads it. Where DDL is
// transactional the previous view stays; where it commits on its own the
// new view stays, marked failed, so the next build reruns it.
func viewChecks(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/vc.sql": viewModel(""),
		"models/vt.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT user_id, count(*) AS n FROM {{ ref(\"vc\") }} GROUP BY user_id",
	}))
	e.mustSucceed(e.build(asOf, nil))
	before, table := e.fingerprint("vc"), e.fingerprint("vt")
	e.write(map[string]string{"models/vc.sql": viewModel("zz")})
	for i := 0; i < 2; i++ { // failed, it runs (and fails) again
		res := e.build(asOf, nil)
		u := e.unit(res, "vc")
		if u.Status != "failed" || !strings.Contains(u.Error, "check accepted_values(user_id) failed") || !strings.Contains(u.Error, "zz") {
			t.Fatalf("build %d, view: %s %s", i+1, u.Status, u.Error)
		}
		if v := e.unit(res, "vt"); v.Status != "skipped" || v.SkippedBy != "vc" {
			t.Fatalf("build %d, table reading the view: %s (because %q)", i+1, v.Status, v.SkippedBy)
		}
	}
	ad, _ := adapters.Lookup(tgt.Engine)
	if ad.Capabilities.TransactionalDDL {
		equal(t, "the view after its failed check", e.fingerprint("vc"), before)
	} else if got := e.fingerprint("vc"); !strings.Contains(got, "zz") {
		t.Fatalf("DDL commits on its own here: the new view should be in place, got\n%s", got)
	}
	equal(t, "the table reading the view", e.fingerprint("vt"), table)
	if st := e.auditStatuses("vc"); st[len(st)-1] != ":failed" {
		t.Fatalf("audit: %v", st)
	}
	e.write(map[string]string{"models/vc.sql": viewModel("a")})
	res := e.build(asOf, nil)
	e.mustSucceed(res)
	if e.unit(res, "vt").Status != "succeeded" || !strings.Contains(e.fingerprint("vt"), "a\t4") {
		t.Fatalf("after the fix: vt %s\n%s", e.unit(res, "vt").Status, e.fingerprint("vt"))
	}
}
