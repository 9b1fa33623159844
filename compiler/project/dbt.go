package project

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/idemc/idemc/compiler/diag"
)

// DBTFileName marks a dbt project: a folder with it (and no project.toml)
// is read by the dbt loader (dbt*.go, DESIGN §15, docs/dbt.md).
const DBTFileName = "dbt_project.yml"

// dbtTopKeys are the keys of dbt_project.yml that dbt documents
// (docs.getdbt.com, "dbt_project.yml"); dbtIgnoredTop are those idemc does
// not use, reported once as ignored.
var (
	dbtTopKeys = []string{"name", "version", "config-version", "profile", "model-paths", "source-paths", "seed-paths", "data-paths",
		"macro-paths", "test-paths", "snapshot-paths", "analysis-paths", "docs-paths", "asset-paths", "target-path", "log-path",
		"clean-targets", "packages-install-path", "vars", "models", "seeds", "tests", "data_tests", "snapshots", "sources",
		"quoting", "on-run-start", "on-run-end", "dispatch", "flags", "restrict-access",
		"semantic-models", "metrics", "saved-queries", "exposures", "unit_tests", "dbt-cloud"}
	dbtSilentTop = []string{"version", "config-version", "analysis-paths", "docs-paths", "asset-paths", "target-path", "log-path",
		"clean-targets", "packages-install-path", "require-dbt-version", "query-comment", "dbt-cloud"}
	dbtIgnoredTop = []string{"snapshot-paths", "snapshots", "sources", "quoting", "on-run-start",
		"on-run-end", "dispatch", "flags", "restrict-access", "semantic-models", "metrics", "saved-queries",
		"exposures", "unit_tests"}
)

// dbtLoad is a dbt project being read.
type dbtLoad struct {
	p       *Project
	errs    *diag.List
	warned  map[string]bool // kinds already reported as ignored
	profile string
	paths   struct{ models, seeds, macros, tests []string }
	// baseConfig and folders are dbt_project.yml's models: configs.
	baseConfig dbtConfig
	folders    []dbtFolder
	disabled   map[string]bool           // models with enabled=false
	seeds      map[string]*dbtSeedConfig // seeds: configs by seed name ("" for every seed)
	yml        dbtYAML                   // what the *.yml files under the paths declare
	// testSeverity is dbt_project.yml's data_tests: +severity, every
	// test's default ("" for error).
	testSeverity string
	// target is the target config() reads target.x for (LoadFor), "" for
	// $IDEMC_TARGET or the profile's.
	target string
}

// dbtFolder is one nested models: block, as a folder layer of idemc's
// (DESIGN §3): dir is relative to a model path, "" for all of them.
type dbtFolder struct {
	dir string
	cfg dbtConfig
}

// loadDBT reads the dbt project at root (DESIGN §15).
func loadDBT(root, target string) (*Project, error) {
	var errs diag.List
	text, err := os.ReadFile(filepath.Join(root, DBTFileName))
	if err != nil {
		return nil, err
	}
	l := &dbtLoad{p: &Project{Root: root, DBT: true, RawVars: true, Vars: map[string]any{}, Sources: map[string]*Source{}}, errs: &errs,
		warned: map[string]bool{}, seeds: map[string]*dbtSeedConfig{}, baseConfig: dbtConfig{}, disabled: map[string]bool{}, target: target}
	l.p.dbtFiles = []string{DBTFileName}
	l.readProjectFile(string(text))
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	l.readProfiles()
	l.readYAMLFiles()
	l.loadFiles()
	errs.Sort()
	return l.p, errs.Err()
}

// warnIgnored reports once per kind that something is not used.
func (l *dbtLoad) warnIgnored(kind, file string, line int, why string) {
	if l.warned[kind] {
		return
	}
	l.warned[kind] = true
	l.p.Warnings = append(l.p.Warnings, diag.Errorf(file, line, 0, "%s ignored: %s", kind, why))
}

// parseYAML parses one YAML file into its document node, reporting a
// syntax error at its line.
func parseYAML(rel, text string, errs *diag.List) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		line := 0
		msg := err.Error()
		// yaml.v3 errors read "yaml: line N: …".
		if _, scanErr := fmt.Sscanf(msg, "yaml: line %d:", &line); scanErr == nil {
			msg = strings.TrimSpace(msg[strings.Index(msg[6:], ":")+7:])
		}
		errs.Add(rel, line, 0, "not valid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
		return nil
	}
	if len(doc.Content) == 0 {
		return nil // an empty file
	}
	return doc.Content[0]
}

// pairs calls fn with every key of a mapping node, in file order; a node
// that is not a mapping is an error naming what.
func pairs(rel, what string, n *yaml.Node, errs *diag.List, fn func(key string, k, v *yaml.Node)) {
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		errs.Add(rel, n.Line, 0, "%s must be a mapping of key: value", what)
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		fn(n.Content[i].Value, n.Content[i], n.Content[i+1])
	}
}

// items calls fn with every element of a sequence node.
func items(rel, what string, n *yaml.Node, errs *diag.List, fn func(v *yaml.Node)) {
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.SequenceNode {
		errs.Add(rel, n.Line, 0, "%s must be a list (- item lines)", what)
		return
	}
	for _, v := range n.Content {
		fn(v)
	}
}

// value decodes a node into plain Go values: string, int64, float64,
// bool, nil, []any, map[string]any (the shapes TOML decoding gives, so the
// settings code reads both alike).
func value(n *yaml.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return normalize(v)
}

func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k])
		}
	}
	return v
}

// scalar is a node's string value, or an error when it is not a scalar.
func scalar(rel, key string, n *yaml.Node, errs *diag.List) string {
	if n.Kind != yaml.ScalarNode {
		errs.Add(rel, n.Line, 0, "%s must be a single value, not a list or mapping", key)
		return ""
	}
	return n.Value
}

// stringList is a scalar or a list of scalars.
func stringList(rel, key string, n *yaml.Node, errs *diag.List) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	items(rel, key, n, errs, func(v *yaml.Node) { out = append(out, scalar(rel, key, v, errs)) })
	return out
}

// readProjectFile reads dbt_project.yml: name, paths, vars and the
// models:/seeds: config trees.
func (l *dbtLoad) readProjectFile(text string) {
	root := parseYAML(DBTFileName, text, l.errs)
	if root == nil {
		if len(*l.errs) == 0 {
			l.errs.Add(DBTFileName, 1, 0, "dbt_project.yml is empty: it needs at least name: my_project")
		}
		return
	}
	l.paths.models, l.paths.seeds = []string{"models"}, []string{"seeds"}
	l.paths.macros, l.paths.tests = []string{"macros"}, []string{"tests"}
	var models, seeds *yaml.Node
	pairs(DBTFileName, "dbt_project.yml", root, l.errs, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			l.p.Name = scalar(DBTFileName, key, v, l.errs)
		case "profile":
			l.profile = scalar(DBTFileName, key, v, l.errs)
		case "model-paths", "source-paths":
			l.paths.models = stringList(DBTFileName, key, v, l.errs)
		case "seed-paths", "data-paths":
			l.paths.seeds = stringList(DBTFileName, key, v, l.errs)
		case "macro-paths":
			l.paths.macros = stringList(DBTFileName, key, v, l.errs)
		case "test-paths":
			l.paths.tests = stringList(DBTFileName, key, v, l.errs)
		case "vars":
			l.readVars(v)
		case "tests", "data_tests":
			l.readTestTree(key, v)
		case "models":
			models = v
		case "seeds":
			seeds = v
		default:
			switch {
			case contains(dbtSilentTop, key):
				// Files and versions of dbt's own: nothing to map or warn.
			case contains(dbtIgnoredTop, key):
				l.warnIgnored(DBTFileName+" "+key, DBTFileName, k.Line, "idemc does not use it")
			default:
				l.errs.Add(DBTFileName, k.Line, 0, "unknown key %q in dbt_project.yml%s", key, didYouMean(key, dbtTopKeys))
			}
		}
	})
	if l.p.Name == "" {
		l.errs.Add(DBTFileName, 1, 0, "name is required: add name: my_project")
	}
	if l.profile == "" {
		l.profile = l.p.Name
	}
	l.readModelTree(models, "", true)
	l.readSeedTree(seeds)
	// More specific folders apply later (so win), as in the native loader.
	sort.SliceStable(l.folders, func(i, j int) bool { return len(l.folders[i].dir) < len(l.folders[j].dir) })
}

// readVars reads vars:, flat or scoped by project name (dbt accepts both;
// a scope for another package is ignored).
func (l *dbtLoad) readVars(n *yaml.Node) {
	pairs(DBTFileName, "vars", n, l.errs, func(key string, _, v *yaml.Node) {
		if key == l.p.Name && v.Kind == yaml.MappingNode {
			pairs(DBTFileName, "vars."+key, v, l.errs, func(k2 string, _, v2 *yaml.Node) { l.p.Vars[k2] = value(v2) })
			return
		}
		l.p.Vars[key] = value(v)
	})
}

// readModelTree reads a models: block: + keys (and known config keys
// without +) are settings of the folder dir ("" for every model); other
// keys are package names at the top (only the project's own is read) and
// subfolders below it.
func (l *dbtLoad) readModelTree(n *yaml.Node, dir string, top bool) {
	lay := l.baseConfig
	if dir != "" {
		lay = dbtConfig{}
		l.folders = append(l.folders, dbtFolder{dir: dir, cfg: lay})
	}
	type sub struct {
		key string
		v   *yaml.Node
	}
	var subs []sub
	pairs(DBTFileName, "models", n, l.errs, func(key string, k, v *yaml.Node) {
		name := strings.TrimPrefix(key, "+")
		if strings.HasPrefix(key, "+") || contains(dbtConfigKeys, key) && v.Kind != yaml.MappingNode {
			l.applyConfig(lay, name, value(v), Pos{DBTFileName, k.Line})
			return
		}
		if v.Kind != yaml.MappingNode {
			l.errs.Add(DBTFileName, k.Line, 0, "models: %q is neither a config (+%s) nor a folder (a mapping)%s", key, key, didYouMean(key, dbtConfigKeys))
			return
		}
		subs = append(subs, sub{key, v})
	})
	for _, s := range subs {
		switch {
		case top && s.key == l.p.Name:
			l.readModelTree(s.v, "", false)
		case top:
			l.warnIgnored("models: configs for package "+s.key, DBTFileName, s.v.Line, "idemc reads no dbt packages")
		default:
			l.readModelTree(s.v, path.Join(dir, s.key), false)
		}
	}
}

// folderOf is a model's folder relative to the model path it is under
// ("" for the path itself), as folder configs name it.
func (l *dbtLoad) folderOf(rel string) string {
	dir := path.Dir(rel)
	for _, mp := range l.paths.models {
		mp = path.Clean(mp)
		if dir == mp {
			return ""
		}
		if strings.HasPrefix(dir, mp+"/") {
			return dir[len(mp)+1:]
		}
	}
	return dir
}

// readTestTree reads dbt_project.yml's data_tests: block: +severity for
// every test of the project (at the top or under the project's name);
// other test configs are reported once as ignored.
func (l *dbtLoad) readTestTree(key string, n *yaml.Node) {
	var walk func(n *yaml.Node, top bool)
	walk = func(n *yaml.Node, top bool) {
		pairs(DBTFileName, key, n, l.errs, func(k string, kn, v *yaml.Node) {
			switch {
			case k == "+severity" || k == "severity":
				l.testSeverity = strings.ToLower(scalar(DBTFileName, k, v, l.errs))
				if l.testSeverity != "warn" && l.testSeverity != "error" {
					l.errs.Add(DBTFileName, kn.Line, 0, "%s: severity %q is not valid; use warn or error", key, l.testSeverity)
				}
			case top && k == l.p.Name && v.Kind == yaml.MappingNode:
				walk(v, false)
			default:
				l.warnIgnored(key+": "+k, DBTFileName, kn.Line, "idemc reads +severity for all tests only")
			}
		})
	}
	walk(n, true)
}
