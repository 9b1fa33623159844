// Package eventlog writes what a command does as JSON lines
// (--log-format json): one object per line, each with schema_version,
// event and time, for an orchestrator to follow. A run gives run_started,
// unit_started and unit_finished per unit, test_finished per singular
// test and run_finished; any command's other output lines become log
// events and its error an error event (docs/events.md).
package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// SchemaVersion is the version of the event objects' shape. It changes when
// a field is removed or changes meaning; added fields keep it.
const SchemaVersion = 1

// Log writes events to one writer, one line each. It is safe for
// concurrent use.
type Log struct {
	mu      sync.Mutex
	w       io.Writer
	runID   string // of the run being observed, "" before one starts
	project string // its project, for unique ids
}

// New returns a Log writing to w.
func New(w io.Writer) *Log { return &Log{w: w} }

// header is the fields every event has; the rest are per event.
type header struct {
	SchemaVersion int    `json:"schema_version"`
	Event         string `json:"event"`
	Time          string `json:"time"`
	RunID         string `json:"run_id,omitempty"`
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// emit writes one event: the header's fields first, then body's.
func (l *Log) emit(event string, at time.Time, body any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, _ := json.Marshal(header{SchemaVersion: SchemaVersion, Event: event, Time: stamp(at), RunID: l.runID})
	line := h
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"marshal_error": err.Error()})
		}
		if len(b) > 2 { // not "{}": splice the body's fields after the header's
			line = append(append(h[:len(h)-1:len(h)-1], ','), b[1:]...)
		}
	}
	_, _ = l.w.Write(append(line, '\n'))
}

type runStarted struct {
	Command  string `json:"command"`
	Project  string `json:"project"`
	Target   string `json:"target"`
	Engine   string `json:"engine"`
	AsOf     string `json:"as_of"`
	Units    int    `json:"units"`
	UpToDate int    `json:"up_to_date"`
}

// RunStarted implements runner.Observer.
func (l *Log) RunStarted(i runner.RunInfo) {
	l.mu.Lock()
	l.runID, l.project = i.RunID, i.Project
	l.mu.Unlock()
	l.emit("run_started", i.Started, runStarted{Command: i.Command, Project: i.Project, Target: i.Target,
		Engine: i.Engine, AsOf: stamp(i.AsOf), Units: len(i.Plan.Units), UpToDate: i.Plan.UpToDateCount})
}

type unitRef struct {
	UniqueID  string `json:"unique_id"`
	Unit      string `json:"unit"`
	Model     string `json:"model"`
	Partition string `json:"partition,omitempty"`
	Kind      string `json:"kind"`
}

func ref(project string, u *plan.Unit, id, model, partition, kind string) unitRef {
	r := unitRef{Unit: id, Model: model, Partition: partition, Kind: kind}
	if u != nil {
		r.Kind = u.Kind()
		r.UniqueID = runner.UnitUniqueID(project, u)
	}
	return r
}

// UnitStarted implements runner.Observer.
func (l *Log) UnitStarted(u *plan.Unit, at time.Time) {
	l.emit("unit_started", at, ref(l.projectName(), u, u.ID, u.Model, u.Partition, ""))
}

type unitFinished struct {
	unitRef
	Status         string         `json:"status"`
	Rows           int64          `json:"rows"`
	Seconds        float64        `json:"seconds"`
	Checks         []checkOutcome `json:"checks"`
	Error          string         `json:"error,omitempty"`
	SkippedBecause string         `json:"skipped_because,omitempty"`
	Note           string         `json:"note,omitempty"`
	CompiledSQL    string         `json:"compiled_sql,omitempty"`
}

type checkOutcome struct {
	Name     string   `json:"name"`
	Severity string   `json:"severity"`
	Status   string   `json:"status"`
	Sample   []string `json:"sample,omitempty"`
}

// UnitFinished implements runner.Observer. A unit whose warning checks
// warned is "warned", as the text output says.
func (l *Log) UnitFinished(u *plan.Unit, ur *runner.UnitResult, at time.Time) {
	ev := unitFinished{unitRef: ref(l.projectName(), u, ur.ID, ur.Model, ur.Partition, ur.Kind), Status: string(ur.Status),
		Rows: ur.Rows, Seconds: ur.Seconds, Error: ur.Error, SkippedBecause: ur.SkippedBy, Note: ur.Note,
		CompiledSQL: ur.SQLFile, Checks: []checkOutcome{}}
	for _, c := range ur.Checks {
		ev.Checks = append(ev.Checks, checkOutcome{Name: c.Name, Severity: c.Severity, Status: string(c.Status), Sample: c.Sample})
	}
	if ur.Warned() {
		ev.Status = "warned"
	}
	l.emit("unit_finished", at, ev)
}

type testFinished struct {
	Name     string `json:"name"`
	Model    string `json:"model,omitempty"`
	Severity string `json:"severity"`
	Status   string `json:"status"`
	Detail   string `json:"detail,omitempty"`
}

// Tests writes one test_finished event per test result.
func (l *Log) Tests(tests []*runner.TestResult, at time.Time) {
	for _, t := range tests {
		l.emit("test_finished", at, testFinished{Name: t.Path, Model: t.Model, Severity: t.Severity, Status: string(t.Status), Detail: t.Detail})
	}
}

type counts struct {
	Succeeded   int `json:"succeeded"`
	Warned      int `json:"warned"`
	Failed      int `json:"failed"`
	Skipped     int `json:"skipped"`
	UpToDate    int `json:"up_to_date"`
	Interrupted int `json:"interrupted"`
	NotStarted  int `json:"not_started"`
	TestsFailed int `json:"tests_failed"`
}

type runFinished struct {
	Outcome    string  `json:"outcome"`
	Seconds    float64 `json:"seconds"`
	Counts     counts  `json:"counts"`
	Statements int64   `json:"statements"`
	RetryOf    string  `json:"retry_of,omitempty"`
}

// RunFinished implements runner.Observer: the singular tests' events, then
// run_finished with the counts of the text summary.
func (l *Log) RunFinished(res *runner.Result, at time.Time) {
	l.Tests(res.Tests, at)
	c := counts{Succeeded: res.Succeeded, Failed: res.Failed, Skipped: res.Skipped, UpToDate: res.UpToDate,
		Interrupted: res.RolledBack, NotStarted: res.NotStarted, TestsFailed: runner.TestsFailed(res.Tests)}
	for _, u := range res.Units {
		if u.Warned() {
			c.Warned++
		}
	}
	c.Succeeded -= c.Warned
	l.emit("run_finished", at, runFinished{Outcome: res.Outcome, Seconds: res.Seconds, Counts: c, Statements: res.Statements, RetryOf: res.RetryOf})
}

// projectName is the observed run's project, for unique ids.
func (l *Log) projectName() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.project
}

// TestsFinished ends idemc test: the counts of its results.
func (l *Log) TestsFinished(passed, failed, warned int) {
	l.emit("tests_finished", time.Now(), struct {
		Passed int `json:"passed"`
		Failed int `json:"failed"`
		Warned int `json:"warned"`
	}{passed, failed, warned})
}

// Result writes a command's result data (ls, status) as one event.
func (l *Log) Result(command string, data any) {
	l.emit("result", time.Now(), struct {
		Command string `json:"command"`
		Data    any    `json:"data"`
	}{command, data})
}

// Message writes a log event: a line a command would print as text.
func (l *Log) Message(level, msg string) {
	l.emit("log", time.Now(), struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	}{level, msg})
}

// Diagnostic is one positioned problem of an error event.
type Diagnostic struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// Error writes the error event a failed command ends with.
func (l *Log) Error(msg string, exitCode int, diags []Diagnostic) {
	l.emit("error", time.Now(), struct {
		Message     string       `json:"message"`
		ExitCode    int          `json:"exit_code"`
		Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	}{msg, exitCode, diags})
}

// Lines returns a writer that turns each line written to it into a log
// event of the level: a command's text output, in JSON mode. Close flushes
// an unfinished last line.
func (l *Log) Lines(level string) io.WriteCloser { return &lineWriter{l: l, level: level} }

type lineWriter struct {
	l     *Log
	level string
	buf   bytes.Buffer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.buf.Next(i + 1))
		w.emit(line[:len(line)-1])
	}
}

func (w *lineWriter) emit(line string) {
	if line == "" {
		return // the text output's spacing
	}
	w.l.Message(w.level, line)
}

func (w *lineWriter) Close() error {
	if w.buf.Len() > 0 {
		sc := bufio.NewScanner(&w.buf)
		for sc.Scan() {
			w.emit(sc.Text())
		}
	}
	return nil
}
