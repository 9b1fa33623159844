package statefuzz

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Outcome is what one idemc invocation reported.
type Outcome struct {
	Exit     int
	Signaled bool // the process died of a signal (Exit is then 128+signal)
	Output   string
	// Units maps a node (model or seed) to its units' statuses in this run,
	// by partition ("" for unpartitioned), from target/run_results.json.
	Units map[string]map[string]string
	// RunID is the run's id, from target/run_results.json.
	RunID string
	// RunEnd is when the run's work ended (its started_at and seconds in
	// target/run_results.json); zero when unknown.
	RunEnd time.Time
}

// OracleResult is a from-scratch build of one version of the files.
type OracleResult struct {
	Outcome
	Dump Dump
}

// succeeded reports whether every unit of node succeeded (and it had one):
// then the node's relation is exactly what a rebuild leaves.
func (o *OracleResult) succeeded(node string) bool {
	units := o.Units[node]
	for _, st := range units {
		if st != "succeeded" {
			return false
		}
	}
	return len(units) > 0
}

// Oracle builds projects from scratch into fresh warehouses and caches the
// result by file content: most operations (drops, kills, retries, verify)
// leave the files alone, and reverts bring back earlier versions.
type Oracle struct {
	Engine *Engine
	Bin    string // the idemc binary
	Root   string // where oracle project folders are made (and removed)

	mu    sync.Mutex
	cache map[string]*oracleEntry
}

type oracleEntry struct {
	once sync.Once
	res  *OracleResult
	err  error
}

// Build returns the oracle of p.
func (o *Oracle) Build(ctx context.Context, p *Project) (*OracleResult, error) {
	key := contentKey(p)
	o.mu.Lock()
	if o.cache == nil {
		o.cache = map[string]*oracleEntry{}
	}
	e := o.cache[key]
	if e == nil {
		e = &oracleEntry{}
		o.cache[key] = e
	}
	o.mu.Unlock()
	e.once.Do(func() { e.res, e.err = o.build(ctx, p) })
	return e.res, e.err
}

// contentKey identifies a version of the files independently of the
// warehouse they are rendered for.
func contentKey(p *Project) string {
	h := sha256.New()
	files := p.Files(Schemas{Prefix: "fz"}, "")
	for _, name := range FileNames(files) {
		fmt.Fprintf(h, "%s\x00%s\x00", name, files[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (o *Oracle) build(ctx context.Context, p *Project) (*OracleResult, error) {
	dir, err := os.MkdirTemp(o.Root, "oracle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	w := o.Engine.NewWarehouse(dir)
	defer w.Drop(context.WithoutCancel(ctx))
	if err := w.Write(p); err != nil {
		return nil, err
	}
	out := runIdemc(ctx, o.Bin, w, nil, "build", "--as-of", AsOf, "--threads", "2")
	if out.Exit < 0 {
		return nil, fmt.Errorf("oracle build did not run: %s", out.Output)
	}
	d, err := w.Dump(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("oracle dump: %w", err)
	}
	return &OracleResult{Outcome: out, Dump: d}, nil
}

// runResults reads the units of the last run, its id and when its work
// ended from target/run_results.json (absent after a configuration or
// compile error: no units, a zero end).
func runResults(dir string) (map[string]map[string]string, string, time.Time) {
	data, err := os.ReadFile(filepath.Join(dir, "target", "run_results.json"))
	if err != nil {
		return nil, "", time.Time{}
	}
	var rr struct {
		RunID     string    `json:"run_id"`
		StartedAt time.Time `json:"started_at"`
		Seconds   float64   `json:"seconds"`
		Units     []struct {
			Model, Partition, Status string
		} `json:"units"`
	}
	if json.Unmarshal(data, &rr) != nil {
		return nil, "", time.Time{}
	}
	var end time.Time
	if !rr.StartedAt.IsZero() {
		end = rr.StartedAt.Add(time.Duration(rr.Seconds * float64(time.Second)))
	}
	units := map[string]map[string]string{}
	for _, u := range rr.Units {
		if units[u.Model] == nil {
			units[u.Model] = map[string]string{}
		}
		if u.Status == "warned" { // succeeded, with a warn check that found rows
			u.Status = "succeeded"
		}
		units[u.Model][u.Partition] = u.Status
	}
	return units, rr.RunID, end
}

// compiledDiffs checks that every model unit the run attempted has its file
// under target/compiled written by this run (the file holds what ran, its
// run id included): a file left from an earlier run is a difference.
func compiledDiffs(dir string, p *Project, out Outcome) []Difference {
	var diffs []Difference
	for _, m := range p.Models {
		for part, status := range out.Units[m.Name] {
			if status != "succeeded" && status != "failed" {
				continue
			}
			name := part
			if name == "" {
				name = m.Name
			}
			path := filepath.Join(dir, "target", "compiled", m.Name, name+".sql")
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), "'"+out.RunID+"'") {
				diffs = append(diffs, Difference{Node: m.Name, What: "compiled",
					Detail: fmt.Sprintf("%s (%s in run %s) does not hold what the run ran", path, status, out.RunID)})
			}
		}
	}
	return diffs
}
