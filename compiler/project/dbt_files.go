package project

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/compiler/diag"
)

// readSeedTree reads dbt_project.yml's seeds: block: + keys at the top or
// under the project name are for every seed; a nested name is a seed (or
// a folder, whose configs apply to the seeds of that name only).
func (l *dbtLoad) readSeedTree(n *yaml.Node) {
	var walk func(n *yaml.Node, name string, top bool)
	walk = func(n *yaml.Node, name string, top bool) {
		pairs(DBTFileName, "seeds", n, l.errs, func(key string, k, v *yaml.Node) {
			switch {
			case strings.HasPrefix(key, "+"):
				sc := l.seeds[name]
				if sc == nil {
					sc = &dbtSeedConfig{pos: Pos{DBTFileName, k.Line}, file: DBTFileName, lines: map[string]int{}}
					l.seeds[name] = sc
				}
				l.seedSetting(sc, DBTFileName, key[1:], k, v)
			case v.Kind != yaml.MappingNode:
				l.errs.Add(DBTFileName, k.Line, 0, "seeds: %q is neither a config (+%s) nor a seed or folder (a mapping)", key, key)
			case top && key == l.p.Name:
				walk(v, "", false)
			case top:
				l.warnIgnored("seeds: configs for package "+key, DBTFileName, k.Line, "idemc reads no dbt packages")
			default:
				walk(v, key, false)
			}
		})
	}
	walk(n, "", true)
}

// seedSetting reads one seed config: column_types and schema; others are
// reported once as ignored.
func (l *dbtLoad) seedSetting(sc *dbtSeedConfig, rel, key string, k, v *yaml.Node) {
	switch key {
	case "column_types":
		sc.types = map[string]any{}
		pairs(rel, "column_types", v, l.errs, func(col string, ck, cv *yaml.Node) {
			sc.types[col] = cv.Value
			sc.lines[col] = ck.Line
		})
	case "schema":
		s := scalar(rel, key, v, l.errs)
		if sc == l.seeds[""] {
			l.p.SeedSchema = s
		} else {
			sc.schema = s // appended to the target's schema, as a model's is
		}
	case "enabled", "quote_columns", "delimiter", "full_refresh":
		l.warnIgnored("seed config "+key, rel, k.Line, "idemc does not use it")
	default:
		l.warnIgnored("seed config "+key, rel, k.Line, "idemc does not use it")
	}
}

// seedKind maps a dbt column type (varchar, integer, decimal(10,2), …)
// onto a seed kind.
func seedKind(t string) (seed.Kind, bool) {
	s := strings.ToLower(strings.TrimSpace(t))
	if i := strings.IndexByte(s, '('); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	if k, ok := seed.ParseKind(s); ok {
		return k, true
	}
	if k, ok := kindAliases[s]; ok {
		return k, true
	}
	switch s {
	case "smallint", "tinyint", "hugeint", "int4", "int8", "int2", "long":
		return seed.BigInt, true
	case "float4", "float8", "double precision":
		return seed.Double, true
	case "timestamptz", "timestamp with time zone", "timestamp without time zone":
		return seed.Timestamp, true
	case "character varying", "nvarchar", "string", "clob":
		return seed.Text, true
	}
	return "", false
}

// seedConfigOf merges a seed's configs (all seeds, dbt_project.yml's for
// it, its properties entry) into the native seedConfig.
func (l *dbtLoad) seedConfigOf(name string) *seedConfig {
	var out *seedConfig
	for _, sc := range []*dbtSeedConfig{l.seeds[""], l.seeds[name], l.yml.seeds[name]} {
		if sc == nil || len(sc.types) == 0 {
			continue
		}
		if out == nil {
			out = &seedConfig{line: sc.pos.Line, types: map[string]seed.Kind{}, lines: map[string]int{}}
		}
		for col, raw := range sc.types {
			k, ok := seedKind(fmt.Sprint(raw))
			if !ok {
				l.errs.Add(sc.file, sc.lines[col], 0, "seed %s: column_types.%s = %q is not a type idemc maps; use one of %s (or varchar, integer, decimal, …)", name, col, raw, kindList())
				continue
			}
			out.types[col], out.lines[col] = k, sc.lines[col]
		}
	}
	return out
}

// loadFiles reads the models, macros, singular tests and seeds under the
// project's paths.
func (l *dbtLoad) loadFiles() {
	p, errs := l.p, l.errs
	byName := map[string]*Model{}
	for _, dir := range l.paths.models {
		p.walk(dir, ".sql", errs, func(rel, text string) {
			m := l.model(rel, text)
			if m == nil {
				return
			}
			if prev, ok := byName[m.Name]; ok {
				errs.Add(rel, 1, 0, "duplicate model name %q: also defined in %s; rename one of the files", m.Name, prev.Path)
				return
			}
			byName[m.Name] = m
			p.Models = append(p.Models, m)
		})
	}
	for name, mp := range l.yml.models {
		if byName[name] == nil && !l.disabled[name] {
			errs.Add(mp.pos.Path, mp.pos.Line, 0, "model %s is described here but has no .sql file under %s%s", name, strings.Join(l.paths.models, ", "), didYouMean(name, sortedKeys(byName)))
		}
	}
	for _, dir := range l.paths.macros {
		p.walk(dir, ".sql", errs, func(rel, text string) { p.Macros = append(p.Macros, File{Path: rel, Text: text}) })
	}
	for _, dir := range l.paths.tests {
		p.walk(dir, ".sql", errs, func(rel, text string) { p.Tests = append(p.Tests, File{Path: rel, Text: text}) })
	}
	p.seedConfigs = map[string]*seedConfig{}
	for _, dir := range l.paths.seeds {
		p.walk(dir, ".csv", errs, func(rel, text string) {
			name := strings.TrimSuffix(path.Base(rel), ".csv")
			if prev, ok := byName[name]; ok {
				errs.Add(rel, 1, 0, "seed %q has the same name as model %s; rename one of them", name, prev.Path)
				return
			}
			if sc := l.seedConfigOf(name); sc != nil {
				p.seedConfigs[name] = sc
			}
			p.Seeds = append(p.Seeds, l.loadSeed(rel, name, text))
		})
	}
	rels := make([]string, 0, len(p.Models))
	for _, m := range p.Models {
		rels = append(rels, m.Path)
	}
	p.checkReads(rels, false, errs)
	sort.Slice(p.Models, func(i, j int) bool { return p.Models[i].Name < p.Models[j].Name })
	sort.Slice(p.Seeds, func(i, j int) bool { return p.Seeds[i].Name < p.Seeds[j].Name })
	sort.Slice(p.Macros, func(i, j int) bool { return p.Macros[i].Path < p.Macros[j].Path })
	sort.Slice(p.Tests, func(i, j int) bool { return p.Tests[i].Path < p.Tests[j].Path })
}

// loadSeed parses a seed with its column types; a column_types entry
// naming a column the file lacks is reported at its line.
func (l *dbtLoad) loadSeed(rel, name, text string) *Seed {
	s := &Seed{Name: name, Path: rel}
	// The most specific +schema wins: the seed's properties entry, then
	// its entry in dbt_project.yml; else every seed's (Project.SeedSchema).
	for _, sc := range []*dbtSeedConfig{l.yml.seeds[name], l.seeds[name]} {
		if sc != nil && sc.schema != "" && s.Schema == "" {
			s.Schema = sc.schema
		}
	}
	cfg := l.p.seedConfigs[name]
	if cfg != nil {
		s.ColumnTypes = cfg.types
	}
	t, perrs := seed.Parse([]byte(text), s.ColumnTypes)
	for _, e := range perrs {
		l.errs.Add(rel, e.Line, e.Col, "%s", e.Msg)
	}
	s.Table = t
	return s
}

// model reads one model file: its config() calls are read and blanked
// out, its layers merged (dbt_project.yml, the properties file, the
// call), and the result settled as a native model's. nil when disabled or
// unreadable.
func (l *dbtLoad) model(rel, text string) *Model {
	name := strings.TrimSuffix(path.Base(rel), ".sql")
	if !validName.MatchString(name) {
		l.errs.Add(rel, 0, 0, "model name %q must be letters, digits and underscores (it becomes a table name); rename the file", name)
		return nil
	}
	m := &Model{Name: name, Path: rel, HeaderLine: map[string]Pos{}}
	calls, body := extractConfig(text)
	m.Body, m.BodyLine = body, firstContentLine(body)
	merged := dbtConfig{}
	for k, v := range l.baseConfig {
		merged[k] = v
	}
	dir := l.folderOf(rel)
	for _, f := range l.folders {
		if f.dir == dir || strings.HasPrefix(dir, f.dir+"/") || f.dir == path.Join(dir, name) {
			merged = merged.merge(f.cfg)
		}
	}
	props := l.yml.models[name]
	if props != nil {
		merged = merged.merge(props.config)
	}
	for _, c := range calls {
		kws, err := parseKwargs(c.args, l.litEnv())
		if err != nil {
			l.errs.Add(rel, c.line+strings.Count(c.args[:err.(*litError).off], "\n"), 0, "config(): %v", err)
			continue
		}
		call := dbtConfig{}
		for _, kw := range kws {
			l.applyConfig(call, kw.name, kw.val, Pos{rel, c.line + kw.line})
		}
		merged = merged.merge(call)
	}
	if !l.toModelConfig(m, merged) {
		l.disabled[name] = true
		return nil
	}
	if props != nil && props.description != "" && m.Config.Description == "" {
		m.Config.Description = props.description
	}
	if m.Config.Materialized == "" {
		m.Config.Materialized = "view" // dbt's default too
	}
	l.settle(m, props)
	return m
}

// settle validates the mapped settings and adds the properties file's
// tests as the model's checks.
func (l *dbtLoad) settle(m *Model, props *dbtModelProps) {
	var errs diag.List
	for key, msg := range m.Config.validate() {
		pos := m.settingPos(key)
		errs.Add(pos.Path, pos.Line, 0, "%s", msg)
	}
	if len(errs) == 0 {
		m.settleWrite(&errs)
	}
	l.errs.Append(errs.Err())
	if props == nil || len(props.checks) == 0 {
		return
	}
	m.Checks = append(m.Checks, props.checks...)
	// The code hash covers Config.Checks (compiler codeHash): one entry
	// naming every mapped test, so adding or changing one reruns the model.
	var b strings.Builder
	for _, c := range props.checks {
		fmt.Fprintf(&b, "%s|%s|%v|%s|%s;", c.Name, c.Severity, c.Values, c.Relation, c.RelationColumn)
	}
	m.Config.Checks = map[string]CheckSpec{"dbt_tests": {Value: b.String()}}
}

// isDBTProject reports whether root holds a dbt project and no project.toml.
func isDBTProject(root string) bool {
	if _, err := os.Stat(filepath.Join(root, FileName)); err == nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(root, DBTFileName))
	return err == nil && !fi.IsDir()
}

// litEnv is what config() and properties values read: the vars, and the
// target the project is loaded for (LoadFor: --target), else the one
// IDEMC_TARGET names, else the profile's target. A model whose config
// reads target.x is then bound to that target: Project.TargetBound,
// checked when compiling.
func (l *dbtLoad) litEnv() litEnv {
	return litEnv{vars: l.p.Vars, target: func(field string) (any, bool) {
		name := cmp.Or(l.target, os.Getenv("IDEMC_TARGET"))
		if name == "" {
			name = l.p.DefaultTarget
		}
		t := l.p.Targets[name]
		if t == nil {
			return nil, false
		}
		l.p.TargetBound = name
		switch field {
		case "name":
			return name, true
		case "type":
			return t.Engine, true
		case "schema":
			return t.Schema, true
		case "threads":
			return int64(t.Threads), true
		}
		return nil, false
	}}
}
