// Package openlineage emits OpenLineage run events for every unit a run
// runs ([openlineage] in project.toml): START when it starts, COMPLETE,
// FAIL or ABORT when it ends, with the partition window as nominalTime,
// the model's inputs and output, its column lineage, its row count and its
// checks as data-quality assertions. Delivery happens off the units' path
// and can never fail a build: an endpoint that is down costs a warning.
package openlineage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// Spec URLs of the run event and the facets idemc writes (OpenLineage 2-0-2).
const (
	producer   = "https://github.com/idemc/idemc"
	specURL    = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
	facetsBase = "https://openlineage.io/spec/facets/"
)

// Config is where events go: a URL (POSTed JSON) or a file (JSON lines).
type Config struct {
	URL, File string
	Namespace string // the jobs' namespace; default "idemc"
}

// Emitter is a runner.Observer that sends OpenLineage events.
type Emitter struct {
	cfg    Config
	warn   io.Writer
	client *http.Client
	queue  chan []byte
	done   chan struct{}
	parent *parentRun

	mu   sync.Mutex
	run  runner.RunInfo
	file *os.File
}

type parentRun struct{ namespace, name, runID string }

// New starts an emitter; Close (RunFinished calls it) flushes it.
func New(cfg Config, warn io.Writer) *Emitter {
	if cfg.Namespace == "" {
		cfg.Namespace = "idemc"
	}
	e := &Emitter{cfg: cfg, warn: warn, client: &http.Client{Timeout: 5 * time.Second}, queue: make(chan []byte, 1024), done: make(chan struct{})}
	e.parent = parentFromEnv(os.Getenv("OPENLINEAGE_PARENT_ID"))
	go e.send(e.queue)
	return e
}

// parentFromEnv reads OPENLINEAGE_PARENT_ID, "namespace/job/run-uuid" as
// orchestrators (Airflow's dbt operators) set it.
func parentFromEnv(v string) *parentRun {
	parts := strings.Split(v, "/")
	if len(parts) < 3 {
		return nil
	}
	id := parts[len(parts)-1]
	if _, err := uuid.Parse(id); err != nil {
		return nil
	}
	return &parentRun{namespace: parts[0], name: strings.Join(parts[1:len(parts)-1], "/"), runID: id}
}

// send delivers queued events one at a time until the queue closes.
func (e *Emitter) send(q <-chan []byte) {
	defer close(e.done)
	for b := range q {
		if err := e.deliver(b); err != nil && e.warn != nil {
			fmt.Fprintf(e.warn, "warning: openlineage: %v (the build goes on)\n", err)
		}
	}
	if e.file != nil {
		e.file.Close()
	}
}

func (e *Emitter) deliver(b []byte) error {
	if e.cfg.File != "" {
		if e.file == nil {
			f, err := os.OpenFile(e.cfg.File, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			e.file = f
		}
		_, err := e.file.Write(append(b, '\n'))
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.URL, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST: %s", resp.Status)
	}
	return nil
}

// RunStarted implements runner.Observer.
func (e *Emitter) RunStarted(i runner.RunInfo) {
	e.mu.Lock()
	e.run = i
	e.mu.Unlock()
}

// UnitStarted implements runner.Observer: a START event.
func (e *Emitter) UnitStarted(u *plan.Unit, at time.Time) {
	e.emit(e.event("START", u, nil, at))
}

// UnitFinished implements runner.Observer: COMPLETE, FAIL or ABORT. A unit
// skipped before it started has no run to end.
func (e *Emitter) UnitFinished(u *plan.Unit, ur *runner.UnitResult, at time.Time) {
	if u == nil || ur.Status == runner.StatusSkipped {
		return
	}
	kind := "COMPLETE"
	switch ur.Status {
	case runner.StatusFailed:
		kind = "FAIL"
	case runner.StatusInterrupted:
		kind = "ABORT"
	}
	e.emit(e.event(kind, u, ur, at))
}

// RunFinished implements runner.Observer: every event is delivered (or
// given up on) before the command ends.
func (e *Emitter) RunFinished(*runner.Result, time.Time) { e.Close() }

// Close flushes the queue, waiting at most 10 s.
func (e *Emitter) Close() {
	e.mu.Lock()
	q := e.queue
	e.queue = nil
	e.mu.Unlock()
	if q == nil {
		return
	}
	close(q)
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		if e.warn != nil {
			fmt.Fprintln(e.warn, "warning: openlineage: events still unsent after 10 s were dropped")
		}
	}
}

func (e *Emitter) emit(ev map[string]any) {
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.queue == nil {
		return
	}
	select {
	case e.queue <- b:
	default: // a stuck endpoint: never hold a unit up
		if e.warn != nil {
			fmt.Fprintln(e.warn, "warning: openlineage: event queue full, an event was dropped")
		}
	}
}

// RunID is a unit's OpenLineage run id: a UUID derived from the idemc run
// and the unit, so START and its end share it and a rerun has its own.
func RunID(idemcRun, unit string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("idemc:"+idemcRun+":"+unit)).String()
}
