package bigquery

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	bq "cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/bigquery/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

func init() {
	adapters.RegisterClient("bigquery", adapters.Client{Open: Open,
		// A credentials file is named by its path; the key stays in it.
		Where: func(s map[string]string) string {
			return "project " + cmp.Or(s["project"], s["database"])
		}})
}

// Engine is a BigQuery project reached through cloud.google.com/go/bigquery.
type Engine struct {
	client   *bq.Client
	project  string
	dataset  string // the target's dataset (its schema)
	location string
	d        dialect.Dialect
	// poll bounds how long a job is waited for (0: until the context ends).
	poll time.Duration
	// retryFirst is the first wait before a conflicting script is retried
	// (0: retryFirst's default; tests shorten it).
	retryFirst time.Duration
}

// Retry budget of a unit's script after a conflict: BigQuery cancels a
// transaction that conflicts with another mutating the same table
// (cloud.google.com/bigquery/docs/transactions, "Transaction
// concurrency"), which can go on for as long as the other's script runs.
const (
	retryBudget = 60 * time.Second
	retryFirst  = 500 * time.Millisecond
)

// RetryBackoff is the runner's budget for retrying a conflicting script:
// a minute, waits doubling from half a second, with jitter.
func (e *Engine) RetryBackoff() (budget, first time.Duration) {
	return retryBudget, cmp.Or(e.retryFirst, retryFirst)
}

// Open connects with the target's project (or database), dataset (or
// schema) and location. Credentials come from the environment: a key file
// named by credentials_file (service account, authorized user or external
// account JSON), else application default credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, or
// the metadata server).
func Open(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	return open(ctx, settings)
}

func open(ctx context.Context, settings map[string]string, extra ...option.ClientOption) (*Engine, error) {
	project := settings["project"]
	if project == "" {
		project = settings["database"]
	}
	if project == "" {
		return nil, errors.New("bigquery: the target needs project = \"${GOOGLE_CLOUD_PROJECT}\"")
	}
	dataset := settings["dataset"]
	if dataset == "" {
		dataset = settings["schema"]
	}
	var opts []option.ClientOption
	if f := settings["credentials_file"]; f != "" {
		typ, err := credentialsType(f)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithAuthCredentialsFile(typ, f))
	}
	opts = append(opts, extra...)
	client, err := bq.NewClient(ctx, project, opts...)
	if err != nil {
		return nil, fmt.Errorf("bigquery: %w", err)
	}
	client.Location = settings["location"]
	return &Engine{client: client, project: project, dataset: dataset, location: settings["location"], d: dialect.NewDialect()}, nil
}

// credentialsType reads the "type" of a credentials JSON file.
func credentialsType(path string) (option.CredentialsType, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("bigquery: credentials_file: %w", err)
	}
	var f struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("bigquery: credentials_file %s is not JSON: %w", path, err)
	}
	switch f.Type {
	case "service_account":
		return option.ServiceAccount, nil
	case "authorized_user":
		return option.AuthorizedUser, nil
	case "external_account":
		return option.ExternalAccount, nil
	case "impersonated_service_account":
		return option.ImpersonatedServiceAccount, nil
	}
	return "", fmt.Errorf("bigquery: credentials_file %s has type %q; use a service account, authorized user or external account key", path, f.Type)
}

// Close releases the client.
func (e *Engine) Close() error { return e.client.Close() }

// Session returns a unit's session. BigQuery has no connection to pin: the
// session is the state that ties a unit's jobs together (labels, the
// buffered script, job ids).
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	return &Session{e: e, seq: map[string]int{}}, nil
}

// Retryable reports a script that BigQuery aborted because a concurrent
// transaction changed the same table: nothing was committed, so the runner
// may run the unit's transaction again (with a new job id).
func (e *Engine) Retryable(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "concurrent update") || strings.Contains(msg, "aborted due to concurrent") || strings.Contains(msg, "could not serialize access")
}

// Session executes a unit's steps as BigQuery jobs. What a job needs
// besides its SQL comes with the step (plan.Step.Job), never from the text:
//
//   - A step's job labels (run id, model, partition, attempt) go on it and
//     on every later job of the session; the unit's identity in them names
//     its write jobs (JobID).
//   - A begin step starts buffering. Any step then is appended to the
//     script (rows affected unknown: -1); a check step is an ASSERT there,
//     whose check is remembered: its verdict comes at commit.
//   - The commit step submits "BEGIN TRANSACTION; …; COMMIT TRANSACTION;" as
//     ONE query job with a deterministic id and waits for it: a failing
//     statement or ASSERT fails the job and BigQuery rolls the whole script
//     back; an ASSERT's failure is returned as adapters.CheckFailed naming
//     its check. A rollback step discards the buffer (nothing was sent).
//   - A step with a job kind is a write job with a deterministic id, and
//     optionally a destination table and write disposition (insert_overwrite's
//     publish). A publish step with no job spec, which only the runner
//     builds (the swap of a checked copy), is the unit's "swap" write job.
//   - Everything else is one query job, waited for.
type Session struct {
	e        *Engine
	labels   map[string]string
	inTx     bool
	script   []string
	asserts  []*plan.Check  // the checks of the buffered ASSERTs, in order
	writes   []int          // indexes in script of the statements that write the unit's rows
	seq      map[string]int // submissions per job kind, for retried transactions
	lastJobs []string       // ids of the jobs submitted (for tests and messages)
}

// Exec runs (or buffers) one step.
func (s *Session) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	if st.Job != nil && st.Job.Labels != nil {
		s.setLabels(st.Job.Labels)
	}
	switch st.Purpose {
	case plan.Begin:
		if s.inTx {
			return plan.Result{}, errors.New("bigquery: BEGIN TRANSACTION inside a buffered transaction")
		}
		s.reset(true)
		return plan.Result{}, nil
	case plan.Rollback:
		s.reset(false)
		return plan.Result{}, nil
	case plan.Commit:
		return s.commit(ctx, st)
	}
	stmt := strings.TrimRight(strings.TrimSpace(st.SQL), "; \n")
	if s.inTx {
		switch st.Purpose {
		case plan.Insert, plan.Merge, plan.Publish:
			s.writes = append(s.writes, len(s.script))
		}
		s.script = append(s.script, stmt)
		if st.Check != nil {
			s.asserts = append(s.asserts, st.Check)
		}
		return plan.Result{Affected: -1}, nil
	}
	if st.Check != nil {
		cols, rows, err := s.Query(ctx, stmt, sqlgen.SampleLimit)
		return plan.Result{Affected: -1, Columns: cols, Rows: rows}, err
	}
	job := st.Job
	if st.Purpose == plan.Publish && job == nil {
		job = &plan.JobSpec{Kind: "swap"} // the runner's publish: a copy's swap (the dialect's steps all have a job)
	}
	jst, err := s.run(ctx, stmt, job, nil)
	if err != nil {
		return plan.Result{}, err
	}
	if d, ok := jst.Statistics.Details.(*bq.QueryStatistics); ok && d != nil && isDML(d.StatementType) {
		return plan.Result{Affected: d.NumDMLAffectedRows}, nil
	}
	return plan.Result{Affected: -1}, nil
}

func isDML(t string) bool {
	switch t {
	case "INSERT", "UPDATE", "DELETE", "MERGE":
		return true
	}
	return false
}

// Query runs a query and returns at most limit rows as text.
func (s *Session) Query(ctx context.Context, sql string, limit int) ([]string, [][]string, error) {
	stmt := strings.TrimSpace(sql)
	if s.inTx {
		return nil, nil, errors.New("bigquery: a query inside a buffered script transaction cannot see the script's writes; make it a check step (an ASSERT of the script)")
	}
	var it *bq.RowIterator
	_, err := s.run(ctx, s.e.regionalize(stmt), nil, func(j *bq.Job) error {
		var err error
		it, err = j.Read(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var out [][]string
	for limit <= 0 || len(out) < limit {
		var row []bq.Value
		err := it.Next(&row)
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("bigquery: reading results: %w", err)
		}
		txt := make([]string, len(row))
		for i, v := range row {
			txt[i] = valueText(v)
		}
		out = append(out, txt)
	}
	cols := make([]string, len(it.Schema))
	for i, f := range it.Schema {
		cols[i] = f.Name
	}
	return cols, out, nil
}

// unqualifiedInfoSchema is an INFORMATION_SCHEMA view name with no
// qualifier before it (the runner's and the dialect's catalog queries).
var unqualifiedInfoSchema = regexp.MustCompile("(?i)(^|[^.\\w`])(INFORMATION_SCHEMA\\.)")

// regionalize qualifies every INFORMATION_SCHEMA: region-wide
// (`region-<location>`) when the target has a location, else by the
// target's dataset (`project.dataset`), whose views list that dataset's
// relations only. BigQuery has no unqualified INFORMATION_SCHEMA
// (cloud.google.com/bigquery/docs/information-schema-intro: a dataset or
// region qualifier is required).
func (e *Engine) regionalize(q string) string {
	qual := e.d.Quote(e.project + "." + e.dataset)
	if e.location != "" {
		qual = e.d.Quote("region-" + strings.ToLower(e.location))
	}
	return unqualifiedInfoSchema.ReplaceAllString(q, "${1}"+strings.ReplaceAll(qual, "$", "$$")+".${2}")
}

// Columns reports a query's columns with a dry run (no cost, no rows).
func (s *Session) Columns(ctx context.Context, sql string) ([]plan.Column, error) {
	q := s.query(sql)
	q.DryRun = true
	j, err := q.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("bigquery: %w", err)
	}
	st := j.LastStatus()
	if st == nil {
		return nil, errors.New("bigquery: dry run returned no status")
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("bigquery: %w", err)
	}
	d, ok := st.Statistics.Details.(*bq.QueryStatistics)
	if !ok || d == nil {
		return nil, errors.New("bigquery: dry run returned no schema")
	}
	return schemaColumns(d.Schema), nil
}

func schemaColumns(s bq.Schema) []plan.Column {
	out := make([]plan.Column, len(s))
	for i, f := range s {
		out[i] = plan.Column{Name: f.Name, Type: string(f.Type)}
	}
	return out
}

// Relation reports a table's columns from its metadata (tables.get).
func (s *Session) Relation(ctx context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	project := r.Database
	if project == "" {
		project = s.e.project
	}
	dataset := r.Schema
	if dataset == "" {
		dataset = s.e.dataset
	}
	md, err := s.e.client.DatasetInProject(project, dataset).Table(r.Name).Metadata(ctx)
	if err != nil {
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == http.StatusNotFound {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("bigquery: %w", err)
	}
	return schemaColumns(md.Schema), true, nil
}

// Close discards an unfinished buffer.
func (s *Session) Close() error {
	s.reset(false)
	return nil
}

// Jobs lists the ids of the jobs this session submitted, in order.
func (s *Session) Jobs() []string { return append([]string(nil), s.lastJobs...) }

// setLabels makes labels the session's: they go on every later job.
func (s *Session) setLabels(l map[string]string) {
	s.labels = make(map[string]string, len(l))
	for k, v := range l {
		s.labels[k] = v
	}
}

// query is a query job configured for the target: location, default
// dataset (unqualified names), labels.
func (s *Session) query(sql string) *bq.Query {
	q := s.e.client.Query(sql)
	q.Location = s.e.location
	q.DefaultProjectID = s.e.project
	q.DefaultDatasetID = s.e.dataset
	if len(s.labels) > 0 {
		q.Labels = map[string]string{}
		for k, v := range s.labels {
			q.Labels[k] = v
		}
	}
	return q
}

// run submits one statement as a query job and waits for it. A job with a
// kind is a unit's write job ("script", "stage", "publish", "swap"): its id
// is derived from the unit and attempt; its destination and disposition,
// when set, make it write its result to that table. read, when set, reads
// the finished job.
func (s *Session) run(ctx context.Context, sql string, job *plan.JobSpec, read func(*bq.Job) error) (*bq.JobStatus, error) {
	q := s.query(sql)
	kind := ""
	if job != nil {
		kind = job.Kind
		if job.Destination != nil {
			q.Dst = s.table(*job.Destination)
		}
		if job.Disposition != "" {
			q.WriteDisposition = bq.TableWriteDisposition(job.Disposition)
			q.CreateDisposition = bq.CreateNever
		}
	}
	j, err := s.submit(ctx, q, kind)
	if err != nil {
		return nil, fmt.Errorf("bigquery: %w", err)
	}
	st, err := s.wait(ctx, j)
	if err != nil {
		return nil, err
	}
	if read != nil {
		if err := read(j); err != nil {
			return nil, fmt.Errorf("bigquery: job %s: %w", j.ID(), err)
		}
	}
	return st, nil
}

func (s *Session) wait(ctx context.Context, j *bq.Job) (*bq.JobStatus, error) {
	if s.e.poll > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.e.poll)
		defer cancel()
	}
	st, err := j.Wait(ctx)
	if err != nil {
		return nil, fmt.Errorf("bigquery: job %s: %w", j.ID(), err)
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("bigquery: job %s failed: %w", j.ID(), err)
	}
	return st, nil
}

// table is a relation as the API's Table (the target's project and
// dataset when it names none).
func (s *Session) table(r plan.Relation) *bq.Table {
	return s.e.client.DatasetInProject(cmp.Or(r.Database, s.e.project), cmp.Or(r.Schema, s.e.dataset)).Table(r.Name)
}

// JobID derives a unit's job id: the model, partition and attempt from the
// labels, the kind of job, a hash binding them to the project, location and
// dataset, and the submission number when a transaction is retried. The
// run id is deliberately left out: two runs that computed the same attempt
// for a unit (concurrent runs) meet on the same job.
func (s *Session) JobID(kind string, n int) string {
	model, attempt := s.labels["idemc_model"], s.labels["idemc_attempt"]
	if model == "" || attempt == "" || kind == "" {
		return ""
	}
	part := s.labels["idemc_partition"]
	h := dialect.Hash32(strings.Join([]string{s.e.project, s.e.location, s.e.dataset, model, part, attempt, kind}, "\x00"))
	id := fmt.Sprintf("idemc_%s_%s_a%s_%s_%08x", model, part, attempt, kind, h)
	if part == "" {
		id = fmt.Sprintf("idemc_%s_a%s_%s_%08x", model, attempt, kind, h)
	}
	if n > 1 {
		id += "_r" + strconv.Itoa(n)
	}
	return id
}

// submit inserts the job. A write job gets its derived id; when that id
// exists already (jobs.insert answers 409):
//   - a job of this run (same idemc_run label): it is this very submission,
//     resent after a lost answer; wait for it instead of writing twice;
//   - a job of another run: still running, it is waited for first (the two
//     never write at once); either way this unit's write is submitted again
//     under the next id (_r2, …), so an old job never stands in for it.
//
// Before the first submission of attempt N, attempt N-1's job of the same
// kind is looked up: a crashed run's script still running is waited for.
func (s *Session) submit(ctx context.Context, q *bq.Query, kind string) (*bq.Job, error) {
	if s.JobID(kind, 1) == "" {
		return q.Run(ctx)
	}
	s.seq[kind]++
	if s.seq[kind] == 1 {
		s.waitForPreviousAttempt(ctx, kind)
	}
	for n := s.seq[kind]; ; n++ {
		id := s.JobID(kind, n)
		q.JobID = id
		s.lastJobs = append(s.lastJobs, id)
		j, err := q.Run(ctx)
		if err == nil {
			s.seq[kind] = n
			return j, nil
		}
		var ge *googleapi.Error
		if !errors.As(err, &ge) || ge.Code != http.StatusConflict {
			return nil, err
		}
		old, gerr := s.e.client.JobFromIDLocation(ctx, id, s.e.location)
		if gerr != nil {
			return nil, fmt.Errorf("job %s exists but cannot be read: %w", id, gerr)
		}
		if s.ownJob(old) {
			s.seq[kind] = n
			return old, nil
		}
		if st := old.LastStatus(); st == nil || !st.Done() {
			_, _ = old.Wait(ctx)
		}
	}
}

func (s *Session) ownJob(j *bq.Job) bool {
	cfg, err := j.Config()
	if err != nil {
		return false
	}
	qc, ok := cfg.(*bq.QueryConfig)
	return ok && qc.Labels["idemc_run"] != "" && qc.Labels["idemc_run"] == s.labels["idemc_run"]
}

// waitForPreviousAttempt waits for the previous attempt's job of this kind
// if it is still running (its run died while the job went on).
func (s *Session) waitForPreviousAttempt(ctx context.Context, kind string) {
	a, err := strconv.Atoi(s.labels["idemc_attempt"])
	if err != nil || a <= 1 {
		return
	}
	saved := s.labels["idemc_attempt"]
	s.labels["idemc_attempt"] = strconv.Itoa(a - 1)
	id := s.JobID(kind, 1)
	s.labels["idemc_attempt"] = saved
	old, err := s.e.client.JobFromIDLocation(ctx, id, s.e.location)
	if err != nil {
		return // not found (the usual case) or unreadable: nothing to wait for
	}
	if st := old.LastStatus(); st != nil && !st.Done() {
		_, _ = old.Wait(ctx)
	}
}

// valueText renders a result value as text (NULL as "NULL"; timestamps in
// UTC as sqlgen.Text prints them).
func valueText(v bq.Value) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999")
	case civil.Date:
		return x.String()
	case civil.DateTime:
		return x.In(time.UTC).Format("2006-01-02 15:04:05.999999")
	case civil.Time:
		return x.String()
	case *big.Rat:
		s := x.FloatString(9)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	case []byte:
		return string(x)
	default:
		return sqlgen.Text(x)
	}
}

func isConflict(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusConflict
}

var _ adapters.Engine = (*Engine)(nil)
