package project

import (
	"cmp"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// dbtYAML is what the properties files (*.yml under the model and seed
// paths) declare.
type dbtYAML struct {
	models map[string]*dbtModelProps
	seeds  map[string]*dbtSeedConfig
}

// dbtModelProps are one models: entry of a properties file.
type dbtModelProps struct {
	pos         Pos
	config      dbtConfig
	description string
	checks      []Check
}

// dbtSeedConfig are a seed's settings: column_types, schema.
type dbtSeedConfig struct {
	pos    Pos
	types  map[string]any
	lines  map[string]int
	file   string
	schema string // +schema for this seed (every seed's is Project.SeedSchema)
}

// dbtIgnoredKinds are properties-file sections idemc does not run,
// reported once per kind.
var dbtIgnoredKinds = []string{"semantic_models", "metrics", "exposures", "saved_queries", "unit_tests", "snapshots",
	"analyses", "macros", "groups"}

// readYAMLFiles reads every *.yml and *.yaml under the model and seed paths.
func (l *dbtLoad) readYAMLFiles() {
	l.yml = dbtYAML{models: map[string]*dbtModelProps{}, seeds: map[string]*dbtSeedConfig{}}
	dirs := append(append([]string{}, l.paths.models...), l.paths.seeds...)
	for _, dir := range dirs {
		for _, ext := range []string{".yml", ".yaml"} {
			l.p.walk(dir, ext, l.errs, func(rel, text string) { l.readPropertiesFile(rel, text) })
		}
	}
}

func (l *dbtLoad) readPropertiesFile(rel, text string) {
	l.p.dbtFiles = append(l.p.dbtFiles, rel)
	root := parseYAML(rel, text, l.errs)
	pairs(rel, rel, root, l.errs, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
		case "models":
			items(rel, "models", v, l.errs, func(n *yaml.Node) { l.readModelProps(rel, n) })
		case "sources":
			items(rel, "sources", v, l.errs, func(n *yaml.Node) { l.readSource(rel, n) })
		case "seeds":
			items(rel, "seeds", v, l.errs, func(n *yaml.Node) { l.readSeedProps(rel, n) })
		default:
			if contains(dbtIgnoredKinds, key) {
				l.warnIgnored(strings.ReplaceAll(key, "_", " "), rel, k.Line, "idemc does not run them")
				return
			}
			l.errs.Add(rel, k.Line, 0, "unknown key %q in a properties file%s", key, didYouMean(key, append([]string{"version", "models", "sources", "seeds"}, dbtIgnoredKinds...)))
		}
	})
}

// readModelProps reads one models: entry: config, description, column and
// model tests.
func (l *dbtLoad) readModelProps(rel string, n *yaml.Node) {
	mp := &dbtModelProps{pos: Pos{rel, n.Line}, config: dbtConfig{}}
	var name string
	var columns, tests []*yaml.Node
	pairs(rel, "a models: entry", n, l.errs, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			name = scalar(rel, key, v, l.errs)
		case "description":
			mp.description = v.Value
		case "config":
			pairs(rel, "config", v, l.errs, func(ck string, k2, v2 *yaml.Node) {
				l.applyConfig(mp.config, ck, value(v2), Pos{rel, k2.Line})
			})
		case "columns":
			items(rel, "columns", v, l.errs, func(c *yaml.Node) { columns = append(columns, c) })
		case "tests", "data_tests":
			items(rel, key, v, l.errs, func(t *yaml.Node) { tests = append(tests, t) })
		case "docs", "meta", "access", "group", "latest_version", "versions", "constraints", "deprecation_date":
			l.warnIgnored("models: "+key, rel, k.Line, "idemc does not use it")
		default:
			l.errs.Add(rel, k.Line, 0, "unknown key %q in a models: entry%s", key, didYouMean(key, []string{"name", "description", "config", "columns", "data_tests", "tests"}))
		}
	})
	if name == "" {
		l.errs.Add(rel, n.Line, 0, "a models: entry needs name: (the model's file name without .sql)")
		return
	}
	if prev := l.yml.models[name]; prev != nil {
		l.errs.Add(rel, n.Line, 0, "model %s is described twice: also at %s:%d; keep one entry", name, prev.pos.Path, prev.pos.Line)
		return
	}
	for _, c := range columns {
		l.readColumn(rel, mp, c)
	}
	for _, t := range tests {
		mp.checks = l.readTest(rel, t, "", mp.checks)
	}
	l.yml.models[name] = mp
}

// readColumn reads one columns: entry's tests (its description is for
// docs, which show model descriptions only today).
func (l *dbtLoad) readColumn(rel string, mp *dbtModelProps, n *yaml.Node) {
	var col string
	var tests []*yaml.Node
	pairs(rel, "a columns: entry", n, l.errs, func(key string, _, v *yaml.Node) {
		switch key {
		case "name":
			col = scalar(rel, key, v, l.errs)
		case "tests", "data_tests":
			items(rel, key, v, l.errs, func(t *yaml.Node) { tests = append(tests, t) })
		}
	})
	if col == "" && len(tests) > 0 {
		l.errs.Add(rel, n.Line, 0, "a columns: entry with tests needs name: (the column)")
		return
	}
	for _, t := range tests {
		mp.checks = l.readTest(rel, t, col, mp.checks)
	}
}

// readTest maps one generic test onto an idemc check: unique, not_null,
// accepted_values, relationships (and dbt_utils'
// unique_combination_of_columns); others are reported once as ignored.
func (l *dbtLoad) readTest(rel string, n *yaml.Node, col string, out []Check) []Check {
	name, args := n.Value, map[string]any{}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		name = n.Content[0].Value
		if m, ok := jinjaValue(value(n.Content[1]), l.litEnv()).(map[string]any); ok {
			args = m
		}
	} else if n.Kind != yaml.ScalarNode {
		l.errs.Add(rel, n.Line, 0, "a test is a name (- unique) or one name: {arguments} mapping")
		return out
	}
	// dbt 1.10 nests a test's arguments under arguments:.
	if a, ok := args["arguments"].(map[string]any); ok {
		for k, v := range a {
			args[k] = v
		}
	}
	l.warnTestConfig(rel, n.Line, args)
	c := Check{Kind: name, Severity: testSeverity(args, l.testSeverity), Pos: Pos{rel, n.Line}}
	if c.Severity != "warn" && c.Severity != "error" {
		l.errs.Add(rel, n.Line, 0, "test %s: severity %q is not valid; use warn or error", name, c.Severity)
		return out
	}
	if cn, ok := args["column_name"].(string); ok && col == "" {
		col = cn
	}
	return l.testCheck(rel, n, c, col, args, out)
}

// testSeverity is a test's severity: config: {severity: warn}, or the
// older severity: at the test's top; "error"
// (or def: dbt_project.yml's data_tests: +severity) when neither is set.
func testSeverity(args map[string]any, def string) string {
	sev := args["severity"]
	if cfg, ok := args["config"].(map[string]any); ok && cfg["severity"] != nil {
		sev = cfg["severity"]
	}
	if sev == nil {
		return cmp.Or(def, "error")
	}
	return strings.ToLower(fmt.Sprint(sev))
}

// testCheck fills check c of the test at n by its kind.
func (l *dbtLoad) testCheck(rel string, n *yaml.Node, c Check, col string, args map[string]any, out []Check) []Check {
	name := c.Kind
	need := func() bool {
		if col == "" {
			l.errs.Add(rel, n.Line, 0, "test %s needs a column: put it under the column's data_tests", name)
		}
		return col != ""
	}
	switch name {
	case "unique", "not_null":
		if !need() {
			return out
		}
		c.Columns, c.Name = []string{col}, name+"("+col+")"
	case "accepted_values":
		vals, ok := args["values"].([]any)
		if !need() || !ok {
			if col != "" {
				l.errs.Add(rel, n.Line, 0, "test accepted_values needs values: [a, b]")
			}
			return out
		}
		c.Columns, c.Name = []string{col}, "accepted_values("+col+")"
		for _, v := range vals {
			c.Values = append(c.Values, fmt.Sprint(v))
		}
	case "relationships":
		to, _ := args["to"].(string)
		field, _ := args["field"].(string)
		rel2 := refTarget(to)
		if !need() || rel2 == "" || field == "" {
			if col != "" {
				l.errs.Add(rel, n.Line, 0, "test relationships needs to: ref('model') and field: column")
			}
			return out
		}
		c.Columns, c.Relation, c.RelationColumn = []string{col}, rel2, field
		c.Name = "relationships(" + col + " -> " + rel2 + "." + field + ")"
	case "dbt_utils.unique_combination_of_columns":
		cols, ok := stringsOf(args["combination_of_columns"])
		if !ok || len(cols) == 0 {
			l.errs.Add(rel, n.Line, 0, "test %s needs combination_of_columns: [a, b]", name)
			return out
		}
		c.Kind, c.Columns, c.Name = "unique", cols, "unique("+strings.Join(cols, ", ")+")"
	default:
		l.warnIgnored("test "+name, rel, n.Line, "idemc maps unique, not_null, accepted_values and relationships (write others as tests/*.sql or an expect check)")
		return out
	}
	return append(out, c)
}

// refTarget reads ref('x') or source('s', 't') in a relationships to:.
func refTarget(to string) string {
	to = strings.TrimSpace(to)
	args := func(prefix string) []string {
		if !strings.HasPrefix(to, prefix+"(") || !strings.HasSuffix(to, ")") {
			return nil
		}
		var out []string
		for _, a := range strings.Split(to[len(prefix)+1:len(to)-1], ",") {
			out = append(out, strings.Trim(strings.TrimSpace(a), `'"`))
		}
		return out
	}
	if a := args("ref"); len(a) > 0 {
		return a[len(a)-1] // ref('pkg', 'model'): idemc has one package
	}
	if a := args("source"); len(a) == 2 {
		return a[0] + "." + a[1]
	}
	return ""
}

// readSource reads one sources: entry.
func (l *dbtLoad) readSource(rel string, n *yaml.Node) {
	s := &Source{Line: n.Line, LoadedAt: map[string]string{}, Freshness: map[string]any{}}
	var loadedAt string
	var freshness any
	var tables []*yaml.Node
	pairs(rel, "a sources: entry", n, l.errs, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			s.Name = scalar(rel, key, v, l.errs)
		case "schema":
			s.Schema = scalar(rel, key, v, l.errs)
		case "database", "project", "catalog":
			s.Database = scalar(rel, key, v, l.errs)
		case "loaded_at_field":
			loadedAt = v.Value
		case "freshness":
			freshness = value(v)
		case "tables":
			items(rel, "tables", v, l.errs, func(t *yaml.Node) { tables = append(tables, t) })
		case "description", "loader", "meta", "tags", "config", "quoting", "overrides":
		default:
			l.errs.Add(rel, k.Line, 0, "unknown key %q in a sources: entry%s", key, didYouMean(key, []string{"name", "schema", "database", "tables", "loaded_at_field", "freshness"}))
		}
	})
	if s.Name == "" {
		l.errs.Add(rel, n.Line, 0, "a sources: entry needs name:")
		return
	}
	if s.Schema == "" {
		s.Schema = s.Name // dbt's default
	}
	// {{ env_var('X', 'd') }} in a schema, as in profiles.yml; it is read
	// now, because the compiled SQL names the schema.
	if v, err := profileValue(s.Schema); err != nil {
		l.errs.Add(rel, n.Line, 0, "source %s schema: %v", s.Name, err)
	} else if v, derr := expandSchema(v, "source "+s.Name+" schema", n.Line); derr != nil {
		derr.Path = rel
		l.errs.Append(derr)
	} else {
		s.Schema = v
	}
	for _, t := range tables {
		l.readSourceTable(rel, s, t, loadedAt, freshness)
	}
	if prev := l.p.Sources[s.Name]; prev != nil {
		l.errs.Add(rel, n.Line, 0, "source %s is declared twice; keep one entry", s.Name)
		return
	}
	l.p.Sources[s.Name] = s
}

// readSourceTable reads one tables: entry; its loaded_at_field and
// freshness (or the source's) are recorded, not checked.
func (l *dbtLoad) readSourceTable(rel string, s *Source, n *yaml.Node, loadedAt string, freshness any) {
	var name, ident string
	pairs(rel, "a tables: entry", n, l.errs, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			name = scalar(rel, key, v, l.errs)
		case "identifier":
			ident = v.Value
		case "loaded_at_field":
			loadedAt = v.Value
		case "freshness":
			freshness = value(v)
		case "tests", "data_tests", "columns":
			l.warnIgnored("tests on sources", rel, k.Line, "idemc checks what models write; test a source through a model or tests/*.sql")
		}
	})
	if ident != "" && ident != name {
		// {{ source('s', name) }} reads the relation named ident, as in dbt.
		if s.Identifiers == nil {
			s.Identifiers = map[string]string{}
		}
		s.Identifiers[name] = ident
	}
	s.Tables = append(s.Tables, name)
	if loadedAt != "" {
		s.LoadedAt[name] = loadedAt
	}
	if freshness != nil {
		s.Freshness[name] = freshness
	}
}

// readSeedProps reads one seeds: entry: config.column_types (and schema).
func (l *dbtLoad) readSeedProps(rel string, n *yaml.Node) {
	var name string
	sc := &dbtSeedConfig{pos: Pos{rel, n.Line}, file: rel, lines: map[string]int{}}
	pairs(rel, "a seeds: entry", n, l.errs, func(key string, _, v *yaml.Node) {
		switch key {
		case "name":
			name = scalar(rel, key, v, l.errs)
		case "config":
			pairs(rel, "config", v, l.errs, func(ck string, k2, v2 *yaml.Node) { l.seedSetting(sc, rel, ck, k2, v2) })
		}
	})
	if name != "" {
		l.yml.seeds[name] = sc
	}
}

// dbtTestConfigs are test configs that change which rows fail or how they
// are counted; idemc checks every written row, so each is reported once.
var dbtTestConfigs = []string{"where", "limit", "error_if", "warn_if", "fail_calc", "store_failures", "store_failures_as"}

// warnTestConfig reports a test's configs idemc does not apply.
func (l *dbtLoad) warnTestConfig(rel string, line int, args map[string]any) {
	cfg, _ := args["config"].(map[string]any)
	for _, k := range dbtTestConfigs {
		if args[k] != nil || cfg[k] != nil {
			l.warnIgnored("test config "+k, rel, line, "idemc checks every row a unit writes (such a check may fail where dbt's passes)")
		}
	}
}
