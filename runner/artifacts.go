package runner

import (
	"encoding/json"
	"io"
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

// writeUnitSQL writes one unit's statements (with the columns the run saw,
// and whether it recreated the relation) under dir.
func writeUnitSQL(dir string, u *compiler.Unit, ran *adapters.Write, d adapters.Dialect) error {
	steps := u.Steps
	if ran.Columns != nil || ran.Recreate {
		w := *u.Write
		w.Columns, w.Recreate, w.Views = ran.Columns, ran.Recreate, ran.Views
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

// WriteCompiled makes target/compiled hold the plan's SQL, one file per
// unit, and writes target/manifest.json. It updates the folder in place:
// a file whose text is unchanged is not rewritten, a changed one is
// replaced atomically (write aside, rename), and files and folders of units
// no longer in the plan are removed; the manifest is written last.
func WriteCompiled(root string, plan *compiler.Plan, d adapters.Dialect) error {
	dir := filepath.Join(root, "target", "compiled")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_ = os.RemoveAll(filepath.Join(root, "target", "compiled.tmp")) // left by older versions
	var units []*compiler.Unit
	want := map[string]bool{} // relative paths of the plan's files and folders
	for _, u := range plan.Units {
		if u.Seed {
			continue
		}
		units = append(units, u)
		f := unitFile(u)
		want[f] = true
		want[filepath.Dir(f)] = true
	}
	// Remove what the plan no longer has.
	models, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, m := range models {
		if !want[m.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, m.Name())); err != nil {
				return err
			}
			continue
		}
		if !m.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, m.Name()))
		if err != nil {
			return err
		}
		for _, f := range files {
			if rel := filepath.Join(m.Name(), f.Name()); !want[rel] {
				if err := os.RemoveAll(filepath.Join(dir, rel)); err != nil {
					return err
				}
			}
		}
	}
	// Write what changed. (One at a time: creating files and folders under
	// one parent serializes in the file system anyway.)
	var buf []byte
	for _, u := range units {
		if err := updateUnitSQL(dir, u, &buf); err != nil {
			return err
		}
	}
	return writeManifest(root, plan, d)
}

// updateUnitSQL writes one unit's statements unless the file already holds
// them (a changed file is replaced atomically: written aside, renamed); buf
// is the caller's scratch space for reading the file.
func updateUnitSQL(dir string, u *compiler.Unit, buf *[]byte) error {
	var b strings.Builder
	compiler.FormatUnit(&b, u, true)
	text := strings.TrimLeft(b.String(), "\n")
	path := filepath.Join(dir, unitFile(u))
	same, exists := holds(path, text, buf)
	if same {
		return nil
	}
	target := path
	if exists {
		target = path + ".tmp"
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || target == path {
		return err
	}
	return os.Rename(target, path)
}

// holds reports whether the file at path has exactly text, and whether it
// exists.
func holds(path, text string, buf *[]byte) (same, exists bool) {
	f, err := os.Open(path)
	if err != nil {
		return false, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() != int64(len(text)) {
		return false, true
	}
	if cap(*buf) < len(text) {
		*buf = make([]byte, len(text))
	}
	b := (*buf)[:len(text)]
	if _, err := io.ReadFull(f, b); err != nil {
		return false, true
	}
	return string(b) == text, true
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
