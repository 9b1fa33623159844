// Package conformance is the one suite of scenarios that every live engine
// runs (DESIGN §12): rerun = same state, failures and crashes leave the
// previous state, merges are null-safe, bad batches are refused before
// writing, schema changes, watermarks, concurrent runs and hostile column
// names. Each engine's tests call Run with a Target.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// Target is a live engine under test.
type Target struct {
	// Engine is the registered engine name.
	Engine string
	// Settings returns the target's settings (dsn, path…) for one scenario;
	// dir is the scenario's project folder.
	Settings func(dir string) map[string]string
	// Concurrent: two processes can write at once (the second waits on the
	// unit's lock). False for DuckDB, where the second is refused.
	Concurrent bool
	// Skip names the scenarios (Scenarios; on_schema_change's subtests as
	// "on_schema_change/NAME") the target cannot run, with why: an
	// emulator's limits.
	Skip map[string]string
	// Parallel: the scenarios, and on_schema_change's cases, each on
	// schemas of its own, run at once (live Spark: a build mostly waits on
	// Delta commits).
	Parallel bool
}

// runCase runs one case of a scenario as a subtest, at once with its
// siblings when tgt.Parallel (a case must then leave the environment
// alone: no t.Setenv).
func (tgt Target) runCase(t *testing.T, name string, f func(t *testing.T)) {
	tgt.run(t, name, func(t *testing.T) {
		if tgt.Parallel {
			t.Parallel()
		}
		f(t)
	})
}

// run runs one scenario of tgt as a subtest, or skips it with tgt.Skip's
// reason.
func (tgt Target) run(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		if why, ok := tgt.Skip[t.Name()[strings.Index(t.Name(), "/")+1:]]; ok {
			t.Skip(why)
		}
		f(t)
	})
}

// Scenario names, for the conformance matrix.
var Scenarios = []string{
	"rerun_same_state", "failed_check_previous_state", "failed_insert_previous_state",
	"crash_mid_unit", "merge_null_keys", "duplicate_batch_keys", "merge_exclude_columns",
	"empty_partition_min_rows", "on_schema_change", "watermark_reread", "concurrent_runs",
	"special_column_names", "up_to_date_no_writes", "sound_state", "default_schema", "view_checks",
	"interrupt_mid_statement", "materialization_change", "row_lineage",
}

// childEnv marks a child process started by the crash scenario.
const childEnv = "IDEMC_CONFORMANCE_CHILD"

// MaybeChild must be called first in the engine test's TestMain: in a child
// process started by the crash scenario it runs one build (which kills
// itself through IDEMC_FAULT) and exits.
func MaybeChild() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	parts := strings.SplitN(spec, "|", 3) // dir|as_of|partition
	p, err := project.Load(parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	asOf, _ := time.Parse(time.RFC3339, parts[1])
	opts := compiler.Options{AsOf: asOf, Models: true, Seeds: true}
	if len(parts) == 3 && parts[2] != "" {
		opts.Partition, opts.Seeds = parts[2], false
	}
	opts.FullRefresh = os.Getenv(childFullRefreshEnv) == "1"
	res, err := runner.Build(context.Background(), p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: opts, Threads: 1})
	if err != nil || !res.OK() {
		fmt.Fprintln(os.Stderr, "child build failed:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Run runs every scenario against the target, at once (two at a time, Go's
// -test.parallel) when tgt.Parallel: every scenario has schemas of its own
// and leaves the process environment alone.
func Run(t *testing.T, tgt Target) {
	tgt.runCase(t, "rerun_same_state", func(t *testing.T) { rerunSameState(t, tgt) })
	tgt.runCase(t, "failed_check_previous_state", func(t *testing.T) { failedCheck(t, tgt) })
	tgt.runCase(t, "failed_insert_previous_state", func(t *testing.T) { failedInsert(t, tgt) })
	tgt.runCase(t, "crash_mid_unit", func(t *testing.T) { crashMidUnit(t, tgt) })
	tgt.runCase(t, "merge_null_keys", func(t *testing.T) { mergeNullKeys(t, tgt) })
	tgt.runCase(t, "duplicate_batch_keys", func(t *testing.T) { duplicateBatchKeys(t, tgt) })
	tgt.runCase(t, "merge_exclude_columns", func(t *testing.T) { mergeExclude(t, tgt) })
	tgt.runCase(t, "empty_partition_min_rows", func(t *testing.T) { emptyPartition(t, tgt) })
	tgt.runCase(t, "on_schema_change", func(t *testing.T) {
		tgt.runCase(t, "columns", func(t *testing.T) { schemaChange(t, tgt) })
		schemaTypeChanges(t, tgt)
	})
	tgt.runCase(t, "watermark_reread", func(t *testing.T) { watermarkReread(t, tgt) })
	tgt.runCase(t, "concurrent_runs", func(t *testing.T) { concurrentRuns(t, tgt) })
	tgt.runCase(t, "special_column_names", func(t *testing.T) { specialNames(t, tgt) })
	tgt.runCase(t, "up_to_date_no_writes", func(t *testing.T) { upToDate(t, tgt) })
	tgt.runCase(t, "sound_state", func(t *testing.T) { soundState(t, tgt) })
	tgt.runCase(t, "default_schema", func(t *testing.T) { defaultSchema(t, tgt) })
	tgt.runCase(t, "view_checks", func(t *testing.T) { viewChecks(t, tgt) })
	tgt.runCase(t, "interrupt_mid_statement", func(t *testing.T) { interruptMidStatement(t, tgt) })
	tgt.runCase(t, "materialization_change", func(t *testing.T) { matTransitions(t, tgt) })
	tgt.runCase(t, "row_lineage", func(t *testing.T) { rowLineage(t, tgt) })
}

// env is one scenario's project: a folder, a schema of its own and a
// connection for reading results.
type env struct {
	t      *testing.T
	tgt    Target
	dir    string
	schema string
	d      adapters.Dialect
	// fault is an IDEMC_FAULT rule for the in-process builds (set: it
	// replaces the environment's, which lanes of trials running at once
	// cannot share).
	fault string
}

var schemaSeq struct {
	sync.Mutex
	n int
}

func newEnv(t *testing.T, tgt Target, files map[string]string) *env {
	t.Helper()
	schemaSeq.Lock()
	schemaSeq.n++
	schema := fmt.Sprintf("idemc_c%d_%d", os.Getpid()%100000, schemaSeq.n)
	schemaSeq.Unlock()
	e := &env{t: t, tgt: tgt, dir: t.TempDir(), schema: schema}
	ad, ok := adapters.Lookup(tgt.Engine)
	if !ok {
		t.Fatalf("engine %s is not registered", tgt.Engine)
	}
	e.d = ad.Dialect
	var b strings.Builder
	b.WriteString(e.targetToml(fmt.Sprintf("schema = %q\n", schema)))
	fmt.Fprintf(&b, "[sources.raw]\nschema = %q\ntables = [\"events\", \"users\"]\n[seeds]\nschema = %q\n", schema+"_raw", schema+"_raw")
	files["project.toml"] = b.String()
	e.write(files)
	t.Cleanup(e.dropSchemas)
	return e
}

// targetToml is the head of project.toml: the project and its target t with
// the given schema lines and the engine's settings.
func (e *env) targetToml(schemaLines string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"conformance\"\ndefault_target = \"t\"\n[targets.t]\nengine = %q\n%s", e.tgt.Engine, schemaLines)
	settings := e.tgt.Settings(e.dir)
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %q\n", k, settings[k])
	}
	return b.String()
}

func (e *env) write(files map[string]string) {
	for name, text := range files {
		path := filepath.Join(e.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

// build runs idemc build in process and returns the result.
func (e *env) build(asOf string, mod func(*compiler.Options)) *runner.Result {
	e.t.Helper()
	res, err := e.buildErr(asOf, mod)
	if err != nil {
		e.t.Fatalf("build: %v", err)
	}
	return res
}

// buildErr is build returning the run's error (bad input, locked target).
func (e *env) buildErr(asOf string, mod func(*compiler.Options)) (*runner.Result, error) {
	p, err := project.Load(e.dir)
	if err != nil {
		return nil, err
	}
	at, err := time.Parse(time.RFC3339, asOf)
	if err != nil {
		return nil, err
	}
	opts := compiler.Options{AsOf: at, Models: true, Seeds: true}
	if mod != nil {
		mod(&opts)
	}
	hook := faultinject.FromEnv()
	if e.fault != "" {
		hook = faultinject.Parse(e.fault)
	}
	ro := runner.Options{AfterStep: hook, Compile: opts, Threads: 4}
	if os.Getenv("IDEMC_TRACE") != "" { // per-statement times, as idemc prints them
		ro.Trace = os.Stderr
	}
	return runner.Build(context.Background(), p, ro)
}

func (e *env) mustSucceed(res *runner.Result) {
	e.t.Helper()
	if !res.OK() {
		for _, u := range res.Units {
			if u.Error != "" {
				e.t.Errorf("%s: %s", u.ID, u.Error)
			}
		}
		e.t.FailNow()
	}
}

func (e *env) unit(res *runner.Result, id string) *runner.UnitResult {
	for _, u := range res.Units {
		if u.ID == id {
			return u
		}
	}
	e.t.Fatalf("no unit %s in the run", id)
	return nil
}

// traceHarness prints, with IDEMC_TRACE set, the time of a query the
// harness ran (a connection and a session of its own each): on Spark these
// are a visible share of a scenario's time.
func traceHarness(start time.Time, q string) {
	if os.Getenv("IDEMC_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "trace %-30s %-7s %8.1fms  %.100s\n", "harness", "query", float64(time.Since(start).Microseconds())/1000, q)
	}
}

// query runs a query on the target and returns its rows as text.
func (e *env) query(q string) [][]string {
	e.t.Helper()
	rows, err := e.tryQuery(q)
	if err != nil {
		e.t.Fatalf("%v\n%s", err, q)
	}
	return rows
}

func (e *env) rel(name string) string {
	return e.d.Qualify(plan.Relation{Schema: e.schema, Name: name})
}

// fingerprint is a table's rows, sorted: equal fingerprints, equal content.
func (e *env) fingerprint(table string) string {
	rows := e.query("SELECT * FROM " + e.rel(table))
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, "\t")
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// auditStatuses is one "partition:status" per unit attempt: an append-only
// audit (Spark) records an attempt as a running row and a final row, an
// updating one as a single row; both read as the final status, "running"
// while there is none.
func (e *env) auditStatuses(job string) []string {
	rows := e.query(fmt.Sprintf(`SELECT partition_key, COALESCE(MAX(CASE WHEN status <> 'running' THEN status END), 'running') AS status, MIN(started_at) AS first_start
FROM %s WHERE job_name = %s
GROUP BY run_id, partition_key, attempt
ORDER BY partition_key, attempt, first_start`, e.rel("idemc_audit"), e.d.String(job)))
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0] + ":" + r[1]
	}
	return out
}

func (e *env) dropSchemas() {
	if e.tgt.Engine == "duckdb" {
		return // the file lives in the test's temporary folder
	}
	ad, _ := adapters.Lookup(e.tgt.Engine)
	eng, err := ad.Open(context.Background(), e.tgt.Settings(e.dir))
	if err != nil {
		return
	}
	defer eng.Close()
	s, err := eng.Session(context.Background())
	if err != nil {
		return
	}
	defer s.Close()
	for _, sc := range []string{e.schema, e.schema + "_raw"} {
		q := "DROP SCHEMA IF EXISTS " + e.d.Quote(sc)
		if v, ok := e.d.(adapters.Verifier); ok {
			q = v.DropSchema(sc) // with CASCADE where a schema's tables need it
		}
		_, _ = adapters.ExecSQL(context.Background(), s, q)
	}
}

func equal(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s:\n got: %q\nwant: %q", what, got, want)
	}
}

// startChild starts a build in a child process (the test binary, through
// MaybeChild) with IDEMC_FAULT set.
func (e *env) startChild(asOf, partition, fault string) *exec.Cmd {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+e.dir+"|"+asOf+"|"+partition, "IDEMC_FAULT="+fault)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	return cmd
}

// crashChild runs a build in a child process that SIGKILLs itself after the
// given step of the given unit.
func (e *env) crashChild(asOf, fault string) {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+e.dir+"|"+asOf+"|", "IDEMC_FAULT="+fault)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 {
		e.t.Fatalf("the child was not killed (err %v):\n%s", err, out)
	}
}

// Live returns the DSN of a live server from the environment variable, or
// the default for this machine. When the server does not answer, the test
// is skipped with a message, or fails when IDEMC_REQUIRE_LIVE=1 (CI).
func Live(t *testing.T, engine, envVar, fallback string) string {
	t.Helper()
	dsn := os.Getenv(envVar)
	if dsn == "" {
		dsn = fallback
	}
	ad, ok := adapters.Lookup(engine)
	if !ok {
		t.Fatalf("engine %s is not registered", engine)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	eng, err := ad.Open(ctx, map[string]string{"dsn": dsn})
	if err != nil {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatalf("%s is required (IDEMC_REQUIRE_LIVE=1) but does not answer: %v", engine, err)
		}
		t.Skipf("%s does not answer (%v): set %s or start the server; IDEMC_REQUIRE_LIVE=1 makes this a failure", engine, err, envVar)
	}
	eng.Close()
	return dsn
}

// LiveIfSet is Live for a server that CI starts only when asked (Spark
// Connect, whose server scripts/services.sh spark sets up): the variable
// unset, ok is false and the caller skips; set, the server must answer
// when IDEMC_REQUIRE_LIVE=1, and otherwise ok is false with the reason
// logged.
func LiveIfSet(t *testing.T, engine, envVar string) (dsn string, ok bool) {
	t.Helper()
	dsn = os.Getenv(envVar)
	if dsn == "" {
		t.Logf("%s: %s is not set (scripts/services.sh spark starts a local server and prints it)", engine, envVar)
		return "", false
	}
	ad, found := adapters.Lookup(engine)
	if !found {
		t.Fatalf("engine %s is not registered", engine)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng, err := ad.Open(ctx, map[string]string{"dsn": dsn})
	if err != nil {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatalf("%s is required (IDEMC_REQUIRE_LIVE=1 and %s set) but does not answer: %v", engine, envVar, err)
		}
		t.Logf("%s does not answer (%v)", engine, err)
		return "", false
	}
	eng.Close()
	return dsn, true
}
