package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/testtree"
)

// notifyProject: five partitions of daily, each published partition
// POSTed to url.
func notifyProject(url string) map[string]string {
	return map[string]string{
		"project.toml": `name = "nk"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"

[[notify]]
name = "ready"
on = "partition_succeeded"
url = "` + url + `"
`,
		"models/daily.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT d FROM (SELECT DATE '2026-07-01' + CAST(i AS INTEGER) AS d FROM range(5) t(i)) t WHERE d >= {{ start }} AND d < {{ end }}
`,
	}
}

// hookCounter counts deliveries by webhook-id; kill, when set, is called
// with each request before it is answered.
type hookCounter struct {
	mu   sync.Mutex
	got  map[string]int
	kill func()
}

func (h *hookCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h.mu.Lock()
	h.got[r.Header.Get("webhook-id")]++
	kill := h.kill
	h.mu.Unlock()
	if kill != nil {
		kill()
	}
}

// TestNotifyKilled: observers killed (SIGKILL) after the endpoint received
// an event and before they marked it delivered; the passes after them
// send it again under the same id. The endpoint ends with exactly one id
// per event, and the outbox with every event delivered.
func TestNotifyKilled(t *testing.T) {
	h := &hookCounter{got: map[string]int{}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	dir := testtree.Write(t, notifyProject(srv.URL))
	if out, code := runIdemc(dir, "build", "--as-of", "2026-07-06T00:00:00Z"); code != 0 {
		t.Fatalf("build: %s", out)
	}
	const lease = "1s"
	kills := 0
	for trial := 0; trial < 3; trial++ {
		c := startIdemc(t, dir, "", "notify", "--lease", lease)
		h.mu.Lock()
		h.kill = func() { _ = syscall.Kill(c.cmd.Process.Pid, syscall.SIGKILL) }
		h.mu.Unlock()
		err := c.cmd.Wait()
		h.mu.Lock()
		h.kill = nil
		h.mu.Unlock()
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("trial %d: the observer was not killed: %v\n%s", trial, err, c.stderr.String())
		}
		kills++
		time.Sleep(1100 * time.Millisecond) // the dead observer's lease runs out
	}
	out, code := runIdemc(dir, "notify", "--lease", lease)
	if code != 0 || !strings.Contains(out, "0 failed") {
		t.Fatalf("the last pass: exit %d\n%s", code, out)
	}
	if out, _ := runIdemc(dir, "status", "--outbox"); !strings.Contains(out, "every event is delivered") {
		t.Fatalf("outbox after the last pass:\n%s", out)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0
	for id, n := range h.got {
		if id == "" {
			t.Errorf("a delivery without webhook-id")
		}
		total += n
	}
	if len(h.got) != 5 || total != 5+kills {
		t.Fatalf("endpoint saw %d distinct ids in %d deliveries, want 5 ids in %d (one repeat per kill): %v", len(h.got), total, 5+kills, h.got)
	}
	t.Logf("%d observers killed between send and mark: 5 events, %d deliveries, 5 distinct ids", kills, total)
}

// TestNotifyWaitsForBuild: a pass started while a build holds the DuckDB
// file waits for it, then delivers what the build published.
func TestNotifyWaitsForBuild(t *testing.T) {
	h := &hookCounter{got: map[string]int{}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	dir := testtree.Write(t, notifyProject(srv.URL))
	b := startIdemc(t, dir, "sleep:*:audit_finish:1500ms", "build", "--as-of", "2026-07-03T00:00:00Z", "--threads", "1")
	b.waitFor(t, "[1/2]") // the first partition is written; the second sleeps, holding the file
	out, code := runIdemc(dir, "notify", "--wait", "30s")
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("build: %v\n%s", err, b.stderr.String())
	}
	if code != 0 || !strings.Contains(out, "waiting: a build holds the target") || !strings.Contains(out, "2 delivered") {
		t.Fatalf("notify during a build: exit %d\n%s", code, out)
	}
}

// runIdemc runs the command in process on the project in dir: its output
// (stdout and stderr) and exit code.
func runIdemc(dir string, args ...string) (string, int) {
	var out strings.Builder
	code := run(append(args, "--project", dir), &out, &out)
	return out.String(), code
}
