package bigquery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/api/option"

	"github.com/idemc/idemc/internal/fakelocks"
)

// fakeBigQuery answers the REST calls of cloud.google.com/go/bigquery that
// the engine makes: jobs.insert, jobs.get, jobs.getQueryResults and
// tables.get. It records every job inserted.
type fakeBigQuery struct {
	t   *testing.T
	srv *httptest.Server

	mu   sync.Mutex
	jobs []*fakeJob          // in insertion order
	byID map[string]*fakeJob // by job id
	// fail, when set, returns an error message for a query (the job ends
	// DONE with that errorResult).
	fail func(sql string) string
	// rows, when set, answers a query with columns and rows.
	rows func(sql string) ([]string, [][]string)
	// running leaves jobs whose query matches RUNNING until polled this
	// many times.
	tables map[string][]string // dataset.table → column names
	// affected, when set, is the rows a script's DML statement affects
	// (its child job's numDmlAffectedRows; else 3).
	affected func(stmt string) int64
	// locks is the lock table of unit claims, answered as BigQuery would.
	locks fakelocks.Table
}

// children lists a script job's child jobs as BigQuery does: one per
// statement, with the statement's first line in its script statistics.
func (f *fakeBigQuery) children(parent string) []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	j := f.byID[parent]
	if j == nil {
		return nil
	}
	var out []any
	start, text := 1, ""
	for i, line := range strings.Split(j.SQL, "\n") {
		if text == "" {
			start = i + 1
		}
		text += line + "\n"
		if !strings.HasSuffix(strings.TrimSpace(line), ";") {
			continue
		}
		stmt := strings.TrimSpace(text)
		text = ""
		up := strings.ToUpper(stmt)
		typ := "SELECT"
		for _, k := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "ASSERT", "BEGIN", "COMMIT"} {
			if strings.HasPrefix(up, k) {
				typ = k
			}
		}
		q := map[string]any{"statementType": typ}
		if typ == "INSERT" || typ == "UPDATE" || typ == "DELETE" || typ == "MERGE" {
			n := int64(3)
			if f.affected != nil {
				n = f.affected(stmt)
			}
			q["numDmlAffectedRows"] = fmt.Sprint(n)
		}
		id := fmt.Sprintf("script_job_%s_%d", parent, len(out))
		out = append(out, map[string]any{"id": "proj:EU." + id, "state": "DONE", "status": map[string]any{"state": "DONE"},
			"jobReference":  map[string]any{"projectId": "proj", "jobId": id, "location": "EU"},
			"configuration": map[string]any{"query": map[string]any{"query": stmt}},
			"statistics": map[string]any{"parentJobId": parent, "query": q,
				"scriptStatistics": map[string]any{"evaluationKind": "STATEMENT", "stackFrames": []any{map[string]any{"startLine": start, "startColumn": 1, "text": stmt}}}}})
	}
	return out
}

type fakeJob struct {
	ID       string
	Project  string
	Location string
	SQL      string
	Config   map[string]any // configuration.query
	Labels   map[string]string
	DryRun   bool
	Err      string
	Cols     []string
	Rows     [][]string
	Pre      bool           // created by the test, not by the engine
	Load     map[string]any // configuration.load of a load job
	Data     string         // the data a load job uploaded
	Stmt     string
}

func newFakeBigQuery(t *testing.T) *fakeBigQuery {
	f := &fakeBigQuery{t: t, byID: map[string]*fakeJob{}, tables: map[string][]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeBigQuery) engine(t *testing.T, location string) *Engine {
	t.Helper()
	e, err := open(context.Background(), map[string]string{"project": "proj", "schema": "analytics", "location": location},
		option.WithEndpoint(f.srv.URL+"/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func apiError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg, "errors": []any{map[string]any{"reason": reason, "message": msg}}}})
}

func (f *fakeBigQuery) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/upload"), "/bigquery/v2")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/upload/") && len(parts) == 3 && parts[2] == "jobs":
		f.upload(w, r, parts[1])
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "projects" && parts[2] == "jobs":
		f.insert(w, r, parts[1])
	case r.Method == http.MethodGet && len(parts) == 3 && parts[2] == "jobs" && r.URL.Query().Get("parentJobId") != "":
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "bigquery#jobList", "jobs": f.children(r.URL.Query().Get("parentJobId"))})
	case r.Method == http.MethodGet && len(parts) == 4 && parts[2] == "jobs":
		f.mu.Lock()
		j := f.byID[parts[3]]
		f.mu.Unlock()
		if j == nil {
			apiError(w, 404, "notFound", "Not found: Job "+parts[3])
			return
		}
		_ = json.NewEncoder(w).Encode(f.jobJSON(j))
	case r.Method == http.MethodGet && len(parts) == 4 && parts[2] == "queries":
		f.mu.Lock()
		j := f.byID[parts[3]]
		f.mu.Unlock()
		if j == nil {
			apiError(w, 404, "notFound", "Not found: Job "+parts[3])
			return
		}
		if j.Err != "" {
			apiError(w, 400, "invalidQuery", j.Err)
			return
		}
		fields := make([]any, len(j.Cols))
		for i, c := range j.Cols {
			fields[i] = map[string]any{"name": c, "type": "STRING", "mode": "NULLABLE"}
		}
		rows := make([]any, len(j.Rows))
		for i, row := range j.Rows {
			cells := make([]any, len(row))
			for k, v := range row {
				if v == "NULL" {
					cells[k] = map[string]any{"v": nil}
				} else {
					cells[k] = map[string]any{"v": v}
				}
			}
			rows[i] = map[string]any{"f": cells}
		}
		res := map[string]any{"kind": "bigquery#getQueryResultsResponse", "jobComplete": true,
			"jobReference": map[string]any{"projectId": j.Project, "jobId": j.ID, "location": j.Location},
			"schema":       map[string]any{"fields": fields}, "totalRows": fmt.Sprint(len(j.Rows))}
		if r.URL.Query().Get("maxResults") != "0" {
			res["rows"] = rows
		}
		_ = json.NewEncoder(w).Encode(res)
	case r.Method == http.MethodGet && len(parts) == 4 && parts[2] == "datasets":
		_ = json.NewEncoder(w).Encode(map[string]any{"datasetReference": map[string]any{"projectId": parts[1], "datasetId": parts[3]}, "location": "EU"})
	case r.Method == http.MethodGet && len(parts) == 6 && parts[2] == "datasets" && parts[4] == "tables":
		f.mu.Lock()
		cols, ok := f.tables[parts[3]+"."+parts[5]]
		f.mu.Unlock()
		if !ok {
			apiError(w, 404, "notFound", "Not found: Table "+parts[1]+":"+parts[3]+"."+parts[5])
			return
		}
		fields := make([]any, len(cols))
		for i, c := range cols {
			name, typ, ok := strings.Cut(c, ":") // "name:TYPE", else a STRING
			if !ok {
				typ = "STRING"
			}
			fields[i] = map[string]any{"name": name, "type": typ}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"tableReference": map[string]any{"projectId": parts[1], "datasetId": parts[3], "tableId": parts[5]}, "schema": map[string]any{"fields": fields}})
	default:
		f.t.Errorf("fake bigquery: unexpected %s %s", r.Method, r.URL.Path)
		apiError(w, 400, "badRequest", "unexpected request")
	}
}

func (f *fakeBigQuery) insert(w http.ResponseWriter, r *http.Request, project string) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		JobReference  struct{ ProjectId, JobId, Location string } `json:"jobReference"`
		Configuration struct {
			DryRun bool              `json:"dryRun"`
			Labels map[string]string `json:"labels"`
			Query  map[string]any    `json:"query"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, 400, "invalid", err.Error())
		return
	}
	sql, _ := req.Configuration.Query["query"].(string)
	j := &fakeJob{ID: req.JobReference.JobId, Project: project, Location: req.JobReference.Location, SQL: sql,
		Config: req.Configuration.Query, Labels: req.Configuration.Labels, DryRun: req.Configuration.DryRun}
	f.mu.Lock()
	if old := f.byID[j.ID]; old != nil && j.ID != "" {
		f.mu.Unlock()
		apiError(w, 409, "duplicate", "Already Exists: Job "+project+":"+j.Location+"."+j.ID)
		return
	}
	if f.fail != nil {
		j.Err = f.fail(sql)
	}
	if rows, ok := f.locks.Answer(sql); ok && j.Err == "" {
		j.Cols, j.Rows = []string{"run_id"}, rows
	} else if f.rows != nil && j.Err == "" {
		j.Cols, j.Rows = f.rows(sql)
	}
	f.jobs = append(f.jobs, j)
	if j.ID != "" {
		f.byID[j.ID] = j
	}
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(f.jobJSON(j))
}

// upload records a load job sent as multipart/related: the job, then the data.
func (f *fakeBigQuery) upload(w http.ResponseWriter, r *http.Request, project string) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		apiError(w, 400, "invalid", err.Error())
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var parts [][]byte
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		parts = append(parts, b)
	}
	var req struct {
		JobReference  struct{ ProjectId, JobId, Location string } `json:"jobReference"`
		Configuration struct {
			Load map[string]any `json:"load"`
		} `json:"configuration"`
	}
	if len(parts) != 2 || json.Unmarshal(parts[0], &req) != nil {
		apiError(w, 400, "invalid", fmt.Sprintf("a load job upload has 2 parts, got %d", len(parts)))
		return
	}
	j := &fakeJob{ID: req.JobReference.JobId, Project: project, Location: req.JobReference.Location, Load: req.Configuration.Load, Data: string(parts[1])}
	f.mu.Lock()
	f.jobs = append(f.jobs, j)
	if j.ID != "" {
		f.byID[j.ID] = j
	}
	f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(f.jobJSON(j))
}

// preJob records a job as if an earlier submission had created it.
func (f *fakeBigQuery) preJob(id, run, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j := &fakeJob{ID: id, Project: "proj", Location: "EU", SQL: "-- earlier", Labels: map[string]string{"idemc_run": run}, Pre: true, Stmt: state}
	f.byID[id] = j
}

func (f *fakeBigQuery) jobJSON(j *fakeJob) map[string]any {
	status := map[string]any{"state": "DONE"}
	if j.Stmt == "RUNNING" {
		status["state"] = "RUNNING"
		j.Stmt = "" // done at the next look
	}
	if j.Err != "" {
		e := map[string]any{"reason": "invalidQuery", "message": j.Err}
		status["errorResult"] = e
		status["errors"] = []any{e}
	}
	up := strings.ToUpper(strings.TrimSpace(j.SQL))
	stmtType := "SELECT"
	for _, k := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "BEGIN"} {
		if strings.HasPrefix(up, k) {
			stmtType = k
		}
	}
	if stmtType == "BEGIN" {
		stmtType = "SCRIPT"
	}
	q := map[string]any{"statementType": stmtType}
	if stmtType == "INSERT" || stmtType == "UPDATE" || stmtType == "DELETE" || stmtType == "MERGE" {
		q["numDmlAffectedRows"] = "3"
	}
	if j.DryRun {
		q["schema"] = map[string]any{"fields": []any{
			map[string]any{"name": "event_key", "type": "STRING"}, map[string]any{"name": "amount", "type": "NUMERIC"}}}
	}
	cfg := map[string]any{"query": j.Config, "labels": j.Labels, "dryRun": j.DryRun}
	if j.Load != nil {
		cfg = map[string]any{"load": j.Load}
		return map[string]any{"kind": "bigquery#job", "id": j.Project + ":" + j.Location + "." + j.ID,
			"jobReference":  map[string]any{"projectId": j.Project, "jobId": j.ID, "location": j.Location},
			"configuration": cfg, "status": status, "statistics": map[string]any{"load": map[string]any{"outputRows": "0"}}}
	}
	if j.Config == nil {
		cfg["query"] = map[string]any{"query": j.SQL}
	}
	return map[string]any{"kind": "bigquery#job", "id": j.Project + ":" + j.Location + "." + j.ID,
		"jobReference":  map[string]any{"projectId": j.Project, "jobId": j.ID, "location": j.Location},
		"configuration": cfg, "status": status, "statistics": map[string]any{"query": q}}
}

// submitted returns the jobs the engine inserted (not the pre-made ones).
func (f *fakeBigQuery) submitted() []*fakeJob {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*fakeJob(nil), f.jobs...)
}
