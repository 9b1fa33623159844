package runner

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/internal/httpsource/testapi"
	"github.com/idemc/idemc/internal/testtree"
)

func ingest(t *testing.T, dir string, progress *bytes.Buffer) *Result {
	t.Helper()
	opts := compiler.Options{HTTP: true, Select: []string{"orders_api"}, AsOf: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)}
	ro := Options{Compile: opts, Threads: 1, HTTPRetryBase: time.Millisecond}
	if progress != nil {
		ro.Progress, ro.Out = progress, &bytes.Buffer{}
	}
	res, err := Build(context.Background(), loadProject(t, dir), ro)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func countRows(t *testing.T, dir string) int {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM main.orders_api").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHTTPMalformedPageKeepsCommittedPages: a page that is not JSON fails
// the unit naming the page; the pages before it stay committed with their
// ledger rows, so the rerun asks for them conditionally and lands the rest.
// A terminal sees the pages, records and bytes as they land.
func TestHTTPMalformedPageKeepsCommittedPages(t *testing.T) {
	api := testapi.New(500, 100)
	url, stop := api.Start()
	defer stop()
	dir := testtree.Write(t, map[string]string{"project.toml": fmt.Sprintf(`name = "h"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
[http.orders_api]
url = "%s/json/orders"
records = "data"
primary_key = ["id"]
next = "json:links.next"
`, url)})
	api.Malform(3, 1)
	res := ingest(t, dir, nil)
	u := res.Units[0]
	if u.Status != StatusFailed || !strings.Contains(u.Error, "page=3: the body is not JSON") {
		t.Fatalf("unit %+v, want a failure naming page 3", u)
	}
	if n := countRows(t, dir); n != 200 {
		t.Fatalf("%d rows after the failure, want pages 1 and 2's 200", n)
	}
	var progress bytes.Buffer
	res = ingest(t, dir, &progress)
	u = res.Units[0]
	if u.Status != StatusSucceeded || u.Rows != 300 || !strings.Contains(u.Note, "5 requests (2 conditional, 2 not modified") {
		t.Fatalf("rerun %+v, want 300 rows and pages 1-2 not modified", u)
	}
	if n := countRows(t, dir); n != 500 {
		t.Fatalf("%d rows, want 500", n)
	}
	if p := progress.String(); !strings.Contains(p, "orders_api: page 5, 200 written, ") {
		t.Fatalf("progress %q shows no page count", p)
	}
}
