package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
)

// Artifacts under target/: compiled SQL, the manifest and the run results.

// unitFile is a unit's file name under target/compiled.
func unitFile(u *compiler.Unit) string {
	name := u.Partition
	if name == "" {
		name = u.Model
	}
	return filepath.Join(u.Model, name+".sql")
}

// compiledPath is where a unit's SQL is written, relative to the project.
func compiledPath(u *compiler.Unit) string {
	return filepath.Join("target", "compiled", unitFile(u))
}

// writeUnitSQL writes one unit's statements (with the columns the run saw)
// under dir.
func writeUnitSQL(dir string, u *compiler.Unit, cols []string, d adapters.Dialect) error {
	steps := u.Steps
	if cols != nil {
		w := *u.Write
		w.Columns = cols
		steps = d.Recipe(&w)
	}
	cu := *u
	cu.Steps = steps
	var b strings.Builder
	compiler.FormatUnit(&b, &cu, true)
	path := filepath.Join(dir, unitFile(u))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.TrimLeft(b.String(), "\n")), 0o644)
}

// WriteCompiled replaces target/compiled with the plan's SQL, one file per
// unit, and writes target/manifest.json. It fills a fresh folder and swaps it
// in, so a failure leaves the previous output.
func WriteCompiled(root string, plan *compiler.Plan, d adapters.Dialect) error {
	dir := filepath.Join(root, "target", "compiled")
	tmp := filepath.Join(root, "target", "compiled.tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	for _, u := range plan.Units {
		if u.Seed {
			continue
		}
		if err := writeUnitSQL(tmp, u, nil, d); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return writeManifest(root, plan, d)
}

type manifestNode struct {
	Name         string   `json:"name"`
	Path         string   `json:"path"`
	Kind         string   `json:"kind"`
	Materialized string   `json:"materialized,omitempty"`
	Strategy     string   `json:"strategy,omitempty"`
	Relation     string   `json:"relation"`
	PartitionBy  string   `json:"partition_by,omitempty"`
	Granularity  string   `json:"granularity,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	CodeHash     string   `json:"code_hash,omitempty"`
	DependsOn    []string `json:"depends_on"`
	Checks       []string `json:"checks,omitempty"`
}

// writeManifest records the project's graph in target/manifest.json.
func writeManifest(root string, plan *compiler.Plan, d adapters.Dialect) error {
	out := struct {
		Project string         `json:"project"`
		Target  string         `json:"target"`
		Engine  string         `json:"engine"`
		Nodes   []manifestNode `json:"nodes"`
	}{Project: plan.Project, Target: plan.Target, Engine: plan.Engine}
	for _, n := range plan.Graph.Nodes() {
		node := plan.Nodes[n]
		mn := manifestNode{Name: n, Path: node.Path, Kind: "model", Materialized: node.Materialized, Strategy: node.Strategy,
			Relation: d.Qualify(node.Relation), PartitionBy: node.PartitionBy, Granularity: node.Granularity,
			Tags: node.Tags, CodeHash: node.CodeHash, DependsOn: plan.Graph.Upstream(n)}
		if node.Seed {
			mn.Kind = "seed"
		}
		for _, ch := range node.Checks {
			mn.Checks = append(mn.Checks, ch.Name)
		}
		out.Nodes = append(out.Nodes, mn)
	}
	return writeJSON(filepath.Join(root, "target", "manifest.json"), out)
}

func writeResults(root string, res *Result) error {
	return writeJSON(filepath.Join(root, "target", "run_results.json"), res)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
