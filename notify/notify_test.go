package notify_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/duckdb"
	_ "github.com/idemc/idemc/adapters/mysql"
	_ "github.com/idemc/idemc/adapters/postgres"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/notify"
	"github.com/idemc/idemc/runner"
	"github.com/jackc/pgx/v5"
)

// receiver is a webhook endpoint that counts deliveries by webhook-id and
// can be told to fail the next n requests.
type receiver struct {
	mu      sync.Mutex
	got     map[string]int    // webhook-id → deliveries
	bodies  map[string]string // webhook-id → last body
	failN   int
	onEvery func() // after each accepted request
	srv     *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: map[string]int{}, bodies: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.failN > 0 {
			r.failN--
			http.Error(w, "down for maintenance", http.StatusInternalServerError)
			return
		}
		id := req.Header.Get("webhook-id")
		if id == "" || req.Header.Get("Idempotency-Key") != id || req.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "missing headers", http.StatusBadRequest)
			return
		}
		r.got[id]++
		r.bodies[id] = string(b)
		if r.onEvery != nil {
			r.onEvery()
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// events lists the event names received, one per distinct id, sorted.
func (r *receiver) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id, b := range r.bodies {
		var p struct{ Event, Model, Partition string }
		_ = json.Unmarshal([]byte(b), &p)
		out = append(out, p.Event+" "+p.Model+" "+p.Partition+" x"+itoa(r.got[id]))
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func projectFiles(target, url string) map[string]string {
	return map[string]string{
		"project.toml": `name = "n"
default_target = "` + target + `"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
[targets.pg]
engine = "postgres"
dsn = "${IDEMC_PG_DSN}"
schema = "${NOTIFY_SCHEMA}"
[targets.mysql]
engine = "mysql"
dsn = "${IDEMC_MYSQL_DSN}"
schema = "${NOTIFY_SCHEMA}"

[[notify]]
name = "ready"
on = "partition_succeeded"
select = "daily"
url = "` + url + `"
headers = { Authorization = "Bearer ${HOOK_TOKEN}" }

[[notify]]
name = "failures"
on = "unit_failed"
url = "` + url + `"
headers = { Authorization = "Bearer ${HOOK_TOKEN}" }
`,
		"models/daily.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT d FROM (SELECT DATE '2026-07-01' AS d UNION ALL SELECT DATE '2026-07-02' UNION ALL SELECT DATE '2026-07-03') t
WHERE d >= {{ start }} AND d < {{ end }}
`,
		"models/bad.sql": "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 5\n*/\nSELECT 1 AS x\n",
	}
}

func build(t *testing.T, p *project.Project, asOf string, o compiler.Options) {
	t.Helper()
	o.Models = true
	o.AsOf, _ = time.Parse(time.RFC3339, asOf)
	if _, err := runner.Build(context.Background(), p, runner.Options{Compile: o}); err != nil {
		t.Fatal(err)
	}
}

func pass(t *testing.T, p *project.Project, o notify.Options) notify.Summary {
	t.Helper()
	sum, err := notify.Pass(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestNotifyOnce: each published partition and each failure is delivered
// once; a failed check publishes no success; notifying again, a no-op build
// and an identical forced rebuild send nothing; a 500 is retried until the
// endpoint takes it, the event pending meanwhile.
func TestNotifyOnce(t *testing.T) {
	t.Setenv("HOOK_TOKEN", "s3cret")
	rc := newReceiver(t)
	dir := testtree.Write(t, projectFiles("local", rc.srv.URL))
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := notify.Options{RetryBase: time.Millisecond}
	build(t, p, "2026-07-03T00:00:00Z", compiler.Options{})
	if s := pass(t, p, o); s.Created != 3 || s.Delivered != 3 {
		t.Fatalf("first pass: %+v", s)
	}
	want := []string{"partition_succeeded daily 2026-07-01 x1", "partition_succeeded daily 2026-07-02 x1", "unit_failed bad  x1"}
	if got := rc.events(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("received %q, want %q", got, want)
	}

	if s := pass(t, p, o); s.Created != 0 || s.Delivered != 0 {
		t.Fatalf("second pass created or sent: %+v", s)
	}
	build(t, p, "2026-07-03T00:00:00Z", compiler.Options{Select: []string{"daily"}})
	build(t, p, "2026-07-03T00:00:00Z", compiler.Options{Select: []string{"daily"}, FullRefresh: true})
	if s := pass(t, p, o); s.Created != 0 || s.Delivered != 0 {
		t.Fatalf("after a no-op build and an identical forced rebuild: %+v", s)
	}

	// A new partition while the endpoint is down: failed, pending, then
	// delivered once it is back.
	rc.mu.Lock()
	rc.failN = 1
	rc.mu.Unlock()
	build(t, p, "2026-07-04T00:00:00Z", compiler.Options{Select: []string{"daily"}})
	if s := pass(t, p, o); s.Created != 1 || s.Failed != 1 {
		t.Fatalf("pass with the endpoint down: %+v", s)
	}
	pending, err := notify.Pending(context.Background(), p, "")
	if err != nil || len(pending) != 1 || pending[0].Attempts != 1 || !strings.Contains(pending[0].LastError, "500") {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	time.Sleep(5 * time.Millisecond)
	if s := pass(t, p, o); s.Delivered != 1 {
		t.Fatalf("pass with the endpoint back: %+v", s)
	}
	if got := rc.events(); len(got) != 4 || got[2] != "partition_succeeded daily 2026-07-03 x1" {
		t.Fatalf("received %q", got)
	}
	if pending, _ := notify.Pending(context.Background(), p, ""); len(pending) != 0 {
		t.Fatalf("still pending: %+v", pending)
	}
}

// TestNotifyCrashAfterSend: an observer that stops after the endpoint took
// an event but before marking it (its context ends there) leaves it to the
// next pass once the lease has run out: the endpoint sees the same id
// again, never a new one.
func TestNotifyCrashAfterSend(t *testing.T) {
	t.Setenv("HOOK_TOKEN", "s3cret")
	rc := newReceiver(t)
	dir := testtree.Write(t, projectFiles("local", rc.srv.URL))
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	build(t, p, "2026-07-02T00:00:00Z", compiler.Options{Select: []string{"daily"}})
	ctx, cancel := context.WithCancel(context.Background())
	rc.onEvery = cancel // "killed" right after the first delivery
	lease := 50 * time.Millisecond
	if _, err := notify.Pass(ctx, p, notify.Options{Lease: lease}); err == nil {
		t.Fatal("the interrupted pass did not report its interruption")
	}
	rc.onEvery = nil
	time.Sleep(2 * lease)
	if s := pass(t, p, notify.Options{Lease: lease}); s.Delivered != 1 {
		t.Fatalf("the next pass: %+v", s)
	}
	if got := rc.events(); len(got) != 1 || got[0] != "partition_succeeded daily 2026-07-01 x2" {
		t.Fatalf("received %q: want one id, delivered twice", got)
	}
}

// TestNotifyTwoObservers: two observers at once on PostgreSQL and MariaDB
// deliver every event exactly once between them (a lease per outbox row).
func TestNotifyTwoObservers(t *testing.T) {
	for _, tc := range []struct{ target, env string }{{"pg", "IDEMC_PG_DSN"}, {"mysql", "IDEMC_MYSQL_DSN"}} {
		t.Run(tc.target, func(t *testing.T) {
			if os.Getenv(tc.env) == "" {
				if os.Getenv("IDEMC_REQUIRE_LIVE") != "" {
					t.Fatalf("%s is not set and IDEMC_REQUIRE_LIVE is: start the server with scripts/services.sh", tc.env)
				}
				t.Skipf("%s not set: run scripts/services.sh for the live test", tc.env)
			}
			twoObservers(t, tc.target)
		})
	}
}

func twoObservers(t *testing.T, target string) {
	schema := "notify_" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
	t.Setenv("NOTIFY_SCHEMA", schema)
	t.Setenv("HOOK_TOKEN", "s3cret")
	rc := newReceiver(t)
	dir := testtree.Write(t, projectFiles(target, rc.srv.URL))
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer dropSchema(t, target, schema)
	build(t, p, "2026-07-04T00:00:00Z", compiler.Options{})
	// Slow deliveries, so the two passes overlap.
	rc.onEvery = func() { time.Sleep(30 * time.Millisecond) }
	var wg sync.WaitGroup
	sums := make([]notify.Summary, 2)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := notify.Pass(context.Background(), p, notify.Options{})
			if err != nil {
				t.Error(err)
			}
			sums[i] = s
		}()
	}
	wg.Wait()
	if sums[0].Delivered+sums[1].Delivered != 4 {
		t.Fatalf("delivered %d + %d, want 4 in all", sums[0].Delivered, sums[1].Delivered)
	}
	for _, e := range rc.events() {
		if !strings.HasSuffix(e, " x1") {
			t.Errorf("delivered more than once: %s", e)
		}
	}
}

func dropSchema(t *testing.T, target, schema string) {
	ctx := context.Background()
	if target == "mysql" {
		db, err := sql.Open("mysql", os.Getenv("IDEMC_MYSQL_DSN"))
		if err == nil {
			_, err = db.ExecContext(ctx, "DROP DATABASE `"+schema+"`")
			db.Close()
		}
		if err != nil {
			t.Log(err)
		}
		return
	}
	conn, err := pgx.Connect(ctx, os.Getenv("IDEMC_PG_DSN"))
	if err != nil {
		t.Log(err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP SCHEMA "`+schema+`" CASCADE`); err != nil {
		t.Log(err)
	}
}
