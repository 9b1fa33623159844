package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/testtree"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// olEvent is the part of a run event the test checks: what the
// OpenLineage RunEvent schema requires (eventType, eventTime, run.runId,
// job.namespace/name, producer, schemaURL; datasets' namespace and name)
// and the facets idemc writes.
type olEvent struct {
	EventType string `json:"eventType"`
	EventTime string `json:"eventTime"`
	Producer  string `json:"producer"`
	SchemaURL string `json:"schemaURL"`
	Run       struct {
		RunID  string `json:"runId"`
		Facets map[string]map[string]any
	} `json:"run"`
	Job struct {
		Namespace, Name string
	} `json:"job"`
	Inputs  []olDataset `json:"inputs"`
	Outputs []olDataset `json:"outputs"`
}

type olDataset struct {
	Namespace, Name string
	Facets          map[string]map[string]any
	OutputFacets    map[string]map[string]any `json:"outputFacets"`
}

func (e olEvent) check(t *testing.T) {
	t.Helper()
	if _, err := time.Parse(time.RFC3339Nano, e.EventTime); err != nil ||
		!strings.Contains("START RUNNING COMPLETE ABORT FAIL OTHER", e.EventType) || !uuidRE.MatchString(e.Run.RunID) ||
		e.Job.Namespace == "" || e.Job.Name == "" || !strings.HasPrefix(e.Producer, "https://") ||
		!strings.HasPrefix(e.SchemaURL, "https://openlineage.io/spec/") {
		t.Fatalf("not a valid run event: %+v", e)
	}
	for _, d := range append(e.Inputs, e.Outputs...) {
		if d.Namespace == "" || d.Name == "" {
			t.Fatalf("a dataset without namespace or name: %+v", e)
		}
		for name, f := range d.Facets {
			if f["_producer"] == nil || f["_schemaURL"] == nil {
				t.Fatalf("facet %s without _producer/_schemaURL", name)
			}
		}
	}
}

// TestOpenLineage: each unit that runs gives START and then COMPLETE or
// FAIL under one run id; a partition's nominalTime is its window; the
// output has its row count, column lineage and checks; an orchestrator's
// parent run is named; a dead endpoint never fails the build.
func TestOpenLineage(t *testing.T) {
	files := map[string]string{}
	for k, v := range eventsProject {
		files[k] = v
	}
	files["project.toml"] += "[openlineage]\nfile = \"target/ol.jsonl\"\nnamespace = \"analytics\"\n"
	dir := testtree.Write(t, files)
	t.Setenv("OPENLINEAGE_PARENT_ID", "airflow/daily_dag.idemc/0191f3c5-7b7e-7c1c-9d6e-1f2a3b4c5d6e")
	if out, code := runIdemc(dir, "build", "--as-of", "2026-07-03T00:00:00Z"); code != 1 {
		t.Fatalf("build: exit %d (want 1: bad fails)\n%s", code, out)
	}
	f, err := os.Open(filepath.Join(dir, "target", "ol.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byRun := map[string][]olEvent{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e olEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		e.check(t)
		byRun[e.Run.RunID] = append(byRun[e.Run.RunID], e)
	}
	ends := map[string]olEvent{}
	for id, evs := range byRun {
		if len(evs) != 2 || evs[0].EventType != "START" {
			t.Fatalf("run %s: events %v, want START then its end", id, evs)
		}
		ends[evs[1].Job.Name+" "+evs[1].EventType] = evs[1]
		if p := evs[0].Run.Facets["parent"]; p == nil || p["run"].(map[string]any)["runId"] != "0191f3c5-7b7e-7c1c-9d6e-1f2a3b4c5d6e" {
			t.Errorf("run %s: no parent run facet: %v", id, evs[0].Run.Facets)
		}
	}
	// src, two partitions of daily, bad (failed); after_bad was skipped: no run.
	if len(byRun) != 4 || ends["ev.bad FAIL"].Job.Name == "" || ends["ev.src COMPLETE"].Job.Name == "" {
		t.Fatalf("runs: %v", ends)
	}
	d := ends["ev.daily COMPLETE"]
	if d.Job.Namespace != "analytics" || d.Run.Facets["nominalTime"]["nominalEndTime"] == nil || len(d.Inputs) != 1 || d.Inputs[0].Name != "main.src" {
		t.Fatalf("daily's event: %+v", d)
	}
	out := d.Outputs[0]
	if out.Name != "main.daily" || out.OutputFacets["outputStatistics"]["rowCount"] != 1.0 || out.Facets["columnLineage"] == nil || out.Facets["dataQualityAssertions"] == nil {
		t.Fatalf("daily's output: %+v", out)
	}
	fields := out.Facets["columnLineage"]["fields"].(map[string]any)
	if in := fields["x"].(map[string]any)["inputFields"].([]any); len(in) != 1 || in[0].(map[string]any)["field"] != "x" {
		t.Fatalf("lineage of daily.x: %v", fields)
	}

	// An endpoint that is down: a warning, and the build succeeds.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer srv.Close()
	files["project.toml"] = eventsProject["project.toml"] + "[openlineage]\nurl = \"" + srv.URL + "\"\n"
	delete(files, "models/bad.sql")
	delete(files, "models/after_bad.sql")
	dir = testtree.Write(t, files)
	out2, code := runIdemc(dir, "build", "--as-of", "2026-07-03T00:00:00Z")
	if code != 0 || !strings.Contains(out2, "warning: openlineage: POST: 503") {
		t.Fatalf("build with the endpoint down: exit %d\n%s", code, out2)
	}
}
