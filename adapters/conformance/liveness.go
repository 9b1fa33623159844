package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
)

// concurrentHeartbeat is concurrent_runs on an engine with no lock to wait
// on (Spark, Snowflake, BigQuery: runner heartbeats): the first build
// pauses right after writing its running row; a second build of the same
// partition, started meanwhile, must leave that row running (it used to
// mark it abandoned), and both end with the partition written once and
// the first run's row succeeded.
func concurrentHeartbeat(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(nil))
	e.mustSucceed(e.build(asOf, nil))
	const unit = "daily/2026-07-02"
	// The child holds the unit until the second build is over: release
	// is created then (a fixed pause had to cover Spark's slowest build).
	release := filepath.Join(t.TempDir(), "release")
	child := e.startChild(asOf, "2026-07-02", "await:"+unit+":audit_start:"+release)
	defer os.WriteFile(release, nil, 0o644) // never leave the child waiting
	running := func() string {
		rows := e.query("SELECT run_id FROM " + e.rel("idemc_audit") + " WHERE job_name = 'daily' AND partition_key = '2026-07-02' AND status = 'running'")
		if len(rows) == 0 {
			return ""
		}
		return rows[0][0]
	}
	var first string
	for deadline := time.Now().Add(180 * time.Second); first == "" && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		first = running()
	}
	if first == "" {
		_ = child.Process.Kill()
		t.Fatal("the first build wrote no running row within 180 s")
	}
	res, err := e.buildErr(asOf, func(o *compiler.Options) { o.Partition = "2026-07-02"; o.Seeds = false })
	if err != nil {
		_ = child.Process.Kill()
		t.Fatalf("second build: %v", err)
	}
	e.mustSucceed(res)
	status := e.query("SELECT status FROM " + e.rel("idemc_audit") + " WHERE run_id = " + e.d.String(first) + " AND job_name = 'daily'")
	if len(status) != 1 || status[0][0] != "running" {
		_ = child.Process.Kill()
		t.Fatalf("the live first run's row is %v after the second build, want running (it has heartbeats)", status)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if werr := child.Wait(); werr != nil {
		t.Fatalf("the first build failed: %v", werr)
	}
	if got := len(e.query("SELECT 1 FROM " + e.rel("daily"))); got != 7 {
		t.Fatalf("daily has %d rows after two concurrent builds, want 7", got)
	}
	if got := strings.Join(e.query("SELECT status FROM " + e.rel("idemc_audit") + " WHERE run_id = " + e.d.String(first) + " AND job_name = 'daily'")[0], ""); got != "succeeded" {
		t.Fatalf("the first run's row ended %s, want succeeded", got)
	}
}

// unitLocked: the engine's recipes take a unit lock that a second run
// waits on (PostgreSQL, MySQL; DuckDB locks the file).
func unitLocked(engine string) bool {
	ad, ok := adapters.Lookup(engine)
	return ok && (ad.Capabilities.UnitLock || ad.Capabilities.SingleWriter)
}
