package runner

import (
	"path/filepath"

	"github.com/idemc/idemc/plan"
)

// ResultsSchemaVersion is the version of the shapes of target/run_results.json
// and target/manifest.json (the same numbering as the --log-format json
// events).
const ResultsSchemaVersion = 1

// unitJSON is one unit in run_results.json: the result, its dbt-like
// unique id, and status warned where the text output says warned.
type unitJSON struct {
	UniqueID string `json:"unique_id"`
	*UnitResult
	Status string `json:"status"`
}

// resultsJSON is target/run_results.json.
type resultsJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Command       string `json:"command"`
	Project       string `json:"project"`
	*Result
	Units       []unitJSON `json:"units"`
	TestsFailed int        `json:"tests_failed"`
}

// UniqueID is a node's dbt-like id: model.<project>.<name>, seed.… or
// test.….
func UniqueID(kind, project, name string) string { return kind + "." + project + "." + name }

// UnitUniqueID is the unique id of the node a unit writes.
func UnitUniqueID(project string, u *plan.Unit) string {
	if u.Seed {
		return UniqueID("seed", project, u.Model)
	}
	return UniqueID("model", project, u.Model)
}

// Warned reports whether a unit succeeded with a warn check that found rows.
func (ur *UnitResult) Warned() bool {
	if ur.Status != StatusSucceeded {
		return false
	}
	for _, c := range ur.Checks {
		if c.Status == CheckWarn {
			return true
		}
	}
	return false
}

func (r *run) writeResults() error {
	out := resultsJSON{SchemaVersion: ResultsSchemaVersion, Command: commandName(r.o.Command), Project: r.p.Name,
		Result: r.res, Units: []unitJSON{}, TestsFailed: TestsFailed(r.res.Tests)}
	for _, ur := range r.res.Units {
		kind := "model"
		if ur.Kind == "seed" {
			kind = "seed"
		}
		status := string(ur.Status)
		if ur.Warned() {
			status = "warned"
		}
		out.Units = append(out.Units, unitJSON{UniqueID: UniqueID(kind, r.p.Name, ur.Model), UnitResult: ur, Status: status})
	}
	return writeJSON(filepath.Join(r.p.Root, "target", "run_results.json"), out)
}

// TestsFailed counts the failed tests among ts.
func TestsFailed(ts []*TestResult) int {
	n := 0
	for _, t := range ts {
		if t.Status == CheckFail {
			n++
		}
	}
	return n
}

// testResultsJSON is target/run_results.json after idemc test.
type testResultsJSON struct {
	SchemaVersion int           `json:"schema_version"`
	Command       string        `json:"command"`
	Project       string        `json:"project"`
	Tests         []*TestResult `json:"tests"`
	Passed        int           `json:"passed"`
	Failed        int           `json:"failed"`
	Warned        int           `json:"warned"`
}

// WriteTestResults writes idemc test's results to target/run_results.json.
func WriteTestResults(root, project string, tests []*TestResult) error {
	out := testResultsJSON{SchemaVersion: ResultsSchemaVersion, Command: "test", Project: project, Tests: tests}
	if out.Tests == nil {
		out.Tests = []*TestResult{}
	}
	for _, t := range tests {
		switch t.Status {
		case CheckFail:
			out.Failed++
		case CheckWarn:
			out.Warned++
		default:
			out.Passed++
		}
	}
	return writeJSON(filepath.Join(root, "target", "run_results.json"), out)
}
