package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/httpsource/testapi"
	"github.com/idemc/idemc/internal/testtree"
)

const httpKillToml = `name = "httpkill"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"

[http.orders_api]
url = "%s/link/orders"
records = "data"
primary_key = ["id"]
schema = "raw"
next = "link"
`

// ingestTable runs idemc ingest to completion in dir and returns the
// source's table as text, with the rows written.
func ingestTable(t *testing.T, dir string) (string, string) {
	t.Helper()
	c := startIdemc(t, dir, "", "ingest")
	if code := c.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("ingest exited %d:\n%s%s", code, c.out.String(), c.stderr.String())
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT * FROM raw.orders_api ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	text, err := rowsText(rows)
	if err != nil {
		t.Fatal(err)
	}
	return text, c.out.String()
}

// TestHTTPKillTrials kills idemc with SIGKILL while it ingests 20 pages —
// as the test API receives request k, so mid-request, mid-load or
// mid-commit — or right after a chosen step of a page (IDEMC_FAULT), then
// runs it again: the table must be identical to a clean single run's, and
// a further run must write nothing.
func TestHTTPKillTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("kill trials run the binary many times")
	}
	api := testapi.New(2000, 100)
	url, stop := api.Start()
	defer stop()
	clean := testtree.Write(t, map[string]string{"project.toml": fmt.Sprintf(httpKillToml, url)})
	want, _ := ingestTable(t, clean)
	type trial struct {
		at    int    // kill when the API receives this request (0: no)
		fault string // or an IDEMC_FAULT rule
	}
	var trials []trial
	for _, k := range []int{1, 2, 5, 10, 14, 19, 20} {
		trials = append(trials, trial{at: k})
	}
	for _, p := range []string{"stage", "validate", "merge", "state", "commit"} {
		trials = append(trials, trial{fault: "crash:orders_api:" + p})
	}
	killed := 0
	for _, tr := range trials {
		name := tr.fault
		if name == "" {
			name = fmt.Sprintf("request %d", tr.at)
		}
		t.Run(name, func(t *testing.T) {
			dir := testtree.Write(t, map[string]string{"project.toml": fmt.Sprintf(httpKillToml, url)})
			var c *child
			if tr.at > 0 {
				base := api.Stats().Requests
				api.OnRequest(func(n int) {
					if n-base == tr.at {
						_ = c.cmd.Process.Signal(syscall.SIGKILL)
					}
				})
				defer api.OnRequest(nil)
			}
			c = startIdemc(t, dir, tr.fault, "ingest")
			code := c.wait(t, 2*time.Minute)
			t.Logf("killed: %s; %s", c.cmd.ProcessState, lastLine(c.out.String()))
			if code != -1 && !strings.Contains(c.cmd.ProcessState.String(), "killed") {
				t.Fatalf("idemc was not killed (exit %d):\n%s%s", code, c.out.String(), c.stderr.String())
			}
			killed++
			got, _ := ingestTable(t, dir)
			if got != want {
				t.Fatalf("after a kill and a rerun the table differs from a clean run's")
			}
			// The killed run's landing table is dropped by the rerun (it
			// stayed forever under a random name).
			if left := rawTables(t, dir); left != "orders_api" {
				t.Fatalf("tables in raw after the rerun: %s, want orders_api alone", left)
			}
			_, out := ingestTable(t, dir)
			if !strings.Contains(out, "orders_api") || !strings.Contains(out, " 0 rows") {
				t.Fatalf("a third run wrote rows:\n%s", out)
			}
		})
	}
	t.Logf("%d kill -9 trials of 20-page ingests: every rerun left the table identical to a clean run's", killed)
}

// rawTables lists the tables of the schema raw, sorted, comma-separated.
func rawTables(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names string
	if err := db.QueryRow(`SELECT coalesce(string_agg(table_name, ',' ORDER BY table_name), '') FROM duckdb_tables() WHERE schema_name = 'raw'`).Scan(&names); err != nil {
		t.Fatal(err)
	}
	return names
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
