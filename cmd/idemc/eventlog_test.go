package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemc/idemc/internal/testtree"
)

// eventsProject has a unit of each outcome: succeeded, warned (a warn
// check), failed (an error check) and skipped (downstream of the failure).
var eventsProject = map[string]string{
	"project.toml": `name = "ev"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
`,
	"models/src.sql": "SELECT DATE '2026-07-01' + CAST(i AS INTEGER) AS d, i AS x FROM range(3) t(i)\n",
	"models/daily.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
[checks]
min_rows = { value = 2, severity = "warn" }
*/
SELECT d, x FROM {{ ref("src") }} WHERE d >= {{ start }} AND d < {{ end }}
`,
	"models/bad.sql": `/* idemc
materialized = "table"
[checks]
min_rows = 10
*/
SELECT x FROM {{ ref("src") }}
`,
	"models/after_bad.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT * FROM {{ ref(\"bad\") }}\n",
}

// event is the part of an event object the tests read.
type event struct {
	SchemaVersion int    `json:"schema_version"`
	Event         string `json:"event"`
	Time          string `json:"time"`
	RunID         string `json:"run_id"`
	UniqueID      string `json:"unique_id"`
	Unit          string `json:"unit"`
	Status        string `json:"status"`
	Rows          int64  `json:"rows"`
	Outcome       string `json:"outcome"`
	Counts        map[string]int
	ExitCode      int `json:"exit_code"`
	Diagnostics   []struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"diagnostics"`
}

// events parses a --log-format json stream: every line must be one object
// with schema_version 1, an event name and a time.
func events(t *testing.T, out string) []event {
	t.Helper()
	var evs []event
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON object: %q: %v", sc.Text(), err)
		}
		if e.SchemaVersion != 1 || e.Event == "" || e.Time == "" {
			t.Fatalf("event without schema_version 1, event and time: %s", sc.Text())
		}
		evs = append(evs, e)
	}
	return evs
}

// TestLogFormatJSONMatchesAudit rebuilds each unit's status and rows from
// the event stream of a build and compares them with the audit table's rows
// of that run: the stream says what the warehouse recorded.
func TestLogFormatJSONMatchesAudit(t *testing.T) {
	dir := testtree.Write(t, eventsProject)
	var stdout, stderr bytes.Buffer
	code := run([]string{"build", "--project", dir, "--log-format", "json", "--as-of", "2026-07-03T00:00:00Z"}, &stdout, &stderr)
	if code != 1 || stderr.Len() != 0 {
		t.Fatalf("exit %d (want 1: a check failed), stderr %q", code, stderr.String())
	}
	evs := events(t, stdout.String())
	if evs[0].Event != "run_started" || evs[len(evs)-1].Event != "run_finished" {
		t.Fatalf("the stream must start with run_started and end with run_finished: %+v", evs)
	}
	runID := evs[0].RunID
	fromStream := map[string]string{}
	started := map[string]bool{}
	for _, e := range evs {
		if e.RunID != runID {
			t.Fatalf("event of another run: %+v", e)
		}
		switch e.Event {
		case "unit_started":
			started[e.Unit] = true
		case "unit_finished":
			if e.Status != "skipped" && !started[e.Unit] {
				t.Errorf("%s finished without unit_started", e.Unit)
			}
			// warned is succeeded with a warning, as the text says.
			fromStream[e.Unit] = strings.Replace(e.Status, "warned", "succeeded", 1) + " " + itoa(e.Rows)
		}
	}
	last := evs[len(evs)-1]
	if last.Outcome != "failed" || last.Counts["failed"] != 1 || last.Counts["skipped"] != 1 || last.Counts["warned"] != 2 || last.Counts["succeeded"] != 1 {
		t.Errorf("run_finished = %+v", last)
	}

	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT job_name, partition_key, status, coalesce(row_count, 0) FROM main.idemc_audit WHERE run_id = ?`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	fromAudit := map[string]string{}
	for rows.Next() {
		var job, part, status string
		var n int64
		if err := rows.Scan(&job, &part, &status, &n); err != nil {
			t.Fatal(err)
		}
		id := job
		if part != "" {
			id += "/" + part
		}
		fromAudit[id] = status + " " + itoa(n)
	}
	// A skipped unit never started, so it has no audit row.
	for id, s := range fromStream {
		if strings.HasPrefix(s, "skipped ") {
			fromAudit[id] = s
		}
	}
	if !reflect.DeepEqual(fromStream, fromAudit) {
		t.Fatalf("statuses from the stream:\n%v\nfrom the audit table:\n%v", fromStream, fromAudit)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestLogFormatJSONError: a bad project ends the stream with one error
// event naming the file and line, exit code 2, and nothing on stderr.
func TestLogFormatJSONError(t *testing.T) {
	files := map[string]string{}
	for k, v := range eventsProject {
		files[k] = v
	}
	files["project.toml"] += "[run]\nthreads = 0\n"
	dir := testtree.Write(t, files)
	var stdout, stderr bytes.Buffer
	code := run([]string{"compile", "--project", dir, "--log-format=json"}, &stdout, &stderr)
	evs := events(t, stdout.String())
	if code != 2 || stderr.Len() != 0 || len(evs) != 1 {
		t.Fatalf("exit %d, stderr %q, events %+v", code, stderr.String(), evs)
	}
	e := evs[0]
	if e.Event != "error" || e.ExitCode != 2 || len(e.Diagnostics) != 1 || e.Diagnostics[0].File != "project.toml" || e.Diagnostics[0].Line != 8 {
		t.Fatalf("error event = %+v", e)
	}
}

// TestLogFormatJSONOtherCommands: every line any command prints is an
// event (text output becomes log events, ls and status results one result
// event), and the text mode is unchanged by the flag's existence.
func TestLogFormatJSONOtherCommands(t *testing.T) {
	dir := testtree.Write(t, eventsProject)
	for _, args := range [][]string{{"compile"}, {"lint"}, {"ls"}, {"ls", "--json"}, {"version"}} {
		var stdout, stderr bytes.Buffer
		code := run(append(append([]string{}, args...), "--project", dir, "--log-format", "json"), &stdout, &stderr)
		if args[0] == "version" {
			code = run([]string{"version", "--log-format", "json"}, &stdout, &stderr)
		}
		evs := events(t, stdout.String())
		if code != 0 || len(evs) == 0 || stderr.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q, events %s", args, code, stderr.String(), stdout.String())
		}
		if args[0] == "ls" && (len(evs) != 1 || evs[0].Event != "result") {
			t.Errorf("%v: want one result event, got %+v", args, evs)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"build", "--project", dir, "--log-format", "xml"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "want text or json") {
		t.Fatalf("--log-format xml: exit %d, stderr %q", code, stderr.String())
	}
}
